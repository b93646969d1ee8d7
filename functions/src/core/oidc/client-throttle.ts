import { throttleKeyId, type PepperKey } from "../pepper";
import { MINUTE } from "../../clock";
import type { Throttle } from "../model/client-throttle";

/**
 * The token endpoint's throttle on client authentication: after FAILURES_ALLOWED wrong secrets
 * for one client id from one caller inside the window, that caller's wrong secrets for that client
 * id are refused (429, Retry-After) until REFUSAL_MS has passed: a caller told to stop. A right
 * secret is never refused. The caller is an address a direct call to the function writes for
 * itself (http/caller), so a refusal of right secrets would let anyone lock a relying party out by
 * naming its servers; and a refusal protects nothing a secret needs, as every secret `clients add`
 * makes is 256 random bits. A refusal never grows while it runs: refused attempts are not counted.
 */
export const FAILURES_ALLOWED = 10;
export const FAILURE_WINDOW_MS = 10 * MINUTE;
export const REFUSAL_MS = 10 * MINUTE;

/**
 * The record of one client id and caller: a keyed hash of both under CODE_PEPPER's current key
 * (the ring's first), so neither is stored and the caller's address cannot be found by trying
 * every address. A rotation of the pepper starts every throttle afresh: at most ten more guesses
 * per caller, once per rotation.
 */
export function throttleId(ring: PepperKey[], clientId: string, caller: string): string {
  return throttleKeyId(ring[0] as PepperKey, clientId, caller);
}

/** When the refusal ends, if one runs now. */
export function refusedUntil(throttle: Throttle, now: Date): Date | null {
  return throttle.refusedUntil !== null && now.getTime() < throttle.refusedUntil.getTime()
    ? throttle.refusedUntil
    : null;
}

/** One more wrong secret: the failures inside the window, and a refusal from the one that reaches the limit. */
export function afterFailure(throttle: Throttle, now: Date): Throttle {
  const failures = [...throttle.failures.filter((at) => now.getTime() - at.getTime() < FAILURE_WINDOW_MS), now];
  if (failures.length < FAILURES_ALLOWED) return { ...throttle, failures };
  return { ...throttle, failures: [], refusedUntil: new Date(now.getTime() + REFUSAL_MS) };
}

/** When the record stops mattering: its last failure's window and its refusal are over. */
export function forgetAfter(throttle: Throttle): Date {
  const times = [
    ...throttle.failures.map((at) => at.getTime() + FAILURE_WINDOW_MS),
    throttle.refusedUntil?.getTime() ?? 0,
  ];
  return new Date(Math.max(0, ...times));
}
