import fc from "fast-check";
import { DAY_MS, instant, type LocalTime, weekday } from "./local-time";
import { occurrences, parseRule } from "./recurrence";

const WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];

const ruleText = fc
  .record({
    freq: fc.constantFrom("DAILY", "WEEKLY", "MONTHLY", "YEARLY"),
    interval: fc.integer({ min: 1, max: 3 }),
    count: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
    byDay: fc.option(
      fc.uniqueArray(fc.tuple(fc.constantFrom(0, 0, 1, 2, -1), fc.integer({ min: 0, max: 6 })), {
        minLength: 1,
        maxLength: 3,
      }),
      { nil: undefined },
    ),
    byMonthDay: fc.option(fc.uniqueArray(fc.constantFrom(1, 15, 28, 30, 31, -1), { minLength: 1, maxLength: 2 }), {
      nil: undefined,
    }),
    byMonth: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 3 }), {
      nil: undefined,
    }),
    bySetPos: fc.option(fc.constantFrom(1, -1, 2), { nil: undefined }),
  })
  .map((r) =>
    [
      `FREQ=${r.freq}`,
      `INTERVAL=${r.interval}`,
      r.count !== undefined ? `COUNT=${r.count}` : "",
      r.byDay ? `BYDAY=${r.byDay.map(([n, d]) => `${n === 0 ? "" : n}${WEEKDAYS[d]}`).join(",")}` : "",
      r.byMonthDay ? `BYMONTHDAY=${r.byMonthDay.join(",")}` : "",
      r.byMonth ? `BYMONTH=${r.byMonth.join(",")}` : "",
      r.bySetPos !== undefined ? `BYSETPOS=${r.bySetPos}` : "",
    ]
      .filter((p) => p !== "")
      .join(";"),
  );

const startTime = fc
  .record({
    y: fc.integer({ min: 2000, max: 2030 }),
    m: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 28 }),
    hh: fc.integer({ min: 0, max: 23 }),
  })
  .map((t): LocalTime => ({ ...t, mm: 30, ss: 0, zone: null, utc: true, dateOnly: false }));

const from = (start: LocalTime, aheadDays: number) => new Date(instant(start).getTime() + aheadDays * DAY_MS);
const all = (start: LocalTime, rule: string, a: Date, b: Date) =>
  [...occurrences(start, parseRule(rule), a, b)].map((t) => instant(t).getTime());

describe("occurrences", () => {
  it("finds the same occurrences in a window whether it skips ahead or walks from the first one", () => {
    fc.assert(
      fc.property(
        startTime,
        ruleText.filter((r) => !r.includes("COUNT")),
        fc.integer({ min: 0, max: 1500 }),
        fc.integer({ min: 1, max: 62 }),
        (start, rule, ahead, days) => {
          const a = from(start, ahead);
          const b = new Date(a.getTime() + days * DAY_MS);
          const skipping = all(start, rule, a, b).filter((t) => t >= a.getTime());
          const walking = all(start, rule, instant(start), b).filter((t) => t >= a.getTime());
          expect(skipping).toEqual(walking);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("yields strictly increasing times, none before the first, at most COUNT, each on a named weekday and month", () => {
    fc.assert(
      fc.property(startTime, ruleText, (start, rule) => {
        const parsed = parseRule(rule);
        const times = all(start, rule, instant(start), from(start, 3 * 366));
        times.forEach((t, i) =>
          expect(t).toBeGreaterThan(i === 0 ? instant(start).getTime() - 1 : (times[i - 1] as number)),
        );
        if (parsed.count !== null) expect(times.length).toBeLessThanOrEqual(parsed.count);
        for (const t of times) {
          const d = new Date(t);
          expect(d.getUTCHours()).toBe(start.hh);
          if (parsed.byMonth !== null) expect(parsed.byMonth).toContain(d.getUTCMonth() + 1);
          if (parsed.byDay !== null)
            expect(parsed.byDay.map((x) => x.day)).toContain(
              weekday(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()),
            );
        }
      }),
      { numRuns: 300 },
    );
  });
});
