/**
 * Plain sentences for every refusal a page can meet. Pages branch on the status and on the
 * refusal's `reason`, as any client of the contract does, never on its message (which is for
 * people, and may change). `Reason` is the service's own list of them (core/errors.ts), a type
 * only: a page naming a reason the service does not give does not compile, and nothing of the
 * service's table is bundled.
 */
import type { Reason } from "../../../functions/src/core/errors";
import type { Answer } from "./answer";

export function says(answer: Answer, reason: Reason): boolean {
  return answer.body.reason === reason;
}

/** "in 45 seconds", "in 12 minutes", "in 3 hours": how long a limit lasts, rounded up. */
export function waitFor(seconds: number): string {
  if (seconds <= 90) return `in ${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes <= 90) return `in ${minutes} minutes`;
  const hours = Math.ceil(minutes / 60);
  return `in ${hours} hours`;
}

export const TRY_AGAIN = "Something went wrong on our side. Please try again in a moment.";
export const UNREACHABLE = "We couldn't reach the service. Check your connection and try again.";

/** Whether a send was refused because a code went to the address moments ago (it can be entered). */
export function justSent(answer: Answer): boolean {
  return answer.status === 429 && says(answer, "resend_too_soon");
}

/** A send refused as "just sent" when this browser used the code that was just sent. */
export function usedCodeWords(answer: Answer): string {
  const wait = answer.retryAfter === null ? "in a minute" : waitFor(answer.retryAfter);
  return `The code we sent to this address a moment ago has been used. You can ask for a new one ${wait}.`;
}

/** Why POST /auth/otp/send refused: `field` for the address itself, `alert` for the rest. */
export function sendRefusalWords(answer: Answer): { field?: string; alert?: string } {
  const wait = answer.retryAfter === null ? "later" : waitFor(answer.retryAfter);
  if (answer.status === 400) return { field: "Enter your email address, like name@example.com." };
  if (answer.status === 429) {
    if (justSent(answer)) return { alert: `We've just sent a code to this address. You can ask for another ${wait}.` };
    if (says(answer, "address_locked"))
      return {
        alert: `Too many wrong codes were tried for this address, so it is locked for now. You can ask for a new code ${wait}.`,
      };
    if (says(answer, "client_budget"))
      return { alert: `Many codes have been asked for from your network lately. You can ask for another ${wait}.` };
    if (says(answer, "request_budget"))
      return { alert: `Many requests for access have come from your network lately. You can ask again ${wait}.` };
    if (says(answer, "service_budget"))
      return { alert: `A lot of people are asking for codes right now. Please try again ${wait}.` };
    if (says(answer, "domain_budget"))
      return { alert: `Many codes have been asked for addresses like yours lately. You can ask for another ${wait}.` };
    return { alert: `You've asked for several codes in the last hour. You can ask for another ${wait}.` };
  }
  if (answer.status === 503)
    return { alert: "Sign-in by email isn't available right now. Try another way to sign in, or try again later." };
  return { alert: TRY_AGAIN };
}

/** Why a code was refused (sign-in or verify): wrong, expired or used up. */
export function codeRefusal(answer: Answer): { field: string; spent: boolean } | null {
  if (answer.status !== 400) return null;
  if (says(answer, "code_expired")) return { field: "That code has expired. Ask for a new one below.", spent: true };
  if (says(answer, "code_exhausted"))
    return {
      field: "That code was entered wrongly too many times, so it no longer works. Ask for a new one below.",
      spent: true,
    };
  return { field: "That code isn't right. Check the email and try again.", spent: false };
}

/** A pasted or typed code, with the spaces people put in it taken out; null when it is not six digits. */
export function normaliseCode(raw: string): string | null {
  const code = raw.replace(/\s+/g, "");
  return /^[0-9]{6}$/.test(code) ? code : null;
}

/**
 * What a page adds once an erasure is answered but not finished: the person is gone, and their
 * account at the identity provider is still being removed, by the service itself. "" when finished.
 */
export function erasureWords(body: Record<string, unknown>): string {
  return body.finished === false
    ? "Removing the sign-in account at the identity provider didn't finish yet: the service keeps trying by itself, and nothing else is kept."
    : "";
}
