import fc from "fast-check";
import { DAY, HOUR, MINUTE, SECOND } from "../../clock";
import {
  afterFailure,
  afterSend,
  afterSuccess,
  ATTEMPTS_PER_CODE,
  combine,
  decideCheck,
  FAILURE_CEILING,
  forgetAfter,
  LOCKOUT_STEPS_MS,
  noticeDue,
  isLocked,
  NO_LIMITS,
  nextSendAt,
  sendRefusal,
  sixDigits,
  type CodeState,
  type LimitState,
} from "./rules";
import { admits, sendBudgets, USED_ALLOWANCE_FACTOR, type SendBudget } from "./budget-rules";

const T0 = new Date("2026-03-01T12:00:00Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

describe("sixDigits", () => {
  it("draws from 0–999999 and keeps leading zeros", () => {
    const calls: Array<[number, number]> = [];
    const code = sixDigits({ int: (min, max) => (calls.push([min, max]), 42) });
    expect(code).toBe("000042");
    expect(calls).toEqual([[0, 1_000_000]]);
  });

  it("is always six digits", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999 }), (n) =>
        expect(sixDigits({ int: () => n })).toMatch(/^[0-9]{6}$/),
      ),
    );
  });
});

describe("sendRefusal", () => {
  const sentAt = (...offsets: number[]): LimitState => ({ ...NO_LIMITS, sends: offsets.map(at) });

  it("refuses a resend inside 60 seconds and allows one at 60 seconds", () => {
    expect(sendRefusal(sentAt(0), at(59 * SECOND + 999))).toBe("email_code_resend_too_soon");
    expect(sendRefusal(sentAt(0), at(60 * SECOND))).toBeNull();
  });

  it("refuses the sixth send inside the hour and allows it once the first is an hour old", () => {
    const five = sentAt(0, 12 * MINUTE, 24 * MINUTE, 36 * MINUTE, 48 * MINUTE);
    expect(sendRefusal(five, at(HOUR - 1))).toBe("email_code_hourly_limit");
    expect(sendRefusal(five, at(HOUR))).toBeNull();
  });

  it("forgets sends older than an hour when it records one", () => {
    expect(afterSend(sentAt(0, 30 * MINUTE), at(HOUR)).sends).toEqual([at(30 * MINUTE), at(HOUR)]);
  });

  it("refuses every send while the address is locked", () => {
    expect(sendRefusal({ ...NO_LIMITS, lockedUntil: at(DAY) }, at(DAY - 1))).toBe("email_code_address_locked");
    expect(sendRefusal({ ...NO_LIMITS, lockedUntil: at(DAY) }, at(DAY))).toBeNull();
  });
});

describe("nextSendAt", () => {
  const sentAt = (...offsets: number[]): LimitState => ({ ...NO_LIMITS, sends: offsets.map(at) });

  it("names the end of the minute after a send", () => {
    expect(nextSendAt(sentAt(0), at(10 * SECOND))).toEqual(at(60 * SECOND));
  });

  it("names the moment the oldest of five sends leaves the hour", () => {
    const five = sentAt(0, 12 * MINUTE, 24 * MINUTE, 36 * MINUTE, 48 * MINUTE);
    expect(nextSendAt(five, at(50 * MINUTE))).toEqual(at(HOUR));
  });

  it("names the lockout's end", () => {
    expect(nextSendAt({ ...NO_LIMITS, lockedUntil: at(DAY) }, at(HOUR))).toEqual(at(DAY));
  });

  it("is now when nothing stands in the way", () => {
    expect(nextSendAt(NO_LIMITS, T0)).toEqual(T0);
  });

  it("is exactly the first moment a send is allowed again", () => {
    const offsets = fc.uniqueArray(fc.integer({ min: 0, max: HOUR }), { maxLength: 8 });
    fc.assert(
      fc.property(offsets, fc.integer({ min: 0, max: HOUR }), (sends, nowOffset) => {
        const state = sentAt(...sends.filter((s) => s <= nowOffset));
        const now = at(nowOffset);
        const next = nextSendAt(state, now);
        expect(sendRefusal(state, next)).toBeNull();
        if (next.getTime() > now.getTime()) expect(sendRefusal(state, new Date(next.getTime() - 1))).not.toBeNull();
      }),
    );
  });
});

describe("the failure ceiling", () => {
  /** A hundred failures in a row at `when`. */
  const hundred = (state: LimitState, when: Date) => {
    for (let i = 0; i < FAILURE_CEILING; i++) state = afterFailure(state, when);
    return state;
  };

  it("locks the address for 15 minutes at the hundredth failure in a row, and starts a fresh run", () => {
    let state: LimitState = NO_LIMITS;
    for (let i = 1; i < FAILURE_CEILING; i++) state = afterFailure(state, T0);
    expect(state.failures).toBe(99);
    expect(isLocked(state, T0)).toBe(false);
    state = afterFailure(state, T0);
    expect(state).toMatchObject({ failures: 0, lockedUntil: at(15 * MINUTE), lockouts: 1 });
    expect(isLocked(state, at(15 * MINUTE - 1))).toBe(true);
    expect(isLocked(state, at(15 * MINUTE))).toBe(false);
  });

  it("lengthens each lock that follows another without a right code: 15 min, 1 h, 4 h, then a day, never more", () => {
    let state: LimitState = NO_LIMITS;
    let now = 0;
    const lengths: number[] = [];
    for (let lock = 0; lock < 6; lock++) {
      state = hundred(state, at(now));
      lengths.push((state.lockedUntil as Date).getTime() - at(now).getTime());
      now = (state.lockedUntil as Date).getTime() - T0.getTime() + HOUR;
    }
    expect(lengths).toEqual([...LOCKOUT_STEPS_MS, DAY, DAY]);
    expect(LOCKOUT_STEPS_MS).toEqual([15 * MINUTE, HOUR, 4 * HOUR, DAY]);
  });

  it("starts the steps again after a right code", () => {
    const twice = hundred(hundred(NO_LIMITS, T0), at(HOUR));
    expect(twice.lockouts).toBe(2);
    const after = afterSuccess({ ...twice, failures: 7 });
    expect(after).toMatchObject({ failures: 0, lockouts: 0 });
    expect((hundred(after, at(DAY)).lockedUntil as Date).getTime() - at(DAY).getTime()).toBe(15 * MINUTE);
  });

  it("tells the owner of a lock at most once a day", () => {
    const locked = hundred(NO_LIMITS, T0);
    expect(noticeDue(NO_LIMITS, locked, T0)).toBe(true);
    const told = { ...locked, noticeAt: T0 };
    // No new lock, no notice; a new lock inside the day, none either; after it, one.
    expect(noticeDue(told, afterFailure(told, at(MINUTE)), at(MINUTE))).toBe(false);
    expect(noticeDue(told, hundred(told, at(HOUR)), at(HOUR))).toBe(false);
    expect(noticeDue(told, hundred(told, at(DAY)), at(DAY))).toBe(true);
  });

  it("keeps a record of locks a day past the last one, so the next lock knows its step", () => {
    const locked = hundred(NO_LIMITS, T0);
    expect(forgetAfter(locked)).toEqual(at(15 * MINUTE + DAY));
  });

  it("counts the records of one address under several keys as one", () => {
    const a: LimitState = { sends: [at(0)], failures: 3, lockedUntil: null, lockouts: 0, noticeAt: null };
    const b: LimitState = { sends: [at(0), at(MINUTE)], failures: 4, lockedUntil: at(DAY), lockouts: 2, noticeAt: T0 };
    expect(combine([a, b])).toEqual({
      sends: [at(0), at(MINUTE)],
      failures: 7,
      lockedUntil: at(DAY),
      lockouts: 2,
      noticeAt: T0,
    });
    expect(combine([])).toEqual(NO_LIMITS);
  });
});

describe("decideCheck", () => {
  const live = (attempts = 0, state: CodeState = "ready") => ({ state, attempts, expiresAt: at(10 * MINUTE) });
  const yes = () => true;
  const no = () => false;

  it("accepts the right code until 9:59.999 and calls it expired at 10:00, destroying it", () => {
    expect(decideCheck(live(), false, at(10 * MINUTE - 1), false, yes)).toEqual({
      result: "valid",
      code: "none",
      failed: false,
    });
    expect(decideCheck(live(), false, at(10 * MINUTE), false, yes)).toEqual({
      result: "expired",
      code: "expire",
      failed: false,
    });
  });

  it("spends an attempt on each wrong guess and destroys the code at the fifth", () => {
    expect(decideCheck(live(3), false, T0, false, no)).toEqual({ result: "invalid", code: "attempt", failed: true });
    expect(decideCheck(live(4), false, T0, false, no)).toEqual({ result: "exhausted", code: "exhaust", failed: true });
  });

  it("consumes only when asked to", () => {
    expect(decideCheck(live(), false, T0, true, yes).code).toBe("consume");
  });

  it.each([
    ["no code", null, false, "invalid"],
    ["an expired code", live(0, "expired"), false, "expired"],
    ["an exhausted code", live(0, "exhausted"), false, "exhausted"],
    ["a code with no attempt left", live(ATTEMPTS_PER_CODE), false, "exhausted"],
    ["a locked address", live(), true, "exhausted"],
  ] as const)("never compares against %s", (_label, code, locked, result) => {
    const compare = jest.fn(() => true);
    expect(decideCheck(code, locked, T0, true, compare).result).toBe(result);
    expect(compare).not.toHaveBeenCalled();
  });

  it("compares at most five guesses of any sequence against one code", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 40 }), (guesses) => {
        let code: { state: CodeState; attempts: number; expiresAt: Date } | null = live();
        let compared = 0;
        let successes = 0;
        for (const right of guesses) {
          const d = decideCheck(code, false, T0, true, () => (compared++, right));
          if (d.result === "valid") successes++;
          if (code && d.code === "attempt") code = { ...code, attempts: code.attempts + 1 };
          if (code && d.code === "exhaust") code = { ...code, state: "exhausted" };
          if (d.code === "consume") code = null;
        }
        expect(compared).toBeLessThanOrEqual(ATTEMPTS_PER_CODE);
        expect(successes).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe("send budgets", () => {
  const settings = {
    perClientPerHour: 20,
    perServicePerMinute: 600,
    perDomainPerHour: 200,
    domainBudgetExempt: ["mail.example"],
  };
  const origin = { client: "192.0.2.7", network: "192.0.2.0/24", edge: null };
  const budget = (scope: string) =>
    sendBudgets(origin, "ada@corp.example", settings, "signin").find((b) => b.scope === scope) as SendBudget;

  it("count a send against its client, its network, the recipient's domain and the service, in that order", () => {
    expect(
      sendBudgets(origin, "ada@corp.example", settings, "signin").map((b) => [b.scope, b.windowMs, b.limit]),
    ).toEqual([
      ["client", HOUR, 20],
      ["network", MINUTE, 30],
      ["domain", HOUR, 200],
      ["service", MINUTE, 600],
    ]);
    // An edge of its own when the caller did not come through the CDN; no domain budget for an exempt provider.
    expect(
      sendBudgets({ ...origin, edge: "198.51.100.0/24" }, "ada@mail.example", settings, "signin").map((b) => b.scope),
    ).toEqual(["client", "network", "edge", "service"]);
  });

  it("let a send through while fewer unused codes than the limit came before it in the window", () => {
    expect(admits(budget("client"), { sent: 19, used: 0 })).toBe(true);
    expect(admits(budget("client"), { sent: 20, used: 0 })).toBe(false);
  });

  it("stop counting a used code, and give room for one more unused code per use", () => {
    // 30 used and 20 still being typed: the office has room for 50 unused codes.
    expect(admits(budget("client"), { sent: 50, used: 30 })).toBe(true);
    expect(admits(budget("client"), { sent: 80, used: 30 })).toBe(false);
    expect(admits(budget("client"), { sent: 79, used: 30 })).toBe(true);
  });

  it("cap the room used codes earn at ten times the limit", () => {
    const cap = (USED_ALLOWANCE_FACTOR + 1) * 20;
    expect(admits(budget("client"), { sent: 10_000 + cap - 1, used: 10_000 })).toBe(true);
    expect(admits(budget("client"), { sent: 10_000 + cap, used: 10_000 })).toBe(false);
  });

  it("count every send against the service, used or not", () => {
    expect(admits(budget("service"), { sent: 599, used: 599 })).toBe(true);
    expect(admits(budget("service"), { sent: 600, used: 600 })).toBe(false);
  });

  it("hold a network to 5% and an edge to 25% of the service's minute, at least one", () => {
    expect(budget("network").limit).toBe(30);
    const tiny = { ...settings, perServicePerMinute: 3 };
    expect(sendBudgets({ ...origin, edge: "e" }, "a@b.example", tiny, "signin").map((b) => b.limit)).toEqual([
      20, 1, 1, 200, 3,
    ]);
  });
});
