import { endedWith, openedByKey, takesRuledRole } from "./promotion-keys";
import type { PasskeyRule } from "../model/passkey-rule";

const on: PasskeyRule = { roles: ["admin"], lifts: {} };
const off: PasskeyRule = { roles: [], lifts: {} };
const admin = { role: "admin" } as const;
const member = { role: "user" } as const;

describe("takesRuledRole: when a person's keys go", () => {
  it("is a promotion into a role the rule names", () => {
    expect(takesRuledRole(on, member, admin)).toBe(true);
  });

  it("is nothing else: no rule, a role it held before, a demotion", () => {
    expect(takesRuledRole(off, member, admin)).toBe(false);
    expect(takesRuledRole({ roles: ["user", "admin"], lifts: {} }, member, admin)).toBe(false);
    expect(takesRuledRole(on, admin, admin)).toBe(false);
    expect(takesRuledRole(on, admin, member)).toBe(false);
  });
});

describe("openedByKey: the sessions that end with the keys", () => {
  it("is a passkey's sign-in, a device's or a synced one, or a recovery code's", () => {
    expect(openedByKey({ amr: ["hwk", "user"] })).toBe(true);
    expect(openedByKey({ amr: ["swk", "user"] })).toBe(true);
    expect(openedByKey({ amr: ["rec"] })).toBe(true);
  });

  it("is not an email code's, a provider's or a password's: those keep a member's powers", () => {
    for (const amr of [["otp"], ["fed"], ["pwd"], ["sms"], []]) expect(openedByKey({ amr })).toBe(false);
  });
});

describe("endedWith", () => {
  const now = new Date("2026-12-01T12:00:00Z");
  const at = (ms: number) => new Date(now.getTime() + ms);

  it("adds the sessions until they would have expired, and drops those already past it", () => {
    const person = { endedSessions: { old: at(-1), kept: at(1) } };
    expect(endedWith(person, [{ sessionId: "new", expiresAt: at(60_000) }], now)).toEqual({
      kept: at(1),
      new: at(60_000),
    });
    expect(endedWith({}, [{ sessionId: "new", expiresAt: at(5) }], now)).toEqual({ new: at(5) });
  });
});
