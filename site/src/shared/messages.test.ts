import fc from "fast-check";
import type { ErrorCode } from "../../../functions/src/core/errors";
import { errorTable } from "../../../functions/src/core/errors";
import type { Answer } from "./api";
import { codeRefusal, erasureWords, normaliseCode, sendRefusalWords, TRY_AGAIN, waitFor } from "./messages";

/** What the service answers for `code`, as the catalogue has it (its message, and its reason where it has one). */
function refusal(code: ErrorCode, retryAfter: number | null = null): Answer {
  const row = errorTable[code];
  const reason = "reason" in row ? { reason: row.reason } : {};
  return { status: row.status, body: { error: row.message, ...reason }, retryAfter };
}

describe("normaliseCode", () => {
  it("takes six digits with the spaces people paste or type in them", () => {
    expect(normaliseCode("406525")).toBe("406525");
    expect(normaliseCode(" 406 525 ")).toBe("406525");
    expect(normaliseCode("406\t525\n")).toBe("406525");
  });

  it.each(["40652", "4065257", "４０６５２５", "406-525", "abcdef", ""])("sends nothing for %j", (typed) => {
    expect(normaliseCode(typed)).toBeNull();
  });

  it("answers six digits or nothing, whatever is typed", () => {
    fc.assert(
      fc.property(fc.string(), (typed) =>
        expect([null, expect.stringMatching(/^[0-9]{6}$/)]).toContainEqual(normaliseCode(typed)),
      ),
    );
  });
});

describe("waitFor", () => {
  it.each([
    [1, "in 1 second"],
    [45, "in 45 seconds"],
    [90, "in 90 seconds"],
    [91, "in 2 minutes"],
    [3000, "in 50 minutes"],
    [5401, "in 2 hours"],
    [86400, "in 24 hours"],
  ])("says %i seconds as %j", (seconds, said) => {
    expect(waitFor(seconds)).toBe(said);
  });
});

describe("sendRefusalWords", () => {
  it("says how long to wait, from Retry-After, for each limit", () => {
    expect(sendRefusalWords(refusal("email_code_resend_too_soon", 42)).alert).toBe(
      "We've just sent a code to this address. You can ask for another in 42 seconds.",
    );
    expect(sendRefusalWords(refusal("email_code_hourly_limit", 1500)).alert).toBe(
      "You've asked for several codes in the last hour. You can ask for another in 25 minutes.",
    );
    expect(sendRefusalWords(refusal("email_code_address_locked", 20 * 3600)).alert).toMatch(
      /locked for now\. You can ask for a new code in 20 hours\.$/,
    );
    expect(sendRefusalWords(refusal("email_code_client_budget", 1800)).alert).toBe(
      "Many codes have been asked for from your network lately. You can ask for another in 30 minutes.",
    );
    expect(sendRefusalWords(refusal("email_code_request_budget", 4200)).alert).toBe(
      "Many requests for access have come from your network lately. You can ask again in 70 minutes.",
    );
    expect(sendRefusalWords(refusal("email_code_service_budget", 30)).alert).toBe(
      "A lot of people are asking for codes right now. Please try again in 30 seconds.",
    );
    expect(sendRefusalWords(refusal("email_code_domain_budget", 1200)).alert).toBe(
      "Many codes have been asked for addresses like yours lately. You can ask for another in 20 minutes.",
    );
  });

  it("tells refusals apart by their reason, never by their words", () => {
    const reworded = refusal("email_code_resend_too_soon", 30);
    reworded.body.error = "Slow down a little";
    expect(sendRefusalWords(reworded).alert).toMatch(/^We've just sent a code to this address/);
    const unexplained = refusal("email_code_resend_too_soon", 30);
    delete unexplained.body.reason;
    expect(sendRefusalWords(unexplained).alert).toMatch(/^You've asked for several codes/);
  });

  it("puts a malformed address on the field, and the rest in a notice", () => {
    expect(sendRefusalWords(refusal("email_invalid")).field).toMatch(/like name@example\.com/);
    expect(sendRefusalWords(refusal("email_not_configured")).alert).toMatch(/isn't available right now/);
    expect(sendRefusalWords({ status: 500, body: { error: "Internal error" }, retryAfter: null }).alert).toBe(
      TRY_AGAIN,
    );
  });
});

describe("codeRefusal", () => {
  it.each([
    ["email_code_invalid", "That code isn't right. Check the email and try again.", false],
    ["email_code_expired", "That code has expired. Ask for a new one below.", true],
    [
      "email_code_exhausted",
      "That code was entered wrongly too many times, so it no longer works. Ask for a new one below.",
      true,
    ],
  ] as const)("says plainly why %s", (code, field, spent) => {
    expect(codeRefusal(refusal(code))).toEqual({ field, spent });
  });

  it("leaves other statuses to the page", () => {
    expect(codeRefusal(refusal("signin_pending"))).toBeNull();
    expect(codeRefusal(refusal("signin_failed"))).toBeNull();
  });
});

describe("erasureWords", () => {
  it("says an erasure is still finishing only when the service says it is not finished", () => {
    expect(erasureWords({ erased: true, finished: true, providerSyncErrors: [] })).toBe("");
    expect(erasureWords({ erased: true })).toBe("");
    expect(erasureWords({ erased: true, finished: false, providerSyncErrors: [{ uid: "u" }] })).toMatch(
      /didn't finish yet: the service keeps trying by itself/,
    );
  });
});
