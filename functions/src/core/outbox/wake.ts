/**
 * Waking the drain: once, after the commit of a transaction that queued something for it. No rule
 * wakes it by hand. Whatever queues an entry (core/outbox/enqueue) notes it on its transaction,
 * and the transaction runner every rule opens its transactions with (`wakingAfterCommit`, put
 * together in deps.ts) wakes the drain once that transaction has committed, if it queued anything:
 * a transaction refused or failed queued nothing, and wakes nobody. An address on no account
 * queues a record with nothing to send, and wakes the drain as a person's address does.
 *
 * Where one step runs several transactions (a file of invitations), or must answer before the
 * wake (a logout under its lookup deadline), `oneWakeAfter` wakes once when the step is done; the
 * drain's own work (`drainsOwnWakes`) wakes nobody, for the drain asks for its next wake itself.
 */
import { errorText } from "../../logger";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { TransactionRunner } from "../ports";
import { logOutbox } from "./log";

/** Who wakes the drain for what a run of transactions queued: once, when it ends (see `oneWakeAfter`). */
interface Wakes {
  queued: number;
}

/** What one attempt of a transaction queued, and who wakes the drain for it: the runner, unless `leftTo`. */
interface Attempt {
  queued: number;
  leftTo: Wakes | null;
}

/** The attempt each transaction runs, by its transaction: a retried one starts afresh. */
const attempts = new WeakMap<Transaction, Attempt>();

/** Notes, in `tx`, that an entry was queued: its commit wakes the drain. */
export function noteQueued(tx: Transaction): void {
  const attempt = attempts.get(tx);
  if (attempt !== undefined) attempt.queued++;
}

/**
 * Transactions run by `run` that wake the drain (of `deps()`, read as it wakes) once each commits
 * having queued something, after the commit and before the caller goes on. Never fails the caller.
 */
export function wakingAfterCommit(
  run: TransactionRunner,
  deps: () => Pick<Deps, "mailQueue" | "log">,
): TransactionRunner {
  return async (work) => {
    let last: Attempt | null = null;
    const result = await run((tx) => {
      // Firestore runs `work` again on contention: only the attempt that commits counts.
      const attempt: Attempt = { queued: 0, leftTo: null };
      last = attempt;
      attempts.set(tx, attempt);
      return work(tx);
    });
    const committed = last as Attempt | null;
    if (committed !== null && committed.queued > 0) {
      if (committed.leftTo === null) await wakeDrainer(deps());
      else committed.leftTo.queued += committed.queued;
    }
    return result;
  };
}

/** `deps` whose transactions leave the wake for what they queue to `wakes`. */
function leavingWakesTo<D extends Pick<Deps, "transaction">>(deps: D, wakes: Wakes): D {
  return {
    ...deps,
    transaction: (work) =>
      deps.transaction((tx) => {
        const attempt = attempts.get(tx);
        if (attempt !== undefined) attempt.leftTo = wakes;
        return work(tx);
      }),
  };
}

/**
 * Runs `work` with deps whose transactions wake nobody, and wakes the drain once it is done,
 * however it ended, if any of them committed having queued something: one step of several
 * transactions (a file of invitations) is one wake, and a step that must answer within a deadline
 * (a logout) wakes once it has answered.
 */
export async function oneWakeAfter<D extends Pick<Deps, "transaction" | "mailQueue" | "log">, T>(
  deps: D,
  work: (deps: D) => Promise<T>,
): Promise<T> {
  const wakes: Wakes = { queued: 0 };
  try {
    return await work(leavingWakesTo(deps, wakes));
  } finally {
    if (wakes.queued > 0) await wakeDrainer(deps);
  }
}

/**
 * `deps` for the drain's own work (its handlers, the digest before it): their transactions wake
 * nobody, for what they queue falls due by the time the drain ends, and the drain then asks to be
 * woken for whatever is due (core/outbox/drain).
 */
export function drainsOwnWakes<D extends Pick<Deps, "transaction">>(deps: D): D {
  return leavingWakesTo(deps, { queued: 0 });
}

/**
 * Asks for a drain, at once or at `at`, and never fails the caller: mail that is not woken for
 * now waits in the outbox for the next wake (GET /status shows the backlog).
 */
export async function wakeDrainer(deps: Pick<Deps, "mailQueue" | "log">, at?: Date): Promise<void> {
  try {
    await deps.mailQueue.wake(at);
  } catch (err) {
    logOutbox(deps.log, "drainNotWoken", { error: errorText(err) });
  }
}
