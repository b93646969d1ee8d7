import { DAY_MS, instant, localTimeOf, type LocalTime, naiveMs, shiftLocal } from "./local-time";
import { occurrences, parseRule, type Rule } from "./recurrence";

/**
 * Just enough iCalendar (RFC 5545) to show a week of a shared calendar: VEVENTs with their
 * start, end, summary and location; all-day, UTC, floating and TZID times (see local-time.ts);
 * recurrence rules (see recurrence.ts), RDATE and EXDATE, and moved or cancelled occurrences
 * (RECURRENCE-ID). Nothing here throws on bad input: what cannot be read is left out.
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

interface RawEvent {
  uid: string;
  title: string;
  location: string | null;
  start: LocalTime;
  end: LocalTime | null;
  durationMs: number | null;
  rule: Rule | null;
  exdates: number[];
  /** Occurrences added by RDATE, besides the rule's (or the single start). */
  rdates: LocalTime[];
  recurrenceId: number | null;
  cancelled: boolean;
}

/** A feed read once: its events, and for each recurring one the occurrences its own instances replace. */
export interface Calendar {
  events: RawEvent[];
  overridden: Map<string, Set<number>>;
}

export function readCalendar(ics: string): Calendar {
  const events = readEvents(ics);
  // Occurrences moved or cancelled by an instance of their own are not expanded from the rule.
  const overridden = new Map<string, Set<number>>();
  for (const e of events) {
    if (e.recurrenceId === null) continue;
    const set = overridden.get(e.uid) ?? new Set<number>();
    set.add(e.recurrenceId);
    overridden.set(e.uid, set);
  }
  return { events, overridden };
}

const NONE = new Set<number>();

/** The events that overlap [from, to), each occurrence of a recurring one on its own, by start. */
export function eventsBetween(calendar: Calendar, from: Date, to: Date): CalendarEvent[] {
  const out: CalendarEvent[] = [];
  for (const e of calendar.events) {
    if (e.cancelled) continue;
    const skip = e.recurrenceId === null ? (calendar.overridden.get(e.uid) ?? NONE) : NONE;
    const seen = new Set<number>();
    for (const start of [...occurrences(e.start, e.rule, from, to), ...e.rdates]) {
      const startMs = instant(start).getTime();
      if (seen.has(startMs) || skip.has(startMs) || e.exdates.includes(startMs)) continue;
      seen.add(startMs);
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
    endAt = sameClock
      ? instant(shiftLocal(start, naiveMs(e.end) - naiveMs(e.start)))
      : new Date(startAt.getTime() + instant(e.end).getTime() - instant(e.start).getTime());
  } else if (e.durationMs !== null) {
    endAt = new Date(startAt.getTime() + e.durationMs);
  } else {
    endAt = new Date(startAt.getTime() + (start.dateOnly ? DAY_MS : 0));
  }
  if (endAt.getTime() < startAt.getTime()) endAt = startAt;
  return {
    id: occurrenceId(e, start),
    title: e.title,
    location: e.location,
    allDay: start.dateOnly,
    start: startAt,
    end: endAt,
  };
}

function occurrenceId(e: RawEvent, start: LocalTime): string {
  return e.rule === null && e.rdates.length === 0 && e.recurrenceId === null
    ? e.uid
    : `${e.uid}@${instant(start).toISOString()}`;
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
  const start = dtstart ? localTimeOf(dtstart.value, dtstart.params) : null;
  if (start === null) return null;
  const dtend = one("DTEND");
  const end = dtend ? localTimeOf(dtend.value, dtend.params) : null;
  const duration = one("DURATION");
  const recurrence = one("RECURRENCE-ID");
  const recurrenceTime = recurrence ? localTimeOf(recurrence.value, recurrence.params) : null;
  // Lists of times; a PERIOD (`start/end` or `start/duration`) counts by its start.
  const times = (name: string) =>
    props
      .filter((p) => p.name === name)
      .flatMap((p) => p.value.split(",").map((v) => localTimeOf(v.split("/")[0] ?? "", p.params)))
      .filter((t): t is LocalTime => t !== null);
  const exdates = times("EXDATE").map((t) => instant(t).getTime());
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
    rdates: times("RDATE"),
    recurrenceId: recurrenceTime ? instant(recurrenceTime).getTime() : null,
    cancelled: one("STATUS")?.value.trim().toUpperCase() === "CANCELLED",
  };
}

/** `P1D`, `PT1H30M`, `P2W`, `-PT15M` (negative durations are read as none). */
function durationMs(value: string): number | null {
  const match = /^\+?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(value.trim());
  if (!match) return null;
  const [w, d, h, m, s] = match.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number];
  return (((w * 7 + d) * 24 + h) * 60 + m) * 60_000 + s * 1000;
}
