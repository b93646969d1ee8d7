import { refusalOf } from "./mailer";

describe("refusalOf: what a failed SMTP send says", () => {
  it.each([
    [{ responseCode: 550 }, "rejected", true],
    [{ responseCode: 554 }, "rejected", true],
    [{ responseCode: 421 }, "deferred", false],
    [{ responseCode: 451 }, "deferred", false],
    [{ code: "ETIMEDOUT" }, "timeout", false],
    [{ code: "ECONNECTION" }, "unreachable", false],
    [{ code: "ESOCKET" }, "unreachable", false],
    [{ code: "ECONNREFUSED" }, "unreachable", false],
    [{ code: "EAUTH" }, "failed", false],
    [new Error("anything else"), "failed", false],
  ])("%j is %s, permanent %s", (err, kind, permanent) => {
    const refusal = refusalOf(err);
    expect([refusal.kind, refusal.permanent]).toEqual([kind, permanent]);
  });

  it("keeps the server's words out of its message (they can quote an address)", () => {
    const refusal = refusalOf({ responseCode: 550, response: "550 5.1.1 <victim@example.test>: no such user" });
    expect(refusal.message).not.toContain("victim");
  });
});
