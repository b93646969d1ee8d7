import fc from "fast-check";
import { SECOND } from "../../clock";
import { authorizeStep, type AuthorizeRequest } from "./authorize";

const now = new Date("2026-05-01T12:00:00Z");
const prompt = (over: Partial<AuthorizeRequest["prompt"]> = {}) => ({
  none: false,
  login: false,
  selectAccount: false,
  ...over,
});
const session = (ageSeconds: number, approved = true) => ({
  authTime: new Date(now.getTime() - ageSeconds * SECOND),
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
    expect(authorizeStep({ prompt: p, maxAgeSeconds }, s, now)).toMatchObject(expected);
  });

  it("hands back the session it issues a code for", () => {
    const s = { ...session(0), personId: "p1" };
    expect(authorizeStep({ prompt: prompt(), maxAgeSeconds: null }, s, now)).toEqual({ kind: "code", session: s });
  });

  const requests = fc.record({
    prompt: fc.oneof(
      fc.constant(prompt({ none: true })),
      fc.record({ none: fc.constant(false), login: fc.boolean(), selectAccount: fc.boolean() }),
    ),
    maxAgeSeconds: fc.option(fc.nat(10 * 24 * 3600)),
  });
  const sessions = fc.option(fc.record({ ageSeconds: fc.nat(30 * 24 * 3600), approved: fc.boolean() }));

  it("never shows a page for prompt=none, and never issues a code without a recent enough sign-in", () => {
    fc.assert(
      fc.property(requests, sessions, (request, s) => {
        const step = authorizeStep(request, s === null ? null : session(s.ageSeconds, s.approved), now);
        if (request.prompt.none) expect(step.kind).not.toBe("sign-in");
        if (step.kind === "code") {
          expect(s?.approved).toBe(true);
          expect(request.prompt.login || request.prompt.selectAccount).toBe(false);
          if (request.maxAgeSeconds !== null) expect(s?.ageSeconds).toBeLessThanOrEqual(request.maxAgeSeconds);
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
