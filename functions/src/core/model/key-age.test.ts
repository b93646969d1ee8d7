import { KEY_ROTATE_AFTER_DAYS, KEY_WARN_DAYS, keyDue, keyMadeOn, signingKid } from "./key-age";

const DAY = 24 * 3600 * 1000;
const made = new Date("2026-01-15T00:00:00Z");
const at = (days: number) => new Date(made.getTime() + days * DAY);

describe("the age of a key in use", () => {
  it("reads the day a key was made from the kid the rotation gave it", () => {
    expect(keyMadeOn("session-20260115-a1b2c3")).toEqual(made);
    expect(keyMadeOn("pepper-20260115-0f0f0f")).toEqual(made);
    expect(keyMadeOn("k1")).toBeNull();
    expect(keyMadeOn("session-20261345-a1b2c3")).toBeNull();
  });

  it("says nothing until the key is near its rotation, then how many days are left, then that it is past", () => {
    const kid = "session-20260115-a1b2c3";
    expect(keyDue("SESSION_KEYS", kid, at(KEY_ROTATE_AFTER_DAYS - KEY_WARN_DAYS - 1))).toBeNull();
    expect(keyDue("SESSION_KEYS", kid, at(KEY_ROTATE_AFTER_DAYS - KEY_WARN_DAYS))).toEqual({
      secret: "SESSION_KEYS",
      kid,
      madeOn: "2026-01-15",
      dueOn: "2027-01-15",
      daysLeft: KEY_WARN_DAYS,
    });
    expect(keyDue("CODE_PEPPER", "pepper-20260115-0f0f0f", at(KEY_ROTATE_AFTER_DAYS + 3))?.daysLeft).toBe(-3);
  });

  it("does not judge a key of unknown age", () => {
    expect(keyDue("SESSION_KEYS", "k1", at(10 * KEY_ROTATE_AFTER_DAYS))).toBeNull();
    expect(keyDue("SESSION_KEYS", null, at(0))).toBeNull();
  });

  it("finds the signing key's kid in SESSION_KEYS", () => {
    expect(signingKid(JSON.stringify([{ kid: "session-20260115-a1b2c3" }, { kid: "k0" }]))).toBe(
      "session-20260115-a1b2c3",
    );
    expect(signingKid("not json")).toBeNull();
    expect(signingKid("[]")).toBeNull();
  });
});
