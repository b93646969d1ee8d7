/**
 * An address's run of failed checks, whatever was checked against it (an email code, a recovery
 * code): read in the check's transaction, and written by it. A hundred failures in a row lock the
 * address (rules.ts `afterFailure`), its owner is told, and a right check starts the run again.
 * One home, so the ceiling counts every guess made at an address, by whichever door.
 */
import type { Deps } from "../deps";
import * as limits from "../../store/email-code-limits";
import type { Transaction } from "../../store/db";
import { addressIds, pepperRing, type PepperKey } from "../pepper";
import { enqueueMail } from "../outbox/enqueue";
import { lockNoticeMail } from "./code-mail";
import { afterFailure, afterSuccess, combine, forgetAfter, isLocked, noticeDue, type LimitState } from "./rules";

type FailureDeps = Pick<Deps, "store" | "clock" | "config" | "pepper" | "random" | "log" | "transaction">;

/** What a check did: a wrong guess compared (`failed`), a right one (`valid`), or neither. */
export type CheckOutcome = "failed" | "valid" | "none";

export interface AddressRun {
  /** Locked now: nothing is compared, nothing counted. */
  locked: boolean;
  /** Writes the check's outcome in the transaction, with the owner's notice when it locks the address. */
  record(outcome: CheckOutcome): void;
}

/** Reads the address's run in `tx`, before anything is written. */
export async function addressRunIn(deps: FailureDeps, tx: Transaction, address: string): Promise<AddressRun> {
  const { store } = deps;
  const ring = pepperRing(deps);
  const ids = addressIds(ring, address);
  const now = deps.clock.now();
  const found = await limits.findAll(store, ids, tx);
  const state = combine(found);
  return {
    locked: isLocked(state, now),
    record(outcome) {
      const next: LimitState | null =
        outcome === "failed"
          ? afterFailure(state, now)
          : outcome === "valid" && (state.failures > 0 || state.lockouts > 0)
            ? afterSuccess(state)
            : null;
      if (next === null) return;
      if (noticeDue(state, next, now) && next.lockedUntil !== null) {
        // The owner of the mailbox hears of the lock, in the transaction that sets it (at most daily).
        const notice = lockNoticeMail(address, next.lockedUntil, deps.config.idUrl);
        enqueueMail(deps, tx, notice, { kind: "lock-notice", deliverBy: next.lockedUntil });
        next.noticeAt = now;
      }
      limits.save(store, tx, ids[0] as string, (ring[0] as PepperKey).kid, next, forgetAfter(next), found);
    },
  };
}
