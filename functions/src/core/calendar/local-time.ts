/**
 * Wall-clock times as iCalendar writes them, and the instants they name. A zone is an IANA name,
 * or a name Intl does not know that is mapped to one: a path ending in an IANA name
 * (`/mozilla.org/…/Europe/Paris`) or a Windows zone name as Outlook and Exchange write them.
 * Anything else is read as UTC.
 */

export interface LocalTime {
  y: number;
  m: number;
  d: number;
  hh: number;
  mm: number;
  ss: number;
  /** The zone the fields are read in; null: UTC, or floating (read as UTC). */
  zone: string | null;
  utc: boolean;
  dateOnly: boolean;
}

export const DAY_MS = 86_400_000;

/** Milliseconds of the wall-clock fields as if they were UTC: for arithmetic on local times. */
export function naiveMs(t: LocalTime): number {
  return Date.UTC(t.y, t.m - 1, t.d, t.hh, t.mm, t.ss);
}

export function shiftLocal(t: LocalTime, ms: number): LocalTime {
  const d = new Date(naiveMs(t) + ms);
  return {
    ...t,
    y: d.getUTCFullYear(),
    m: d.getUTCMonth() + 1,
    d: d.getUTCDate(),
    hh: d.getUTCHours(),
    mm: d.getUTCMinutes(),
    ss: d.getUTCSeconds(),
  };
}

/** Sunday 0 … Saturday 6. */
export function weekday(y: number, m: number, d: number): number {
  return new Date(Date.UTC(y, m - 1, d)).getUTCDay();
}

export function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** The fields name a real date and time (no 31 November, no 25 o'clock), else null. */
export function valid(t: LocalTime): LocalTime | null {
  const back = new Date(naiveMs(t));
  return back.getUTCMonth() + 1 === t.m && back.getUTCDate() === t.d && t.hh < 24 && t.mm < 60 && t.ss < 61 ? t : null;
}

/** The instant a local time names: in its zone when it has one, else as UTC. */
export function instant(t: LocalTime): Date {
  const naive = naiveMs(t);
  if (t.zone === null || t.utc || t.dateOnly) return new Date(naive);
  const first = naive - offsetMs(t.zone, naive);
  // Once more at the result, for times near a change of offset.
  return new Date(naive - offsetMs(t.zone, first));
}

const zoneFormats = new Map<string, Intl.DateTimeFormat | null>();

/** How far `zone` is ahead of UTC at `atMs`; 0 for a zone that cannot be resolved. */
function offsetMs(zone: string, atMs: number): number {
  let format = zoneFormats.get(zone);
  if (format === undefined) {
    format = zoneFormat(zone);
    zoneFormats.set(zone, format);
  }
  if (format === null) return 0;
  const parts = Object.fromEntries(format.formatToParts(new Date(atMs)).map((p) => [p.type, p.value]));
  const asUtc = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return asUtc - Math.floor(atMs / 1000) * 1000;
}

function zoneFormat(zone: string): Intl.DateTimeFormat | null {
  const segments = zone.split("/").filter((s) => s !== "");
  // The name itself, a path that ends in an IANA name (`/citadel.org/20190101_1/Europe/Berlin`), or a Windows name.
  const names = [zone, ...segments.map((_, i) => segments.slice(i).join("/")), WINDOWS_ZONES[zone.trim()]];
  for (const name of names) {
    if (name === undefined || name === "") continue;
    try {
      return new Intl.DateTimeFormat("en-US", {
        timeZone: name,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      });
    } catch {
      // Not a zone Intl knows; try the next reading.
    }
  }
  return null;
}

/** Windows zone names Outlook and Exchange write as TZID, with the IANA zone CLDR maps each to. */
const WINDOWS_ZONES: Record<string, string> = {
  "Dateline Standard Time": "Etc/GMT+12",
  "Hawaiian Standard Time": "Pacific/Honolulu",
  "Alaskan Standard Time": "America/Anchorage",
  "Pacific Standard Time": "America/Los_Angeles",
  "US Mountain Standard Time": "America/Phoenix",
  "Mountain Standard Time": "America/Denver",
  "Central America Standard Time": "America/Guatemala",
  "Central Standard Time": "America/Chicago",
  "Central Standard Time (Mexico)": "America/Mexico_City",
  "Canada Central Standard Time": "America/Regina",
  "SA Pacific Standard Time": "America/Bogota",
  "Eastern Standard Time": "America/New_York",
  "Atlantic Standard Time": "America/Halifax",
  "Newfoundland Standard Time": "America/St_Johns",
  "E. South America Standard Time": "America/Sao_Paulo",
  "Argentina Standard Time": "America/Buenos_Aires",
  UTC: "Etc/UTC",
  "GMT Standard Time": "Europe/London",
  "Greenwich Standard Time": "Atlantic/Reykjavik",
  "W. Europe Standard Time": "Europe/Berlin",
  "Central Europe Standard Time": "Europe/Budapest",
  "Romance Standard Time": "Europe/Paris",
  "Central European Standard Time": "Europe/Warsaw",
  "W. Central Africa Standard Time": "Africa/Lagos",
  "GTB Standard Time": "Europe/Bucharest",
  "FLE Standard Time": "Europe/Kiev",
  "E. Europe Standard Time": "Europe/Chisinau",
  "Israel Standard Time": "Asia/Jerusalem",
  "South Africa Standard Time": "Africa/Johannesburg",
  "Egypt Standard Time": "Africa/Cairo",
  "Turkey Standard Time": "Europe/Istanbul",
  "Russian Standard Time": "Europe/Moscow",
  "Arabian Standard Time": "Asia/Dubai",
  "India Standard Time": "Asia/Calcutta",
  "Nepal Standard Time": "Asia/Katmandu",
  "SE Asia Standard Time": "Asia/Bangkok",
  "China Standard Time": "Asia/Shanghai",
  "Singapore Standard Time": "Asia/Singapore",
  "Taipei Standard Time": "Asia/Taipei",
  "Tokyo Standard Time": "Asia/Tokyo",
  "Korea Standard Time": "Asia/Seoul",
  "AUS Central Standard Time": "Australia/Darwin",
  "E. Australia Standard Time": "Australia/Brisbane",
  "AUS Eastern Standard Time": "Australia/Sydney",
  "New Zealand Standard Time": "Pacific/Auckland",
};

const DATE = /^(\d{4})(\d{2})(\d{2})$/;
const DATE_TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/;

/** A DATE or DATE-TIME value with its TZID parameter; null when it names no real time. */
export function localTimeOf(value: string, params: Record<string, string>): LocalTime | null {
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
