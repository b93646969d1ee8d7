import type { Deps } from "../deps";
import type { Fetch } from "../ports";
import { type Calendar, type CalendarEvent, eventsBetween, readCalendar } from "./ics";
import { DAY_MS } from "./local-time";
import { ttlCache } from "../ttl-cache";
import { errorText } from "../../logger";

/**
 * The shared calendar behind the start page's calendar and location endpoints: one iCalendar
 * feed (CALENDAR_ICS_URL), fetched at most once a minute per instance. The calendar is a
 * convenience, never a reason to fail a page: a feed that cannot be had is no events, and the
 * endpoints say so in their bodies rather than in their status.
 */
export const CALENDAR_FETCH_DEADLINE_MS = 3000;
export const CALENDAR_CACHE_MS = 60_000;
/** A feed larger than this is not read (a year of a busy calendar is a few hundred kB). */
export const CALENDAR_MAX_BYTES = 2 * 1024 * 1024;

/** A feed is read once per fetch; every request of the next minute reuses what was read. */
export type Feed = { available: true; calendar: Calendar } | { available: false };

export interface CalendarSource {
  /** The feed, from this instance's copy when it is under a minute old. */
  feed(): Promise<Feed>;
}

export function calendarSource(deps: Pick<Deps, "config" | "clock" | "log" | "fetch">): CalendarSource {
  const cache = ttlCache<Calendar>(deps.clock, CALENDAR_CACHE_MS, 1);
  let inFlight: Promise<Feed> | null = null;
  const url = deps.config.calendarUrl;
  return {
    feed() {
      if (url === null) return Promise.resolve({ available: false });
      const kept = cache.get(url);
      if (kept !== undefined) return Promise.resolve({ available: true, calendar: kept });
      // Requests arriving while the feed is being fetched wait for that one fetch.
      inFlight ??= fetchFeed(deps.fetch, url)
        .then((ics): Feed => {
          const calendar = readCalendar(ics);
          cache.set(url, calendar);
          return { available: true, calendar };
        })
        .catch((error: unknown): Feed => {
          deps.log.warn("calendar feed unavailable", { error: errorText(error) });
          return { available: false };
        })
        .finally(() => {
          inFlight = null;
        });
      return inFlight;
    },
  };
}

/** The deadline covers the whole fetch, body included: the signal aborts the body's reads too. */
async function fetchFeed(fetch: Fetch, url: string): Promise<string> {
  const res = await fetch(url, {
    headers: { accept: "text/calendar" },
    redirect: "error",
    signal: AbortSignal.timeout(CALENDAR_FETCH_DEADLINE_MS),
  });
  if (res.status !== 200) throw new Error(`the feed answered ${res.status}`);
  if (Number(res.headers.get("content-length") ?? 0) > CALENDAR_MAX_BYTES) throw new Error("the feed is too large");
  const reader = res.body?.getReader();
  if (!reader) throw new Error("the feed has no body");
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > CALENDAR_MAX_BYTES) {
      await reader.cancel();
      throw new Error("the feed is too large");
    }
    chunks.push(value);
  }
  const ics = Buffer.concat(chunks).toString("utf8");
  if (!ics.includes("BEGIN:VCALENDAR")) throw new Error("the feed is not an iCalendar");
  return ics;
}

export interface EventView {
  id: string;
  title: string;
  location: string | null;
  allDay: boolean;
  /** Dates (`YYYY-MM-DD`, end exclusive) for all-day events, instants (ISO 8601, UTC) otherwise. */
  start: string;
  end: string;
}

function view(e: CalendarEvent): EventView {
  const at = (d: Date) => (e.allDay ? d.toISOString().slice(0, 10) : d.toISOString());
  return { id: e.id, title: e.title, location: e.location, allDay: e.allDay, start: at(e.start), end: at(e.end) };
}

/** The Monday (UTC) of the week holding `day`. */
export function weekOf(day: Date): { start: Date; end: Date } {
  const midnight = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
  const start = midnight - ((new Date(midnight).getUTCDay() + 6) % 7) * DAY_MS;
  return { start: new Date(start), end: new Date(start + 7 * DAY_MS) };
}

export async function weekEvents(
  source: CalendarSource,
  day: Date,
): Promise<{ week: { start: string; end: string }; available: boolean; events: EventView[] }> {
  const { start, end } = weekOf(day);
  const week = { start: start.toISOString().slice(0, 10), end: end.toISOString().slice(0, 10) };
  const feed = await source.feed();
  if (!feed.available) return { week, available: false, events: [] };
  return { week, available: true, events: eventsBetween(feed.calendar, start, end).map(view) };
}

/**
 * The next `limit` events, those in progress included, from now to `days` ahead, in order; as the
 * week's events, an unreachable calendar is no events, and `available` says so.
 */
export async function nextEvents(
  source: CalendarSource,
  now: Date,
  { days, limit }: { days: number; limit: number },
): Promise<{ available: boolean; events: EventView[] }> {
  const feed = await source.feed();
  if (!feed.available) return { available: false, events: [] };
  const events = eventsBetween(feed.calendar, now, new Date(now.getTime() + days * DAY_MS));
  return { available: true, events: events.slice(0, limit).map(view) };
}

/** Events with a place, from now to `days` ahead, in order. */
export async function upcomingLocations(
  source: CalendarSource,
  now: Date,
  days: number,
): Promise<Array<{ location: string; title: string; start: string; end: string; allDay: boolean }>> {
  const feed = await source.feed();
  if (!feed.available) return [];
  return eventsBetween(feed.calendar, now, new Date(now.getTime() + days * DAY_MS))
    .filter((e) => e.location !== null)
    .map(view)
    .map(({ location, title, start, end, allDay }) => ({ location: location as string, title, start, end, allDay }));
}

/**
 * Where the calendar places people now: the place of the event in progress that started last
 * (an all-day trip gives way to a meeting in it), else the configured default.
 */
export async function currentLocation(
  source: CalendarSource,
  now: Date,
  fallback: string | null,
): Promise<{ location: string | null; source: "calendar" | "default"; until: string | null }> {
  const feed = await source.feed();
  const here = feed.available
    ? eventsBetween(feed.calendar, new Date(now.getTime() - 1), new Date(now.getTime() + 1))
        .filter((e) => e.location !== null && e.start.getTime() <= now.getTime() && now.getTime() < e.end.getTime())
        .sort((a, b) => b.start.getTime() - a.start.getTime())[0]
    : undefined;
  if (here === undefined) return { location: fallback, source: "default", until: null };
  return { location: here.location, source: "calendar", until: here.end.toISOString() };
}
