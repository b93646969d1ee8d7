import { DAY, HOUR, MINUTE } from "../../clock";
import { checkErasures, ERASURE_OVERDUE_MS, spanText } from "./erasures";

const now = new Date("2026-11-28T12:00:00.000Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
const erasure = (personId: string, begun: number, lastTried: number | null = null, uids = ["u1"]) => ({
  personId,
  uids,
  startedAt: ago(begun),
  lastTriedAt: lastTried === null ? null : ago(lastTried),
});

describe("the doctor's look at unfinished erasures", () => {
  it("passes when every erasure is finished", () => {
    expect(checkErasures([], now)).toEqual({
      name: "erasures",
      ok: true,
      detail: "every erasure is finished",
      required: false,
    });
  });

  it("warns of one unfinished for less than a day, saying how long, and that it is retried", () => {
    const check = checkErasures([erasure("p_young", 3 * HOUR + 5 * MINUTE, 20 * MINUTE, ["a", "b"])], now);
    expect(check).toMatchObject({ ok: false, required: false });
    expect(check.detail).toBe(
      "1 unfinished, 2 provider account(s) left; the oldest begun 3 h 5 min ago (p_young, last tried 20 min ago); " +
        "each is retried by itself until done",
    );
  });

  it("fails once one is a day old, naming the oldest and how long, one second either side", () => {
    const justUnder = checkErasures([erasure("p_a", ERASURE_OVERDUE_MS - 1000)], now);
    expect(justUnder.required).toBe(false);
    const atADay = checkErasures([erasure("p_a", ERASURE_OVERDUE_MS)], now);
    expect(atADay).toMatchObject({ ok: false, required: true });
    const many = checkErasures(
      [erasure("p_new", 10 * MINUTE), erasure("p_old", 12 * DAY + 4 * HOUR, 2 * HOUR), erasure("p_mid", 2 * DAY)],
      now,
    );
    expect(many.required).toBe(true);
    expect(many.detail).toMatch(
      /^3 unfinished, 3 provider account\(s\) left; the oldest begun 12 d 4 h ago \(p_old, last tried 2 h 0 min ago\); 2 older than a day/,
    );
    expect(many.detail).toContain("people erase <id>");
  });

  it("says how long in the unit an operator reads", () => {
    expect([40_000, 12 * MINUTE, 3 * HOUR + 5 * MINUTE, 12 * DAY + 4 * HOUR].map(spanText)).toEqual([
      "40 s",
      "12 min",
      "3 h 5 min",
      "12 d 4 h",
    ]);
  });
});
