import { DAY_MS, daysInMonth, instant, localTimeOf, naiveMs, type LocalTime, weekday } from "./local-time";

/**
 * Recurrence rules (RFC 5545 RRULE) at day granularity: DAILY, WEEKLY, MONTHLY and YEARLY with
 * INTERVAL, COUNT, UNTIL, BYDAY (with ordinals such as `2TU` or `-1FR`), BYMONTHDAY (negative
 * counts from the month's end), BYMONTH and BYSETPOS. Every occurrence keeps the first one's
 * wall-clock time. HOURLY and finer rules, BYYEARDAY, BYWEEKNO and WKST other than Monday are
 * not read: such an event shows its first occurrence only.
 */
export interface Rule {
  freq: "DAILY" | "WEEKLY" | "MONTHLY" | "YEARLY" | "OTHER";
  interval: number;
  count: number | null;
  until: Date | null;
  /** Weekdays (Sunday 0), each with its ordinal inside the month or year (0: every one). */
  byDay: { day: number; nth: number }[] | null;
  byMonthDay: number[] | null;
  byMonth: number[] | null;
  bySetPos: number[] | null;
}

interface Day {
  y: number;
  m: number;
  d: number;
}

/** Periods (days, weeks, months or years) a recurrence is followed through for one window. */
const MAX_PERIODS = 5000;
const WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];
const FREQUENCIES = ["DAILY", "WEEKLY", "MONTHLY", "YEARLY"] as const;

export function parseRule(value: string): Rule {
  const parts = Object.fromEntries(
    value
      .split(";")
      .map((p) => p.split("="))
      .filter((kv) => kv.length === 2)
      .map(([k, v]) => [(k as string).trim().toUpperCase(), (v as string).trim().toUpperCase()]),
  );
  const freq = FREQUENCIES.find((f) => f === parts.FREQ) ?? "OTHER";
  const interval = Math.max(1, Math.min(1000, Number.parseInt(parts.INTERVAL ?? "1", 10) || 1));
  const count = parts.COUNT !== undefined && /^\d+$/.test(parts.COUNT) ? Number(parts.COUNT) : null;
  const untilTime = parts.UNTIL !== undefined ? localTimeOf(parts.UNTIL, {}) : null;
  // A date-only UNTIL includes that whole day.
  const until =
    untilTime === null ? null : new Date(instant(untilTime).getTime() + (untilTime.dateOnly ? DAY_MS - 1 : 0));
  const byDay = list(parts.BYDAY, (v) => {
    const match = /^([+-]?\d{1,2})?(SU|MO|TU|WE|TH|FR|SA)$/.exec(v);
    return match ? { day: WEEKDAYS.indexOf(match[2] as string), nth: Number(match[1] ?? 0) } : null;
  });
  const numbers = (raw: string | undefined, max: number) =>
    list(raw, (v) => (/^[+-]?\d{1,3}$/.test(v) && Number(v) !== 0 && Math.abs(Number(v)) <= max ? Number(v) : null));
  const byMonth = numbers(parts.BYMONTH, 12);
  return {
    freq,
    interval,
    count,
    until,
    byDay,
    byMonthDay: numbers(parts.BYMONTHDAY, 31),
    byMonth: byMonth && byMonth.every((m) => m > 0) ? byMonth : null,
    bySetPos: numbers(parts.BYSETPOS, 366),
  };
}

/** A comma-separated rule part, read item by item; unreadable items are dropped, and an empty list is none. */
function list<T>(raw: string | undefined, read: (v: string) => T | null): T[] | null {
  if (raw === undefined) return null;
  const items = raw
    .split(",")
    .map((v) => read(v.trim()))
    .filter((v): v is T => v !== null);
  return items.length > 0 ? items : null;
}

/** The rule's occurrences from `start` that begin before `to`, skipping ahead towards `from` where nothing needs counting. */
export function* occurrences(start: LocalTime, rule: Rule | null, from: Date, to: Date): Generator<LocalTime> {
  if (rule === null || rule.freq === "OTHER") {
    yield start;
    return;
  }
  let produced = 0;
  const first = rule.count === null ? skipTo(start, rule, from) : 0;
  for (let period = first; period < first + MAX_PERIODS; period++) {
    const { first: periodStart, selected } = periodDays(start, rule, period);
    // A period that begins two weeks past the window holds nothing it shows, whatever the zone.
    if (Date.UTC(periodStart.y, periodStart.m - 1, periodStart.d) > to.getTime() + 14 * DAY_MS) return;
    for (const day of selected) {
      const candidate: LocalTime = { ...start, ...day };
      if (naiveMs(candidate) < naiveMs(start)) continue;
      const at = instant(candidate);
      if (rule.until !== null && at.getTime() > rule.until.getTime()) return;
      if (rule.count !== null && produced >= rule.count) return;
      produced++;
      if (at.getTime() >= to.getTime()) return;
      yield candidate;
    }
  }
}

/** A period index a little before the one holding `from` (0 when `from` is not ahead of the start). */
function skipTo(start: LocalTime, rule: Rule, from: Date): number {
  const ahead = from.getTime() - instant(start).getTime();
  if (ahead <= 0) return 0;
  const f = new Date(from.getTime());
  const months = (f.getUTCFullYear() - start.y) * 12 + (f.getUTCMonth() + 1 - start.m);
  const periods = {
    DAILY: ahead / (DAY_MS * rule.interval),
    WEEKLY: ahead / (7 * DAY_MS * rule.interval),
    MONTHLY: months / rule.interval,
    YEARLY: (f.getUTCFullYear() - start.y) / rule.interval,
  }[rule.freq as (typeof FREQUENCIES)[number]];
  return Math.max(0, Math.floor(periods) - 2);
}

/** One period's days (its whole day, week, month or year) and those of them the rule selects, in order. */
function periodDays(start: LocalTime, rule: Rule, period: number): { first: Day; selected: Day[] } {
  let scope: Day[];
  if (rule.freq === "DAILY") {
    scope = [dayAt(Date.UTC(start.y, start.m - 1, start.d) + period * rule.interval * DAY_MS)];
  } else if (rule.freq === "WEEKLY") {
    // Weeks start on Monday; the period is the week of the first occurrence, and every INTERVAL-th after it.
    const monday = Date.UTC(start.y, start.m - 1, start.d) - mondayFirst(weekday(start.y, start.m, start.d)) * DAY_MS;
    scope = Array.from({ length: 7 }, (_, i) => dayAt(monday + (period * rule.interval * 7 + i) * DAY_MS));
  } else if (rule.freq === "MONTHLY") {
    const month = start.m - 1 + period * rule.interval;
    scope = monthDays(start.y + Math.floor(month / 12), (month % 12) + 1);
  } else {
    const y = start.y + period * rule.interval;
    scope = Array.from({ length: 12 }, (_, i) => monthDays(y, i + 1)).flat();
  }
  return { first: scope[0] as Day, selected: setPositions(select(scope, start, rule), rule.bySetPos) };
}

function select(scope: Day[], start: LocalTime, rule: Rule): Day[] {
  // A rule that names no days repeats the first occurrence's: its weekday, day of the month, or date.
  const implicit = rule.byDay === null && rule.byMonthDay === null;
  const months = rule.byMonth ?? (implicit && rule.freq === "YEARLY" ? [start.m] : null);
  const monthDaysWanted =
    rule.byMonthDay ?? (implicit && (rule.freq === "MONTHLY" || rule.freq === "YEARLY") ? [start.d] : null);
  const weekdays =
    rule.byDay ?? (implicit && rule.freq === "WEEKLY" ? [{ day: weekday(start.y, start.m, start.d), nth: 0 }] : null);
  // An ordinal (`2TU`) counts inside the month; on a YEARLY rule without BYMONTH, inside the year. Other rules ignore it.
  const ordinal =
    rule.freq === "MONTHLY" ? "month" : rule.freq === "YEARLY" ? (rule.byMonth === null ? "year" : "month") : null;
  return scope.filter(
    (x) =>
      (months === null || months.includes(x.m)) &&
      (monthDaysWanted === null || monthDaysWanted.some((n) => n === x.d || n === x.d - daysInMonth(x.y, x.m) - 1)) &&
      (weekdays === null ||
        weekdays.some(
          (w) => w.day === weekday(x.y, x.m, x.d) && (w.nth === 0 || ordinal === null || nthOf(x, ordinal, w.nth)),
        )),
  );
}

/** `x` is the nth of its weekday in its month or year; a negative nth counts from the end. */
function nthOf(x: Day, within: "month" | "year", nth: number): boolean {
  const index = within === "month" ? x.d - 1 : Math.round((Date.UTC(x.y, x.m - 1, x.d) - Date.UTC(x.y, 0, 1)) / DAY_MS);
  const length =
    within === "month" ? daysInMonth(x.y, x.m) : Math.round((Date.UTC(x.y + 1, 0, 1) - Date.UTC(x.y, 0, 1)) / DAY_MS);
  return nth > 0 ? Math.floor(index / 7) + 1 === nth : Math.floor((length - 1 - index) / 7) + 1 === -nth;
}

/** BYSETPOS: the nth of the period's selected days (negative from the end), in order. */
function setPositions(days: Day[], positions: number[] | null): Day[] {
  if (positions === null) return days;
  const picked = new Set<Day>();
  for (const p of positions) {
    const day = p > 0 ? days[p - 1] : days[days.length + p];
    if (day !== undefined) picked.add(day);
  }
  return days.filter((d) => picked.has(d));
}

function monthDays(y: number, m: number): Day[] {
  return Array.from({ length: daysInMonth(y, m) }, (_, i) => ({ y, m, d: i + 1 }));
}

function dayAt(ms: number): Day {
  const d = new Date(ms);
  return { y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() };
}

const mondayFirst = (day: number) => (day + 6) % 7;
