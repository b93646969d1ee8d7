/**
 * A file of invitations applied (core/invitations/invitation-file reads it): each row one invitation in
 * its own transaction, a few at once, so a thousand rows take seconds, contend on nothing they do
 * not share, and a file run again invites nobody twice. A dry run reads alike and writes nothing.
 */
import type { ActingOnOthers } from "../people/acting";
import type { FileRow } from "./invitation-file";
import { ensureMayInvite, inviteOne, type InviteDeps, type InviteOutcome } from "./invitations";
import { oneWakeAfter } from "../outbox/wake";

/** How many rows are applied at once. */
const ROWS_AT_ONCE = 8;

export type RowOutcome = { line: number; address: string } & (
  { outcome: "invited" | "already-invited"; invitationId: string } | { outcome: "held"; personId: string }
);

export interface FileOutcome {
  dryRun: boolean;
  rows: RowOutcome[];
  counts: Record<InviteOutcome["outcome"], number>;
}

export async function inviteMany(
  deps: InviteDeps,
  rows: FileRow[],
  by: ActingOnOthers,
  options: { dryRun: boolean; days?: number },
): Promise<FileOutcome> {
  // Asked once before any row: a file is never refused half-way for a sign-in grown old.
  await ensureMayInvite(deps, by);
  const done: RowOutcome[] = [];
  // One wake for the file's mail, however many rows it invited.
  await oneWakeAfter(deps, async (deps) => {
    for (let i = 0; i < rows.length; i += ROWS_AT_ONCE) {
      const chunk = rows.slice(i, i + ROWS_AT_ONCE);
      done.push(
        ...(await Promise.all(
          chunk.map(async (row): Promise<RowOutcome> => {
            const result = await inviteOne(deps, row.terms, by, options);
            const base = { line: row.line, address: row.terms.address };
            return result.outcome === "held"
              ? { ...base, outcome: "held", personId: result.personId }
              : { ...base, outcome: result.outcome, invitationId: result.invitation.id };
          }),
        )),
      );
    }
  });
  const counts = { invited: 0, "already-invited": 0, held: 0 };
  for (const row of done) counts[row.outcome]++;
  return { dryRun: options.dryRun, rows: done, counts };
}
