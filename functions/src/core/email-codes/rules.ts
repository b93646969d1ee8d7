import { DAY, HOUR, MINUTE, SECOND } from "../../clock";
import type { Random } from "../../random";
import type { CodeState, LimitState } from "../model/email-codes";

/**
 * The contract's numbers for email codes, and the decisions made from them, free of I/O: the code,
 * an address's own limits (its sends, failures and locks) and the check of a code. The budgets a
 * send counts against beyond its address: budget-rules.ts.
 */
export const CODE_LIFETIME_MS = 10 * MINUTE;
export const ATTEMPTS_PER_CODE = 5;
export const RESEND_INTERVAL_MS = 60 * SECOND;
export const SENDS_PER_HOUR = 5;
/** Consecutive failed checks of one address, across its codes, before it is locked out. */
export const FAILURE_CEILING = 100;
/**
 * How long each lock lasts, by how many locks the address has had in a row without a right code
 * in between: the first is short, for a person who lost track of their codes; the fourth and
 * later last a day, as every lock did before. A lock never grows while it runs (checks during it
 * are neither compared nor counted), so the only way to a longer one is another hundred failures
 * after it, which the send limits make take at least four hours.
 */
export const LOCKOUT_STEPS_MS = [15 * MINUTE, HOUR, 4 * HOUR, DAY] as const;
/** The owner hears of a lock at most once in this long. */
export const LOCK_NOTICE_INTERVAL_MS = DAY;

/** The purposes a caller of /auth/otp/* may name. */
export const PURPOSES = ["signin", "request-access"] as const;
/**
 * A code's purpose: one of PURPOSES, or an address code's (core/account/addresses), which names
 * the person who asked for it. The purpose is hashed with the code (core/pepper), so a code
 * satisfies no other purpose, and an address code no other person; /auth/otp/* take none of these.
 */
export type Purpose = (typeof PURPOSES)[number] | `address:${string}`;

/** The purpose of a code that proves an address to the person `personId`. */
export const addressPurpose = (personId: string): Purpose => `address:${personId}`;

export const isAddressPurpose = (purpose: Purpose): purpose is `address:${string}` => purpose.startsWith("address:");

/** Uniform over 000000–999999: the CSPRNG's unbiased integer, leading zeros kept. */
export function sixDigits(random: Pick<Random, "int">): string {
  return String(random.int(0, 1_000_000)).padStart(6, "0");
}

/**
 * The code as typed or pasted: surrounding spaces go (people paste them), and what is left must
 * be six ASCII digits. Anything else cannot be a code, so it is refused before any attempt is
 * spent: a typo in the format must not cost the person their live code.
 */
export function normaliseCode(otp: string): string | null {
  const code = otp.trim();
  return /^[0-9]{6}$/.test(code) ? code : null;
}

export type { LimitState };

export const NO_LIMITS: LimitState = { sends: [], failures: 0, lockedUntil: null, lockouts: 0, noticeAt: null };

const latest = (dates: Array<Date | null>): Date | null => {
  const set = dates.filter((d): d is Date => d !== null);
  return set.length === 0 ? null : new Date(Math.max(...set.map((d) => d.getTime())));
};

/** Records of one address under several pepper keys (during a rotation) count as one. */
export function combine(states: LimitState[]): LimitState {
  const sends = [...new Map(states.flatMap((s) => s.sends).map((d) => [d.getTime(), d])).values()].sort(
    (a, b) => a.getTime() - b.getTime(),
  );
  return {
    sends,
    failures: states.reduce((sum, s) => sum + s.failures, 0),
    lockedUntil: latest(states.map((s) => s.lockedUntil)),
    lockouts: Math.max(0, ...states.map((s) => s.lockouts)),
    noticeAt: latest(states.map((s) => s.noticeAt)),
  };
}

export function isLocked(state: LimitState, now: Date): boolean {
  return state.lockedUntil !== null && now.getTime() < state.lockedUntil.getTime();
}

/** Sends inside the hour that ends now; one exactly an hour old has left it. */
function recentSends(state: LimitState, now: Date): Date[] {
  return state.sends.filter((at) => now.getTime() - at.getTime() < HOUR);
}

export type SendRefusal = "email_code_address_locked" | "email_code_resend_too_soon" | "email_code_hourly_limit";

export function sendRefusal(state: LimitState, now: Date): SendRefusal | null {
  if (isLocked(state, now)) return "email_code_address_locked";
  const recent = recentSends(state, now);
  const last = recent.reduce((max, at) => Math.max(max, at.getTime()), -Infinity);
  if (now.getTime() - last < RESEND_INTERVAL_MS) return "email_code_resend_too_soon";
  if (recent.length >= SENDS_PER_HOUR) return "email_code_hourly_limit";
  return null;
}

/**
 * When a refused send would next be allowed: the lockout's end, the minute after the last send,
 * or the moment enough of the hour's sends have left it, whichever is latest.
 */
export function nextSendAt(state: LimitState, now: Date): Date {
  const recent = recentSends(state, now).sort((a, b) => a.getTime() - b.getTime());
  const candidates = [now.getTime(), state.lockedUntil?.getTime() ?? 0];
  const last = recent.at(-1);
  if (last !== undefined) candidates.push(last.getTime() + RESEND_INTERVAL_MS);
  // The send whose leaving brings the hour below its limit.
  const leaving = recent[recent.length - SENDS_PER_HOUR];
  if (leaving !== undefined) candidates.push(leaving.getTime() + HOUR);
  return new Date(Math.max(...candidates));
}

export function afterSend(state: LimitState, now: Date): LimitState {
  return { ...state, sends: [...recentSends(state, now), now] };
}

/**
 * The hundredth failure in a row locks the address for the next step of LOCKOUT_STEPS_MS and
 * starts a fresh run after it.
 */
export function afterFailure(state: LimitState, now: Date): LimitState {
  const failures = state.failures + 1;
  if (failures < FAILURE_CEILING) return { ...state, failures };
  const step = LOCKOUT_STEPS_MS[Math.min(state.lockouts, LOCKOUT_STEPS_MS.length - 1)] as number;
  return { ...state, failures: 0, lockedUntil: new Date(now.getTime() + step), lockouts: state.lockouts + 1 };
}

/** A right code: the run of failures and of locks starts again. */
export function afterSuccess(state: LimitState): LimitState {
  return { ...state, failures: 0, lockouts: 0 };
}

/** Whether a lock set now should be told to the mailbox's owner: at most once a day. */
export function noticeDue(before: LimitState, after: LimitState, now: Date): boolean {
  const locked = after.lockouts > before.lockouts;
  return locked && (after.noticeAt === null || now.getTime() - after.noticeAt.getTime() >= LOCK_NOTICE_INTERVAL_MS);
}

/**
 * When a record can be forgotten: nothing in it matters after its last send's hour and its
 * lockout; a record of locks is kept a day past the last one, so the next lock knows its step.
 */
export function forgetAfter(state: LimitState): Date {
  const lockEnd = state.lockedUntil?.getTime() ?? 0;
  const times = [...state.sends.map((at) => at.getTime() + HOUR), lockEnd, 0];
  if (state.lockouts > 0) times.push(lockEnd + DAY);
  return new Date(Math.max(...times));
}

export type { CodeState };
export type CheckResult = "valid" | "invalid" | "expired" | "exhausted";

/** What a check does to the stored code: nothing, spend an attempt, destroy it, or consume it. */
export type CodeChange = "none" | "attempt" | "expire" | "exhaust" | "consume";

export interface CheckDecision {
  result: CheckResult;
  code: CodeChange;
  /** A wrong guess was compared: it counts towards the address's failure ceiling. */
  failed: boolean;
}

/**
 * One check of a code, decided inside the transaction that records its effect. `compare` runs
 * only when the code is live and has an attempt left, so no guess is ever compared for free.
 */
export function decideCheck(
  code: { state: CodeState; attempts: number; expiresAt: Date } | null,
  locked: boolean,
  now: Date,
  consume: boolean,
  compare: () => boolean,
): CheckDecision {
  if (locked) return { result: "exhausted", code: "none", failed: false };
  // Only a delivered code can ever satisfy a check.
  if (code === null) return { result: "invalid", code: "none", failed: false };
  if (code.state === "expired" || code.state === "exhausted")
    return { result: code.state, code: "none", failed: false };
  if (now.getTime() >= code.expiresAt.getTime()) return { result: "expired", code: "expire", failed: false };
  if (code.attempts >= ATTEMPTS_PER_CODE) return { result: "exhausted", code: "exhaust", failed: false };
  // The budget is checked before comparing, and the spent attempt is written by the same
  // (serialised) transaction that returns this outcome: of any burst, at most five are compared.
  if (compare()) return { result: "valid", code: consume ? "consume" : "none", failed: false };
  return code.attempts + 1 >= ATTEMPTS_PER_CODE
    ? { result: "exhausted", code: "exhaust", failed: true }
    : { result: "invalid", code: "attempt", failed: true };
}
