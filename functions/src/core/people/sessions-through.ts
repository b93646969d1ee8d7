/**
 * The sessions a way in opened end with it. Each session's record says what it came in through
 * (store/sessions: a code's address, a passkey, a recovery code's set); when that is taken away (an
 * address off the person, a passkey removed, a set of recovery codes replaced or cleared), every
 * live session it opened is ended in the same transaction, as logout ends one: on the person's
 * `endedSessions`, which every session request reads, its record marked, and the apps signed in to
 * from it told by back-channel logout. Whoever holds a lost device, or a used code, keeps nothing.
 */
import { endedWith } from "./promotion-keys";
import * as people from "../../store/people";
import * as sessions from "../../store/sessions";
import type { SessionRecord } from "../../store/sessions";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { Person } from "../model/person";
import { signInsEnding, tellClients } from "./sign-in-ends";

/** Ways in being taken away: addresses, passkeys (by id), a set of recovery codes (by when it was made). */
export interface WaysIn {
  addresses?: readonly string[];
  passkeyIds?: readonly string[];
  codesMadeAt?: Date | null;
}

/** Whether `session` came in through one of `ways`. */
export function openedThrough(
  session: Pick<SessionRecord, "address" | "passkeyId" | "codesMadeAt">,
  ways: WaysIn,
): boolean {
  const { address, passkeyId, codesMadeAt } = session;
  return (
    (address !== null && (ways.addresses ?? []).includes(address)) ||
    (passkeyId !== null && (ways.passkeyIds ?? []).includes(passkeyId)) ||
    (codesMadeAt !== null && codesMadeAt.getTime() === ways.codesMadeAt?.getTime())
  );
}

/**
 * The person's live sessions that `ways` opened, and the app sign-ins made from them, read in `tx`
 * before its writes; `end()` ends them there, once the caller has read all it reads, and returns
 * the apps told (the caller wakes the drain once `tx` has committed when there is one).
 */
export async function sessionsThrough(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  person: Person,
  ways: WaysIn,
): Promise<{ ending: SessionRecord[]; end(): string[] }> {
  const none = (ways.addresses ?? []).length === 0 && (ways.passkeyIds ?? []).length === 0 && !ways.codesMadeAt;
  if (none) return { ending: [], end: () => [] };
  const now = deps.clock.now();
  const ending = (await sessions.findLive(deps.store, person.id, now, tx)).filter((s) => openedThrough(s, ways));
  if (ending.length === 0) return { ending, end: () => [] };
  const signedIn = await signInsEnding(
    deps,
    tx,
    person.id,
    ending.map((s) => s.sessionId),
  );
  return {
    ending,
    end() {
      people.setEndedSessions(deps.store, tx, person.id, endedWith(person, ending, now));
      for (const s of ending) sessions.markEnded(deps.store, tx, s.sessionId, now);
      return tellClients(deps, tx, signedIn);
    },
  };
}
