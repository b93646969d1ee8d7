/** Reading a calendar feed: times and zones, recurrence rules and their exceptions; garbage never throws. */
import { type CalendarEvent, eventsBetween as eventsIn, readCalendar } from "../../src/core/calendar/ics";
import { icsCalendar as calendar } from "../support/ics";

// The week of Monday 2026-11-23 (UTC).
const from = new Date("2026-11-23T00:00:00Z");
const to = new Date("2026-11-30T00:00:00Z");
const iso = (d: Date) => d.toISOString();
const eventsBetween = (ics: string, a: Date, b: Date): CalendarEvent[] => eventsIn(readCalendar(ics), a, b);

describe("eventsBetween", () => {
  it("reads UTC, all-day and zoned times, text escapes and folded lines", () => {
    const ics = calendar(
      `UID:a
       SUMMARY:Planning\\, with notes
       LOCATION:Room 1\\; north
       DTSTART:20261124T090000Z
       DTEND:20261124T100000Z`,
      `UID:b
       SUMMARY:Offsite
       DTSTART;VALUE=DATE:20261126
       DTEND;VALUE=DATE:20261128`,
      `UID:c
       SUMMARY:Call with Pa
       ~ris
       DTSTART;TZID=Europe/Paris:20261125T150000
       DURATION:PT30M`,
    );
    const events = eventsBetween(ics, from, to);
    expect(events.map((e) => [e.id, e.title, e.location, iso(e.start), iso(e.end), e.allDay])).toEqual([
      ["a", "Planning, with notes", "Room 1; north", "2026-11-24T09:00:00.000Z", "2026-11-24T10:00:00.000Z", false],
      // Paris is UTC+1 in November.
      ["c", "Call with Paris", null, "2026-11-25T14:00:00.000Z", "2026-11-25T14:30:00.000Z", false],
      ["b", "Offsite", null, "2026-11-26T00:00:00.000Z", "2026-11-28T00:00:00.000Z", true],
    ]);
  });

  it("keeps a zoned weekly event at its wall-clock time across a change of offset", () => {
    const ics = calendar(`UID:w
      SUMMARY:Standup
      DTSTART;TZID=Europe/Paris:20260921T093000
      DTEND;TZID=Europe/Paris:20260921T094500
      RRULE:FREQ=WEEKLY;BYDAY=MO,WE`);
    const events = eventsBetween(ics, from, to);
    // 09:30 in Paris is 08:30 UTC in winter (it was 07:30 UTC in September).
    expect(events.map((e) => [iso(e.start), iso(e.end)])).toEqual([
      ["2026-11-23T08:30:00.000Z", "2026-11-23T08:45:00.000Z"],
      ["2026-11-25T08:30:00.000Z", "2026-11-25T08:45:00.000Z"],
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(2);
  });

  it("leaves out excluded, moved-away and cancelled occurrences, and shows a moved one where it went", () => {
    const ics = calendar(
      `UID:d
       SUMMARY:Daily
       DTSTART:20261120T120000Z
       DTEND:20261120T121500Z
       RRULE:FREQ=DAILY
       EXDATE:20261124T120000Z,20261125T120000Z`,
      `UID:d
       RECURRENCE-ID:20261126T120000Z
       SUMMARY:Daily (moved)
       DTSTART:20261126T160000Z
       DTEND:20261126T161500Z`,
      `UID:d
       RECURRENCE-ID:20261127T120000Z
       STATUS:CANCELLED
       DTSTART:20261127T120000Z`,
      `UID:gone
       SUMMARY:Cancelled meeting
       STATUS:CANCELLED
       DTSTART:20261124T100000Z`,
    );
    const events = eventsBetween(ics, from, to);
    expect(events.map((e) => [e.title, iso(e.start)])).toEqual([
      ["Daily", "2026-11-23T12:00:00.000Z"],
      ["Daily (moved)", "2026-11-26T16:00:00.000Z"],
      ["Daily", "2026-11-28T12:00:00.000Z"],
      ["Daily", "2026-11-29T12:00:00.000Z"],
    ]);
  });

  it("honours COUNT, UNTIL and INTERVAL, and finds this week of a rule that began years ago", () => {
    const ics = calendar(
      `UID:count
       SUMMARY:Three times
       DTSTART:20261122T080000Z
       RRULE:FREQ=DAILY;COUNT=3`,
      `UID:until
       SUMMARY:Until Tuesday
       DTSTART:20261120T070000Z
       RRULE:FREQ=DAILY;UNTIL=20261124`,
      `UID:fortnight
       SUMMARY:Every other Friday
       DTSTART:20261113T150000Z
       RRULE:FREQ=WEEKLY;INTERVAL=2`,
      `UID:old
       SUMMARY:Since 2010
       DTSTART:20100104T060000Z
       RRULE:FREQ=DAILY`,
    );
    const titles = (title: string) =>
      eventsBetween(ics, from, to)
        .filter((e) => e.title === title)
        .map((e) => iso(e.start).slice(0, 10));
    expect(titles("Three times")).toEqual(["2026-11-23", "2026-11-24"]);
    expect(titles("Until Tuesday")).toEqual(["2026-11-23", "2026-11-24"]);
    expect(titles("Every other Friday")).toEqual(["2026-11-27"]);
    expect(titles("Since 2010")).toHaveLength(7);
  });

  it("includes an event that began before the window and is still going, and leaves out what lies outside", () => {
    const ics = calendar(
      `UID:long
       SUMMARY:Conference
       DTSTART;VALUE=DATE:20261120
       DTEND;VALUE=DATE:20261124`,
      `UID:next
       SUMMARY:Next week
       DTSTART:20261130T090000Z`,
      `UID:last
       SUMMARY:Last week
       DTSTART:20261120T090000Z
       DTEND:20261120T100000Z`,
    );
    expect(eventsBetween(ics, from, to).map((e) => e.title)).toEqual(["Conference"]);
  });

  it("repeats monthly on a day of the month, on the nth or last weekday, and on a set position", () => {
    const ics = calendar(
      `UID:day
       SUMMARY:On the 24th
       DTSTART:20260124T100000Z
       RRULE:FREQ=MONTHLY`,
      `UID:nth
       SUMMARY:Fourth Thursday
       DTSTART:20260122T100000Z
       RRULE:FREQ=MONTHLY;BYDAY=4TH`,
      `UID:last
       SUMMARY:Last Friday
       DTSTART:20260130T100000Z
       RRULE:FREQ=MONTHLY;BYDAY=-1FR`,
      `UID:odd
       SUMMARY:Odd months
       DTSTART:20261024T100000Z
       RRULE:FREQ=MONTHLY;INTERVAL=2`,
      `UID:old
       SUMMARY:Since 2015, the 25th
       DTSTART:20150101T100000Z
       RRULE:FREQ=MONTHLY;BYMONTHDAY=25`,
      `UID:end
       SUMMARY:Two days before the end
       DTSTART:20260101T100000Z
       RRULE:FREQ=MONTHLY;BYMONTHDAY=-2`,
    );
    // November 2026 begins on a Sunday: its fourth Thursday is the 26th, its last Friday the 27th.
    expect(eventsBetween(ics, from, to).map((e) => [e.title, iso(e.start).slice(0, 10)])).toEqual([
      ["On the 24th", "2026-11-24"],
      ["Since 2015, the 25th", "2026-11-25"],
      ["Fourth Thursday", "2026-11-26"],
      ["Last Friday", "2026-11-27"],
      ["Two days before the end", "2026-11-29"],
    ]);
  });

  it("skips months without the day, and picks the last weekday of each month with BYSETPOS", () => {
    const ics = calendar(
      `UID:31
       SUMMARY:On the 31st
       DTSTART:20261031T100000Z
       RRULE:FREQ=MONTHLY;COUNT=3`,
      `UID:workday
       SUMMARY:Last working day
       DTSTART:20260901T170000Z
       RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1`,
    );
    const between = (title: string, a: string, b: string) =>
      eventsBetween(ics, new Date(a), new Date(b))
        .filter((e) => e.title === title)
        .map((e) => iso(e.start).slice(0, 10));
    expect(between("On the 31st", "2026-10-01T00:00:00Z", "2027-06-01T00:00:00Z")).toEqual([
      "2026-10-31",
      "2026-12-31",
      "2027-01-31",
    ]);
    // 31 October 2026 is a Saturday, 30 November a Monday.
    expect(between("Last working day", "2026-09-01T00:00:00Z", "2026-12-01T00:00:00Z")).toEqual([
      "2026-09-30",
      "2026-10-30",
      "2026-11-30",
    ]);
  });

  it("repeats yearly on the date, on the 29th of February only in leap years, and on the nth weekday of a month", () => {
    const ics = calendar(
      `UID:birthday
       SUMMARY:Birthday
       DTSTART;VALUE=DATE:19901126
       RRULE:FREQ=YEARLY`,
      `UID:leap
       SUMMARY:Leap day
       DTSTART;VALUE=DATE:20240229
       RRULE:FREQ=YEARLY`,
      `UID:thanks
       SUMMARY:Thanksgiving
       DTSTART:20201126T170000Z
       RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=4TH`,
    );
    expect(eventsBetween(ics, from, to).map((e) => [e.title, iso(e.start).slice(0, 10), e.allDay])).toEqual([
      ["Birthday", "2026-11-26", true],
      ["Thanksgiving", "2026-11-26", false],
    ]);
    const leapDays = eventsBetween(ics, new Date("2024-03-01T00:00:00Z"), new Date("2032-12-31T00:00:00Z")).filter(
      (e) => e.title === "Leap day",
    );
    expect(leapDays.map((e) => iso(e.start).slice(0, 10))).toEqual(["2028-02-29", "2032-02-29"]);
  });

  it("adds RDATE occurrences to the rule's (and to a single event), once each, and still honours EXDATE", () => {
    const ics = calendar(
      `UID:extra
       SUMMARY:Weekly plus extras
       DTSTART:20261102T100000Z
       DTEND:20261102T110000Z
       RRULE:FREQ=WEEKLY
       RDATE:20261125T150000Z,20261123T100000Z
       RDATE;VALUE=PERIOD:20261127T080000Z/20261127T090000Z
       EXDATE:20261125T150000Z`,
      `UID:single
       SUMMARY:Twice
       DTSTART:20261124T070000Z
       RDATE:20261126T070000Z`,
    );
    expect(eventsBetween(ics, from, to).map((e) => [e.id, iso(e.start), iso(e.end)])).toEqual([
      ["extra@2026-11-23T10:00:00.000Z", "2026-11-23T10:00:00.000Z", "2026-11-23T11:00:00.000Z"],
      ["single@2026-11-24T07:00:00.000Z", "2026-11-24T07:00:00.000Z", "2026-11-24T07:00:00.000Z"],
      ["single@2026-11-26T07:00:00.000Z", "2026-11-26T07:00:00.000Z", "2026-11-26T07:00:00.000Z"],
      ["extra@2026-11-27T08:00:00.000Z", "2026-11-27T08:00:00.000Z", "2026-11-27T09:00:00.000Z"],
    ]);
  });

  it("limits a daily rule to the named weekdays", () => {
    const ics = calendar(`UID:weekdays
      SUMMARY:Weekdays only
      DTSTART:20261102T073000Z
      RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR`);
    expect(eventsBetween(ics, from, to).map((e) => iso(e.start).slice(0, 10))).toEqual([
      "2026-11-23",
      "2026-11-24",
      "2026-11-25",
      "2026-11-26",
      "2026-11-27",
    ]);
  });

  it("reads Windows zone names and zone paths that end in an IANA name", () => {
    const ics = calendar(
      `UID:windows
       SUMMARY:Outlook
       DTSTART;TZID=W. Europe Standard Time:20261124T090000`,
      `UID:quoted
       SUMMARY:Eastern
       DTSTART;TZID="Eastern Standard Time":20261124T090000`,
      `UID:path
       SUMMARY:Path
       DTSTART;TZID=/mozilla.org/20050126_1/Asia/Tokyo:20261124T090000`,
    );
    // Berlin is UTC+1, New York UTC−5 and Tokyo UTC+9 in November.
    expect(eventsBetween(ics, from, to).map((e) => [e.title, iso(e.start)])).toEqual([
      ["Path", "2026-11-24T00:00:00.000Z"],
      ["Outlook", "2026-11-24T08:00:00.000Z"],
      ["Eastern", "2026-11-24T14:00:00.000Z"],
    ]);
  });

  it("skips what it cannot read and never throws: no start, bad dates, unknown zones read as UTC, garbage", () => {
    const ics = calendar(
      `UID:nostart
       SUMMARY:No start`,
      `UID:bad
       SUMMARY:Bad date
       DTSTART:20261332T250000Z`,
      `UID:zone
       SUMMARY:Unknown zone
       DTSTART;TZID=Mars Standard Time:20261124T090000`,
      `UID:rule
       SUMMARY:Unreadable rule parts
       DTSTART:20261123T120000Z
       RRULE:FREQ=MONTHLY;BYMONTHDAY=0,x,40;BYDAY=9ZZ;BYSETPOS=`,
    );
    expect(eventsBetween(ics, from, to).map((e) => [e.title, iso(e.start)])).toEqual([
      ["Unreadable rule parts", "2026-11-23T12:00:00.000Z"],
      ["Unknown zone", "2026-11-24T09:00:00.000Z"],
    ]);
    expect(eventsBetween("not a calendar at all", from, to)).toEqual([]);
    expect(eventsBetween("BEGIN:VEVENT\r\nDTSTART:20261124T090000Z", from, to)).toEqual([]);
  });

  it("ignores the alarms and other components nested in an event", () => {
    const ics = calendar(`UID:alarm
      SUMMARY:With alarm
      DTSTART:20261124T090000Z
      BEGIN:VALARM
      SUMMARY:Not the title
      TRIGGER:-PT15M
      END:VALARM`);
    expect(eventsBetween(ics, from, to).map((e) => e.title)).toEqual(["With alarm"]);
  });
});
