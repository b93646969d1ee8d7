import { passkeyRuleVerdict } from "./passkey-rule";

describe("doctor's word on the passkey rule", () => {
  it("fails a real project while the rule does not hold administrators, and passes it once it does", () => {
    expect(passkeyRuleVerdict([], false).ok).toBe(false);
    expect(passkeyRuleVerdict([], false).advice).toContain("passkey-rule set admin");
    expect(passkeyRuleVerdict(["admin"], false)).toEqual({ ok: true, advice: null });
  });

  it("passes the local stack either way, saying how to turn the rule on", () => {
    expect(passkeyRuleVerdict([], true)).toMatchObject({ ok: true, advice: expect.stringContaining("--passkey-rule") });
    expect(passkeyRuleVerdict(["admin"], true)).toEqual({ ok: true, advice: null });
  });
});
