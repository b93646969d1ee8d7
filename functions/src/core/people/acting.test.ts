import {
  enrolmentEnds,
  ensureOwnChange,
  ensureStepUp,
  judgeOwnWaysIn,
  liftedUntil,
  mayAddPasskey,
  standingOf,
  STEP_UP_MS,
  type AdminActing,
} from "./acting";
import { AppError } from "../errors";
import type { PasskeyRule } from "../model/passkey-rule";
import type { Person } from "../model/person";

const now = new Date("2026-12-01T12:00:00Z");
const at = (ms: number) => new Date(now.getTime() + ms);
const admin = { id: "ada", role: "admin" } as const;
const member = { id: "bob", role: "user" } as const;
const on: PasskeyRule = { roles: ["admin"], lifts: {} };
const off: PasskeyRule = { roles: [], lifts: {} };
const lifted = (until: Date): PasskeyRule => ({ roles: ["admin"], lifts: { ada: { until, at: now, by: "op" } } });

const refusal = (work: () => void) => {
  try {
    work();
    return null;
  } catch (err) {
    return err instanceof AppError ? err.code : err;
  }
};

describe("standingOf: the passkey rule's one decision", () => {
  it("holds an administrator signed in any way but a passkey, however fresh", () => {
    for (const amr of [["otp"], ["fed"], ["pwd"], ["sms"], ["rec"], [], ["user"]])
      expect(standingOf(on, admin, amr, now)).toBeNull();
  });

  it("lets an administrator act from a passkey sign-in, a device's or a synced one", () => {
    expect(standingOf(on, admin, ["hwk", "user"], now)).toBe("passkey");
    expect(standingOf(on, admin, ["swk", "user"], now)).toBe("passkey");
  });

  it("leaves alone a role it does not name, and everyone when it is off", () => {
    expect(standingOf(on, member, ["otp"], now)).toBe("unruled");
    expect(standingOf(off, admin, ["otp"], now)).toBe("unruled");
  });

  it("is lifted for one person until the second the operator named, and not after", () => {
    const rule = lifted(at(10 * 60_000));
    expect(standingOf(rule, admin, ["otp"], at(10 * 60_000 - 1))).toBe("lifted");
    expect(standingOf(rule, admin, ["otp"], at(10 * 60_000))).toBeNull();
    expect(liftedUntil(rule, "ada", now)).toEqual(at(10 * 60_000));
    expect(standingOf(rule, { id: "cy", role: "admin" }, ["otp"], now)).toBeNull();
  });

  it("prefers the passkey to a lift: an act from a passkey sign-in is recorded as one", () => {
    expect(standingOf(lifted(at(60_000)), admin, ["hwk", "user"], now)).toBe("passkey");
  });
});

describe("ensureStepUp for an administrator", () => {
  const acting = (standing: AdminActing["standing"], ago: number, amr: string[] = ["hwk", "user"]): AdminActing => ({
    admin: { id: "ada", role: "admin" } as Person,
    signedInAt: at(-ago),
    amr,
    from: "Firefox on Linux",
    standing,
  });
  const clock = { clock: { now: () => now } };

  it("asks for a passkey again, never any sign-in, where the rule holds them", () => {
    expect(refusal(() => ensureStepUp(clock, acting("passkey", STEP_UP_MS + 1)))).toBe("passkey_required");
    expect(refusal(() => ensureStepUp(clock, acting("passkey", STEP_UP_MS)))).toBeNull();
  });

  it("asks for any fresh sign-in where the rule does not hold them, or is lifted", () => {
    expect(refusal(() => ensureStepUp(clock, acting("unruled", STEP_UP_MS + 1, ["otp"])))).toBe("step_up_required");
    expect(refusal(() => ensureStepUp(clock, acting("lifted", STEP_UP_MS + 1, ["otp"])))).toBe("step_up_required");
    expect(refusal(() => ensureStepUp(clock, acting("lifted", 0, ["otp"])))).toBeNull();
  });

  it("is never judged before the rule was read", () => {
    expect(refusal(() => ensureStepUp(clock, acting(undefined, 0)))).toBeInstanceOf(Error);
  });
});

describe("mayAddPasskey: who adds a passkey, and after which sign-in", () => {
  const DAY = 24 * 3600_000;
  const made = (ago: number) => ({ id: "ada", role: "admin" as const, createdAt: at(-ago) });

  it("lets an administrator add their first after an email code for 7 days from when they were made, to the millisecond", () => {
    expect(mayAddPasskey(on, made(7 * DAY - 1), ["otp"], 0, now)).toBe(true);
    expect(mayAddPasskey(on, made(7 * DAY), ["otp"], 0, now)).toBe(false);
    expect(enrolmentEnds(made(0), now)).toEqual(at(7 * DAY));
  });

  it("counts the 7 days from a promotion, or the operator's clearing, over when they were made", () => {
    const promoted = { ...made(400 * DAY), enrolmentFrom: at(-DAY) };
    expect(mayAddPasskey(on, promoted, ["otp"], 0, now)).toBe(true);
  });

  it("takes no email code once they hold one, within the 7 days or not", () => {
    expect(mayAddPasskey(on, made(0), ["otp"], 1, now)).toBe(false);
    expect(mayAddPasskey(on, made(0), ["fed"], 1, now)).toBe(false);
  });

  it("takes a passkey's sign-in, a recovery code's, or any under a lift, whatever they hold", () => {
    expect(mayAddPasskey(on, made(400 * DAY), ["hwk", "user"], 3, now)).toBe(true);
    expect(mayAddPasskey(on, made(400 * DAY), ["rec"], 3, now)).toBe(true);
    expect(mayAddPasskey(lifted(at(60_000)), made(400 * DAY), ["otp"], 3, now)).toBe(true);
  });

  it("asks nothing of a member, or of anyone with the rule off", () => {
    expect(mayAddPasskey(on, { ...made(400 * DAY), role: "user" }, ["otp"], 3, now)).toBe(true);
    expect(mayAddPasskey(off, made(400 * DAY), ["otp"], 3, now)).toBe(true);
  });
});

describe("judgeOwnWaysIn: a person's own change to their ways in", () => {
  const clock = { clock: { now: () => now } };
  const judged = (rule: PasskeyRule, person: Pick<Person, "id" | "role">, amr: string[], ago = 0) =>
    refusal(() => judgeOwnWaysIn(clock, rule, person, { amr, signedInAt: at(-ago) }));

  it("asks an administrator under the rule for a passkey sign-in, however fresh the email code", () => {
    for (const amr of [["otp"], ["fed"], ["pwd"], ["rec"], []]) expect(judged(on, admin, amr)).toBe("passkey_required");
    expect(judged(on, admin, ["hwk", "user"])).toBeNull();
  });

  it("asks them for the passkey again, not any sign-in, once it is older than the step-up window", () => {
    expect(judged(on, admin, ["swk", "user"], STEP_UP_MS)).toBeNull();
    expect(judged(on, admin, ["swk", "user"], STEP_UP_MS + 1)).toBe("passkey_required");
  });

  it("takes any fresh sign-in under the operator's lift, from a member, and with the rule off", () => {
    expect(judged(lifted(at(60_000)), admin, ["otp"])).toBeNull();
    expect(judged(lifted(at(60_000)), admin, ["otp"], STEP_UP_MS + 1)).toBe("step_up_required");
    expect(judged(on, member, ["otp"])).toBeNull();
    expect(judged(off, admin, ["otp"])).toBeNull();
    expect(judged(on, member, ["otp"], STEP_UP_MS + 1)).toBe("step_up_required");
  });

  it("counts a session without its methods as one the rule refuses", () => {
    expect(refusal(() => judgeOwnWaysIn(clock, on, admin, { signedInAt: now }))).toBe("passkey_required");
  });
});

describe("ensureOwnChange: what a person may change of themselves", () => {
  const ada = { emails: ["ada@example.test", "ada@home.test"] } as Person;
  const as = (emails: string[]) => ({ ...ada, emails }) as Person;

  it("lets them rename themselves, and reorder or remove their addresses while one is left", () => {
    expect(refusal(() => ensureOwnChange(ada, ada, ["name"], []))).toBeNull();
    expect(refusal(() => ensureOwnChange(ada, as(["ada@home.test", "ada@example.test"]), ["emails"], []))).toBeNull();
    expect(refusal(() => ensureOwnChange(ada, as(["ada@home.test"]), ["emails"], []))).toBeNull();
  });

  it("leaves status, role, access, numbers and accounts to an administrator", () => {
    for (const field of ["status", "role", "projects", "groups", "phones", "uids", "note"])
      expect(refusal(() => ensureOwnChange(ada, ada, ["name", field], []))).toBe("forbidden");
  });

  it("adds an address only with the proof that it is theirs", () => {
    const added = as([...ada.emails, "ada@new.test"]);
    expect(refusal(() => ensureOwnChange(ada, added, ["emails"], []))).toBe("forbidden");
    expect(refusal(() => ensureOwnChange(ada, added, ["emails"], ["ada@other.test"]))).toBe("forbidden");
    expect(refusal(() => ensureOwnChange(ada, added, ["emails"], ["ada@new.test"]))).toBeNull();
  });

  it("keeps their last address, but lets one who never had an address rename themselves", () => {
    expect(refusal(() => ensureOwnChange(ada, as([]), ["emails"], []))).toBe("last_address");
    expect(refusal(() => ensureOwnChange(as([]), as([]), ["name"], []))).toBeNull();
  });
});
