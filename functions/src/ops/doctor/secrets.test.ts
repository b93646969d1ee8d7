import { rotationCheck, secretAnswer } from "./secrets";

describe("what Secret Manager's answer means", () => {
  it("decodes a value it was given", () => {
    const data = Buffer.from("p1:secret").toString("base64");
    expect(secretAnswer("CODE_PEPPER", "proj", 200, { payload: { data } })).toEqual({ value: "p1:secret" });
  });

  it.each([
    [404, /not set \(npx firebase functions:secrets:set CODE_PEPPER --project proj\)/],
    [403, /may not read it \(they need roles\/secretmanager\.secretAccessor on proj\): denied/],
    [500, /answered 500: denied/],
  ])("names the reason for %i, and what to do", (status, reason) => {
    const answer = secretAnswer("CODE_PEPPER", "proj", status, { error: { message: "denied\nmore" } });
    expect(answer).toEqual({ reason: expect.stringMatching(reason) });
  });
});

describe("a key in use near its rotation, as doctor says it", () => {
  it("warns with the day it is due and the command that rotates it, and that it is past due once it is", () => {
    expect(
      rotationCheck({
        secret: "SESSION_KEYS",
        kid: "session-20260115-a1b2c3",
        madeOn: "2026-01-15",
        dueOn: "2027-01-15",
        daysLeft: 12,
      }),
    ).toEqual({
      name: "SESSION_KEYS rotation",
      ok: false,
      required: false,
      detail:
        "session-20260115-a1b2c3, made on 2026-01-15, is due for rotation by 2027-01-15 (12 day(s) left): keys rotate-session-key",
    });
    expect(
      rotationCheck({
        secret: "CODE_PEPPER",
        kid: "pepper-20260115-0f",
        madeOn: "2026-01-15",
        dueOn: "2027-01-15",
        daysLeft: -2,
      }).detail,
    ).toBe("pepper-20260115-0f, made on 2026-01-15, is due for rotation since 2027-01-15: keys rotate-code-pepper");
  });
});
