import fc from "fast-check";
import { SECOND } from "../../clock";
import { authorizeStep, type AuthorizeRequest } from "./authorize";

const now = new Date("2026-05-01T12:00:00Z");
const prompt = (over: Partial<AuthorizeRequest["prompt"]> = {}) => ({
  none: false,
  login: false,
  selectAccount: false,
  consent: false,
  ...over,
});
const session = (ageSeconds: number, approved = true, amr: string[] = ["otp"]) => ({
  authTime: new Date(now.getTime() - ageSeconds * SECOND),
  amr,
  approved,
});

describe("authorizeStep", () => {
  it.each([
    ["no session", prompt(), null, null, { kind: "sign-in", prompt: null }],
    ["no session, prompt=none", prompt({ none: true }), null, null, { kind: "error", error: "login_required" }],
    ["no session, prompt=login", prompt({ login: true }), null, null, { kind: "sign-in", prompt: "login" }],
    ["a session", prompt(), session(3600), null, { kind: "code" }],
    ["a session, prompt=login", prompt({ login: true }), session(0), null, { kind: "sign-in", prompt: "login" }],
    [
      "a session, prompt=select_account",
      prompt({ selectAccount: true }),
      session(0),
      null,
      { kind: "sign-in", prompt: "select_account" },
    ],
    ["a session max_age old", prompt(), session(300), 300, { kind: "code" }],
    ["a session older than max_age", prompt(), session(301), 300, { kind: "sign-in", prompt: "login" }],
    [
      "a session older than max_age, prompt=none",
      prompt({ none: true }),
      session(301),
      300,
      { kind: "error", error: "login_required" },
    ],
    [
      "a session older than max_age, prompt=select_account",
      prompt({ selectAccount: true }),
      session(301),
      300,
      { kind: "sign-in", prompt: "login select_account" },
    ],
    [
      "a session of a person not approved",
      prompt(),
      session(0, false),
      null,
      { kind: "error", error: "access_denied" },
    ],
    [
      "a session of a person not approved, prompt=none",
      prompt({ none: true }),
      session(0, false),
      null,
      { kind: "error", error: "access_denied" },
    ],
  ] as const)("%s", (_name, p, s, maxAgeSeconds, expected) => {
    expect(authorizeStep({ prompt: p, maxAgeSeconds, acr: null }, s, now)).toMatchObject({
      ...expected,
      ...(expected.kind === "sign-in" ? { passkey: false } : {}),
    });
  });

  it("hands back the session it issues a code for", () => {
    const s = { ...session(0), personId: "p1" };
    expect(authorizeStep({ prompt: prompt(), maxAgeSeconds: null, acr: null }, s, now)).toEqual({
      kind: "code",
      session: s,
    });
  });

  describe("with a phishing-resistant sign-in asked for (acr phr)", () => {
    const phr = (p = prompt(), maxAgeSeconds: number | null = null) => ({ prompt: p, maxAgeSeconds, acr: "phr" });

    it.each([
      ["a passkey kept in hardware", ["hwk", "user"]],
      ["a synced passkey", ["swk", "user"]],
    ])("issues a code for a session begun with %s", (_what, amr) => {
      expect(authorizeStep(phr(), session(3600, true, amr), now)).toMatchObject({ kind: "code" });
    });

    it.each([
      ["an email code", ["otp"]],
      ["a bridge", ["fed"]],
      ["nothing it can say", []],
    ])("sends a session begun with %s to step up with a passkey", (_what, amr) => {
      expect(authorizeStep(phr(), session(0, true, amr), now)).toEqual({
        kind: "sign-in",
        prompt: null,
        passkey: true,
      });
    });

    it("asks a person with no session for a passkey sign-in, afresh with prompt=login", () => {
      expect(authorizeStep(phr(), null, now)).toEqual({ kind: "sign-in", prompt: null, passkey: true });
      expect(authorizeStep(phr(prompt({ login: true })), session(0, true, ["hwk", "user"]), now)).toEqual({
        kind: "sign-in",
        prompt: "login",
        passkey: true,
      });
    });

    it("tells the client login_required for prompt=none when the session does not meet it", () => {
      expect(authorizeStep(phr(prompt({ none: true })), session(0), now)).toEqual({
        kind: "error",
        error: "login_required",
      });
    });
  });

  const requests = fc.record({
    prompt: fc.oneof(
      fc.constant(prompt({ none: true })),
      fc.record({
        none: fc.constant(false),
        login: fc.boolean(),
        selectAccount: fc.boolean(),
        consent: fc.boolean(),
      }),
    ),
    maxAgeSeconds: fc.option(fc.nat(10 * 24 * 3600)),
    acr: fc.constantFrom(null, "phr"),
  });
  const sessions = fc.option(
    fc.record({
      ageSeconds: fc.nat(30 * 24 * 3600),
      approved: fc.boolean(),
      amr: fc.subarray(["otp", "fed", "hwk", "swk", "user", "pwd"]),
    }),
  );

  it("never shows a page for prompt=none, and never issues a code without a recent and strong enough sign-in", () => {
    fc.assert(
      fc.property(requests, sessions, (request, s) => {
        const step = authorizeStep(request, s === null ? null : session(s.ageSeconds, s.approved, s.amr), now);
        if (request.prompt.none) expect(step.kind).not.toBe("sign-in");
        if (step.kind === "code") {
          expect(s?.approved).toBe(true);
          expect(request.prompt.login || request.prompt.selectAccount).toBe(false);
          if (request.maxAgeSeconds !== null) expect(s?.ageSeconds).toBeLessThanOrEqual(request.maxAgeSeconds);
          // A code for a phishing-resistant request only ever goes to a session begun with a passkey.
          if (request.acr !== null) expect(s?.amr.some((m) => m === "hwk" || m === "swk")).toBe(true);
        }
        // A sign-in held but too old is never reused: the identity host is asked for a fresh one.
        if (
          step.kind === "sign-in" &&
          s !== null &&
          request.maxAgeSeconds !== null &&
          s.ageSeconds > request.maxAgeSeconds
        )
          expect(step.prompt).toMatch(/^login/);
      }),
      { numRuns: 500 },
    );
  });
});
