/**
 * Just enough iCalendar (RFC 5545) to show a week of a shared calendar: VEVENTs with their
 * start, end, summary and location; all-day, UTC, floating and TZID times (an IANA zone; any
 * other zone name is read as UTC); DAILY and WEEKLY recurrence (INTERVAL, COUNT, UNTIL, BYDAY)
 * with EXDATE and moved or cancelled occurrences (RECURRENCE-ID). Other recurrences show their
 * first occurrence only. Nothing here throws on bad input: what cannot be read is left out.
 */

export interface CalendarEvent {
  id: string;
  title: string;
  location: string | null;
  /** All-day events start and end on dates (end exclusive), others at instants. */
  allDay: boolean;
  start: Date;
  end: Date;
}

/** A wall-clock time and the zone it is read in (null: UTC, or floating, read as UTC). */
interface LocalTime {
  y: number;
  m: number;
  d: number;
  hh: number;
  mm: number;
  ss: number;
  zone: string | null;
  utc: boolean;
  dateOnly: boolean;
}

interface Rule {
  freq: "DAILY" | "WEEKLY" | "OTHER";
  interval: number;
  count: number | null;
  until: Date | null;
  byDay: number[] | null;
}

interface RawEvent {
  uid: string;
  title: string;
  location: string | null;
  start: LocalTime;
  end: LocalTime | null;
  durationMs: number | null;
  rule: Rule | null;
  exdates: number[];
  recurrenceId: number | null;
  cancelled: boolean;
}

/** Periods (days or weeks) a recurrence is followed through for one window. */
const MAX_OCCURRENCES = 5000;
const DAY_MS = 86_400_000;
const WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];

/** The events that overlap [from, to), each occurrence of a recurring one on its own, by start. */
export function eventsBetween(ics: string, from: Date, to: Date): CalendarEvent[] {
  const raw = readEvents(ics);
  // Occurrences moved or cancelled by an instance of their own are not expanded from the rule.
  const overridden = new Map<string, Set<number>>();
  for (const e of raw) {
    if (e.recurrenceId === null) continue;
    const set = overridden.get(e.uid) ?? new Set<number>();
    set.add(e.recurrenceId);
    overridden.set(e.uid, set);
  }
  const out: CalendarEvent[] = [];
  for (const e of raw) {
    if (e.cancelled) continue;
    const skip = e.recurrenceId === null ? (overridden.get(e.uid) ?? new Set<number>()) : new Set<number>();
    for (const start of occurrences(e, from, to)) {
      const startMs = instant(start).getTime();
      if (skip.has(startMs) || e.exdates.includes(startMs)) continue;
      const event = materialise(e, start);
      if (event.end.getTime() > from.getTime() && event.start.getTime() < to.getTime()) out.push(event);
    }
  }
  return out.sort((a, b) => a.start.getTime() - b.start.getTime() || a.title.localeCompare(b.title));
}

function materialise(e: RawEvent, start: LocalTime): CalendarEvent {
  const startAt = instant(start);
  let endAt: Date;
  if (e.end !== null) {
    // The same length as the first occurrence, measured in wall-clock time (across a DST change).
    const sameClock = e.end.zone === e.start.zone && e.end.utc === e.start.utc;
    endAt = sameClock ? instant(shiftLocal(start, naiveMs(e.end) - naiveMs(e.start))) : new Date(startAt.getTime() + instant(e.end).getTime() - instant(e.start).getTime());
  } else if (e.durationMs !== null) {
    endAt = new Date(startAt.getTime() + e.durationMs);
  } else {
    endAt = new Date(startAt.getTime() + (start.dateOnly ? DAY_MS : 0));
  }
  if (endAt.getTime() < startAt.getTime()) endAt = startAt;
  return { id: occurrenceId(e, start), title: e.title, location: e.location, allDay: start.dateOnly, start: startAt, end: endAt };
}

function occurrenceId(e: RawEvent, start: LocalTime): string {
  return e.rule === null && e.recurrenceId === null ? e.uid : `${e.uid}@${instant(start).toISOString()}`;
}

function* occurrences(e: RawEvent, from: Date, to: Date): Generator<LocalTime> {
  const rule = e.rule;
  if (rule === null || rule.freq === "OTHER") {
    yield e.start;
    return;
  }
  let produced = 0;
  const stepDays = rule.freq === "DAILY" ? rule.interval : 7 * rule.interval;
  // Weekly rules run week by week from the week of the first occurrence (weeks start on Monday).
  const firstWeekday = weekday(e.start);
  const days = rule.freq === "WEEKLY" && rule.byDay !== null ? [...rule.byDay].sort((a, b) => mondayFirst(a) - mondayFirst(b)) : [firstWeekday];
  // Without a COUNT nothing before the window needs counting: start a period or two before it.
  const skipped = rule.count === null ? Math.max(0, Math.floor((from.getTime() - instant(e.start).getTime()) / (stepDays * DAY_MS)) - 2) : 0;
  for (let period = skipped; period < skipped + MAX_OCCURRENCES; period++) {
    const base = shiftLocal(e.start, period * stepDays * DAY_MS);
    if (instant(base).getTime() >= to.getTime() + 7 * DAY_MS) return;
    const candidates = rule.freq === "DAILY" ? [base] : days.map((d) => shiftLocal(base, (mondayFirst(d) - mondayFirst(firstWeekday)) * DAY_MS));
    for (const candidate of candidates) {
      if (naiveMs(candidate) < naiveMs(e.start)) continue;
      const at = instant(candidate);
      if (rule.until !== null && at.getTime() > rule.until.getTime()) return;
      if (rule.count !== null && produced >= rule.count) return;
      produced++;
      if (at.getTime() >= to.getTime()) return;
      yield candidate;
    }
  }
}

const mondayFirst = (day: number) => (day + 6) % 7;

function weekday(t: LocalTime): number {
  return new Date(Date.UTC(t.y, t.m - 1, t.d)).getUTCDay();
}

/** Milliseconds of the wall-clock fields as if they were UTC: for arithmetic on local times. */
function naiveMs(t: LocalTime): number {
  return Date.UTC(t.y, t.m - 1, t.d, t.hh, t.mm, t.ss);
}

function shiftLocal(t: LocalTime, ms: number): LocalTime {
  const d = new Date(naiveMs(t) + ms);
  return { ...t, y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate(), hh: d.getUTCHours(), mm: d.getUTCMinutes(), ss: d.getUTCSeconds() };
}

/** The instant a local time names: in its zone when it has one, else as UTC. */
function instant(t: LocalTime): Date {
  const naive = naiveMs(t);
  if (t.zone === null || t.utc || t.dateOnly) return new Date(naive);
  const first = naive - offsetMs(t.zone, naive);
  // Once more at the result, for times near a change of offset.
  return new Date(naive - offsetMs(t.zone, first));
}

const zoneFormats = new Map<string, Intl.DateTimeFormat | null>();

/** How far `zone` is ahead of UTC at `atMs`; 0 for a zone name Intl does not know. */
function offsetMs(zone: string, atMs: number): number {
  let format = zoneFormats.get(zone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
    } catch {
      format = null;
    }
    zoneFormats.set(zone, format);
  }
  if (format === null) return 0;
  const parts = Object.fromEntries(format.formatToParts(new Date(atMs)).map((p) => [p.type, p.value]));
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return asUtc - Math.floor(atMs / 1000) * 1000;
}

interface Property {
  name: string;
  params: Record<string, string>;
  value: string;
}

function readEvents(ics: string): RawEvent[] {
  const events: RawEvent[] = [];
  let current: Property[] | null = null;
  let nested = 0;
  for (const line of unfold(ics)) {
    const property = parseLine(line);
    if (property === null) continue;
    if (property.name === "BEGIN") {
      if (property.value.toUpperCase() === "VEVENT" && current === null) current = [];
      else if (current !== null) nested++;
    } else if (property.name === "END") {
      if (current !== null && nested > 0) nested--;
      else if (current !== null && property.value.toUpperCase() === "VEVENT") {
        const event = toEvent(current);
        if (event !== null) events.push(event);
        current = null;
      }
    } else if (current !== null && nested === 0) {
      current.push(property);
    }
  }
  return events;
}

function unfold(ics: string): string[] {
  const lines: string[] = [];
  for (const line of ics.split(/\r?\n/)) {
    if ((line.startsWith(" ") || line.startsWith("\t")) && lines.length > 0) lines[lines.length - 1] += line.slice(1);
    else lines.push(line);
  }
  return lines;
}

/** `NAME;PARAM=value;PARAM="quoted:value":VALUE`; the first colon outside quotes ends the params. */
function parseLine(line: string): Property | null {
  let quoted = false;
  let colon = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === ":" && !quoted) {
      colon = i;
      break;
    }
  }
  if (colon <= 0) return null;
  const [name, ...rawParams] = line.slice(0, colon).split(";");
  const params: Record<string, string> = {};
  for (const p of rawParams) {
    const eq = p.indexOf("=");
    if (eq > 0) params[p.slice(0, eq).toUpperCase()] = p.slice(eq + 1).replace(/^"|"$/g, "");
  }
  return { name: (name ?? "").toUpperCase(), params, value: line.slice(colon + 1) };
}

function text(value: string): string {
  return value.replace(/\\([\\;,nN])/g, (_, c: string) => (c === "n" || c === "N" ? "\n" : c)).trim();
}

function toEvent(props: Property[]): RawEvent | null {
  const one = (name: string) => props.find((p) => p.name === name);
  const dtstart = one("DTSTART");
  const start = dtstart ? localTime(dtstart.value, dtstart.params) : null;
  if (start === null) return null;
  const dtend = one("DTEND");
  const end = dtend ? localTime(dtend.value, dtend.params) : null;
  const duration = one("DURATION");
  const recurrence = one("RECURRENCE-ID");
  const recurrenceTime = recurrence ? localTime(recurrence.value, recurrence.params) : null;
  const exdates = props
    .filter((p) => p.name === "EXDATE")
    .flatMap((p) => p.value.split(",").map((v) => localTime(v, p.params)))
    .filter((t): t is LocalTime => t !== null)
    .map((t) => instant(t).getTime());
  const rrule = one("RRULE");
  const title = one("SUMMARY");
  const location = one("LOCATION");
  const uid = one("UID");
  return {
    uid: uid ? uid.value.trim() : `${dtstart?.value}-${title?.value ?? ""}`,
    title: title ? text(title.value) : "",
    location: location && text(location.value) !== "" ? text(location.value) : null,
    start,
    end,
    durationMs: duration ? durationMs(duration.value) : null,
    rule: rrule ? parseRule(rrule.value) : null,
    exdates,
    recurrenceId: recurrenceTime ? instant(recurrenceTime).getTime() : null,
    cancelled: one("STATUS")?.value.trim().toUpperCase() === "CANCELLED",
  };
}

const DATE = /^(\d{4})(\d{2})(\d{2})$/;
const DATE_TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/;

function localTime(value: string, params: Record<string, string>): LocalTime | null {
  const v = value.trim();
  const date = DATE.exec(v);
  if (date) {
    const [, y, m, d] = date.map(Number) as [number, number, number, number];
    return valid({ y, m, d, hh: 0, mm: 0, ss: 0, zone: null, utc: true, dateOnly: true });
  }
  const dt = DATE_TIME.exec(v);
  if (!dt) return null;
  const [y, m, d, hh, mm, ss] = dt.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const utc = dt[7] === "Z";
  return valid({ y, m, d, hh, mm, ss, zone: utc ? null : (params.TZID ?? null), utc, dateOnly: false });
}

function valid(t: LocalTime): LocalTime | null {
  const back = new Date(naiveMs(t));
  return back.getUTCMonth() + 1 === t.m && back.getUTCDate() === t.d && t.hh < 24 && t.mm < 60 && t.ss < 61 ? t : null;
}

/** `P1D`, `PT1H30M`, `P2W`, `-PT15M` (negative durations are read as none). */
function durationMs(value: string): number | null {
  const match = /^\+?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(value.trim());
  if (!match) return null;
  const [w, d, h, m, s] = match.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number];
  return (((w * 7 + d) * 24 + h) * 60 + m) * 60_000 + s * 1000;
}

function parseRule(value: string): Rule {
  const parts = Object.fromEntries(
    value
      .split(";")
      .map((p) => p.split("="))
      .filter((kv) => kv.length === 2)
      .map(([k, v]) => [(k as string).toUpperCase(), v as string]),
  );
  const freq = parts.FREQ === "DAILY" || parts.FREQ === "WEEKLY" ? parts.FREQ : "OTHER";
  const interval = Math.max(1, Math.min(1000, Number.parseInt(parts.INTERVAL ?? "1", 10) || 1));
  const count = parts.COUNT !== undefined && /^\d+$/.test(parts.COUNT) ? Number(parts.COUNT) : null;
  const untilTime = parts.UNTIL !== undefined ? localTime(parts.UNTIL, {}) : null;
  // A date-only UNTIL includes that whole day.
  const until = untilTime === null ? null : new Date(instant(untilTime).getTime() + (untilTime.dateOnly ? DAY_MS - 1 : 0));
  const byDay = parts.BYDAY !== undefined ? parts.BYDAY.split(",").map((d) => WEEKDAYS.indexOf(d.trim().toUpperCase().slice(-2))).filter((d) => d >= 0) : null;
  return { freq, interval, count, until, byDay: byDay !== null && byDay.length > 0 ? byDay : null };
}
