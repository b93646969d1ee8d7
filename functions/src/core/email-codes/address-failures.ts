/**
 * An address's run of failed checks at one door, read in the check's transaction and written by
 * it: a hundred failures in a row lock that door for the address (rules.ts `afterFailure`), and a
 * right check starts the run again. Two doors, each with its own run under its own keyed ids:
 * email codes (`email`: its lock is mailed to the address), and recovery codes (`recovery`). A
 * recovery code's run counts every wrong guess at every address alike, one on nobody included,
 * and is never mailed: so neither its lock nor any mail tells a stranger whose address holds codes,
 * and guessing at recovery codes never locks anyone's sign-in by email code.
 */
import type { Deps } from "../deps";
import * as limits from "../../store/email-code-limits";
import type { Transaction } from "../../store/db";
import { addressIds, pepperRing, recoveryRunIds, type PepperKey } from "../pepper";
import { enqueueMail } from "../outbox/enqueue";
import { lockNoticeMail } from "./code-mail";
import { afterFailure, afterSuccess, combine, forgetAfter, isLocked, noticeDue, type LimitState } from "./rules";

type FailureDeps = Pick<Deps, "store" | "clock" | "config" | "pepper" | "random" | "log" | "transaction">;

/** What a check did: a wrong guess compared (`failed`), a right one (`valid`), or neither. */
export type CheckOutcome = "failed" | "valid" | "none";

/** Which way in a run counts the guesses at. */
export type Door = "email" | "recovery";

export interface AddressRun {
  /** Locked now: nothing is compared, nothing counted. */
  locked: boolean;
  /** Until when it is locked (null when it is not). */
  lockedUntil: Date | null;
  /** Writes the check's outcome in the transaction, with the owner's notice when it locks the address. */
  record(outcome: CheckOutcome): void;
}

/** Reads the address's run at `door` in `tx`, before anything is written. */
export async function addressRunIn(
  deps: FailureDeps,
  tx: Transaction,
  address: string,
  door: Door = "email",
): Promise<AddressRun> {
  const { store } = deps;
  const ring = pepperRing(deps);
  const ids = door === "email" ? addressIds(ring, address) : recoveryRunIds(ring, address);
  const now = deps.clock.now();
  const found = await limits.findAll(store, ids, tx);
  const state = combine(found);
  const locked = isLocked(state, now);
  return {
    locked,
    lockedUntil: locked ? state.lockedUntil : null,
    record(outcome) {
      const next: LimitState | null =
        outcome === "failed"
          ? afterFailure(state, now)
          : outcome === "valid" && (state.failures > 0 || state.lockouts > 0)
            ? afterSuccess(state)
            : null;
      if (next === null) return;
      if (door === "email" && noticeDue(state, next, now) && next.lockedUntil !== null) {
        // The owner of the mailbox hears of the lock, in the transaction that sets it (at most daily).
        const notice = lockNoticeMail(address, next.lockedUntil, deps.config.idUrl);
        enqueueMail(deps, tx, notice, { kind: "lock-notice", deliverBy: next.lockedUntil });
        next.noticeAt = now;
      }
      limits.save(store, tx, ids[0] as string, (ring[0] as PepperKey).kid, next, forgetAfter(next), found);
    },
  };
}
