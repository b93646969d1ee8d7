/**
 * Finishing an erasure (core/account/erasure): the person's document is gone in the erasure's
 * transaction, which also queues this job in the outbox; what is left (their accounts at the
 * identity provider, the records that name them) is done by the request that erased them and,
 * should that fail part-way, by the job: the `mail` task's drain runs it as it sends mail, and
 * retries it with the outbox's backoff (15 s, 45 s, 2¼ min, … for a day). Until it is done the
 * erasure is listed (`erasures/{personId}`, `people erasures`).
 */
import { DAY, MINUTE } from "../../clock";
import { errorText } from "../../logger";
import type { Transaction } from "../../store/db";
import * as outbox from "../../store/outbox";
import * as people from "../../store/people";
import * as personal from "../../store/personal-data";
import type { Deps } from "../deps";
import type { Renderer } from "../mail/drain";
import { noticeEntry } from "../mail/outbox";
import { revokeInvitationsOf } from "./invitations";

type FinishDeps = Pick<Deps, "store" | "identity" | "log">;

/** How long an erasure that could not finish keeps the ids of the provider accounts it has still to delete. */
const ERASURE_KEPT_MS = 30 * DAY;
/** The finishing job waits this long for the request's own attempt, then tries, and retries for a day. */
const JOB_AFTER_MS = MINUTE;

/**
 * Begins, in the transaction that deletes the person's document, what is left of their erasure:
 * `uids`, their accounts at the identity provider, noted to delete, and this job queued in the
 * outbox to sweep the records that name them.
 */
export function beginErasure(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  personId: string,
  uids: string[],
): void {
  const now = deps.clock.now();
  personal.beginErasure(deps.store, tx, personId, uids, now, new Date(now.getTime() + ERASURE_KEPT_MS));
  outbox.add(
    deps.store,
    tx,
    noticeEntry(deps, {
      kind: personal.ERASURE_JOB,
      about: personId,
      deliverBy: new Date(now.getTime() + DAY),
      notBefore: new Date(now.getTime() + JOB_AFTER_MS),
    }),
  );
}

/**
 * What is left of the person's erasure, done now: their provider accounts deleted (but one that
 * someone signs in with again: it is theirs now, and a late finish never deletes it), the records
 * that name them swept. The accounts the provider would not delete (the erasure stays begun); null
 * when no erasure of theirs is unfinished.
 */
export async function finishErasure(deps: FinishDeps, personId: string): Promise<string[] | null> {
  const pending = await personal.erasureOf(deps.store, personId);
  if (pending === null) return null;
  const holders = await Promise.all(pending.uids.map((uid) => people.findByUid(deps.store, uid)));
  const theirs = pending.uids.filter((_, i) => holders[i] === null);
  let failed: string[];
  try {
    failed = await deps.identity.deleteAccounts(theirs);
  } catch (err) {
    deps.log.warn("erasure: deleting provider accounts failed", { personId, error: errorText(err) });
    failed = theirs;
  }
  // An erased administrator approves nobody any more, nor do the invitations they made.
  await revokeInvitationsOf(deps, personId);
  await personal.sweepPerson(deps.store, personId);
  if (failed.length === 0) await personal.endErasure(deps.store, personId);
  else deps.log.warn("erasure not finished: provider accounts left", { personId, accounts: failed.length });
  return failed;
}

/** The outbox's runner of erasure jobs: done, or a failure the drain retries with backoff. */
export function erasureJobRenderers(deps: FinishDeps): Record<string, Renderer> {
  return {
    async [personal.ERASURE_JOB](entry) {
      if (entry.about === null) return null;
      const failed = await finishErasure(deps, entry.about);
      if (failed !== null && failed.length > 0) throw new Error(`${failed.length} provider account(s) not deleted yet`);
      return null;
    },
  };
}
