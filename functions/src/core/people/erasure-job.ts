/**
 * Finishing an erasure (core/account/erasure): the person's document is gone in the erasure's
 * transaction, which also queues this job in the outbox; what is left (their accounts at the
 * identity provider, the records that name them) is done by the request that erased them and,
 * should that fail part-way, by the job: the `mail` task's drain runs it as it sends mail, and
 * retries it with the outbox's backoff (15 s, 45 s, 2¼ min, … then every 4 hours) until it is
 * done, however long that takes. Until it is done the erasure is listed (`erasures/{personId}`,
 * `people erasures`, and `doctor`, which fails once one is older than a day).
 */
import { DAY, MINUTE } from "../../clock";
import { errorText } from "../../logger";
import type { Transaction } from "../../store/db";
import * as people from "../../store/people";
import * as personal from "../../store/personal-data";
import type { Deps } from "../deps";
import type { Handlers } from "../outbox/handlers";
import { enqueue } from "../outbox/enqueue";
import { revokeInvitationsOf } from "./inviters";

type FinishDeps = Pick<Deps, "store" | "identity" | "log" | "clock" | "random" | "transaction">;

/**
 * An erasure is usually finished within a day (docs/privacy.md): an attempt past that which still
 * leaves accounts is an ERROR line (`erasure overdue`, alerted on: monitoring/), and doctor fails.
 */
export const ERASURE_OVERDUE_MS = DAY;

/** The finishing job waits this long for the request's own attempt, then tries, and retries until done. */
const JOB_AFTER_MS = MINUTE;

/**
 * Queues the finishing job in `tx`, due `JOB_AFTER_MS` from now. Retried until done: no number of
 * failures gives it up, and no TTL takes it while it waits (the erasure's end deletes it).
 */
function queueJob(deps: Pick<Deps, "store" | "clock" | "random">, tx: Transaction, personId: string): void {
  const now = deps.clock.now();
  enqueue(deps, tx, {
    kind: "erasure",
    about: personId,
    // Past this the job is late, never given up: doctor fails on an erasure older than a day.
    deliverBy: new Date(now.getTime() + DAY),
    notBefore: new Date(now.getTime() + JOB_AFTER_MS),
    retryUntilDone: true,
  });
}

/**
 * Begins, in the transaction that deletes the person's document, what is left of their erasure:
 * `uids`, their accounts at the identity provider, noted to delete until it is done, and this job
 * queued in the outbox to sweep the records that name them.
 */
export function beginErasure(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  personId: string,
  uids: string[],
): void {
  personal.beginErasure(deps.store, tx, personId, uids, deps.clock.now());
  queueJob(deps, tx, personId);
}

/**
 * An attempt that left accounts at the provider: noted on the erasure, and its job queued again
 * if none waits (one given up before jobs were retried until done, or lost), so an unfinished
 * erasure is always being retried.
 */
async function keepRetrying(deps: FinishDeps, personId: string): Promise<void> {
  await personal.erasureTried(deps.store, personId, deps.clock.now());
  await deps.transaction(async (tx) => {
    if (!(await personal.erasureJobWaiting(deps.store, personId, tx))) queueJob(deps, tx, personId);
  });
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
  else {
    const beganMs = deps.clock.now().getTime() - pending.startedAt.getTime();
    if (beganMs >= ERASURE_OVERDUE_MS)
      deps.log.error("erasure overdue", {
        personId,
        accounts: failed.length,
        startedAt: pending.startedAt.toISOString(),
      });
    else deps.log.warn("erasure not finished: provider accounts left", { personId, accounts: failed.length });
    await keepRetrying(deps, personId);
  }
  return failed;
}

/** The outbox's runner of erasure jobs: done, or a failure the drain retries with backoff until it is. */
export function erasureJobHandlers(deps: FinishDeps): Pick<Handlers, "erasure"> {
  return {
    async erasure(entry) {
      const failed = await finishErasure(deps, entry.about);
      // Finished already (by a request that asked again): the job goes, as it does when it finishes.
      if (failed === null) await personal.endErasure(deps.store, entry.about);
      if (failed !== null && failed.length > 0) throw new Error(`${failed.length} provider account(s) not deleted yet`);
      return null;
    },
  };
}
