import { eventsBetween } from "../src/core/ics";
import { icsCalendar as calendar } from "./support/ics";

// The week of Monday 2026-11-23 (UTC).
const from = new Date("2026-11-23T00:00:00Z");
const to = new Date("2026-11-30T00:00:00Z");
const iso = (d: Date) => d.toISOString();

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
    const titles = (title: string) => eventsBetween(ics, from, to).filter((e) => e.title === title).map((e) => iso(e.start).slice(0, 10));
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

  it("skips what it cannot read and never throws: no start, bad dates, unknown zones read as UTC, garbage", () => {
    const ics = calendar(
      `UID:nostart
       SUMMARY:No start`,
      `UID:bad
       SUMMARY:Bad date
       DTSTART:20261332T250000Z`,
      `UID:zone
       SUMMARY:Windows zone
       DTSTART;TZID=W. Europe Standard Time:20261124T090000`,
    );
    expect(eventsBetween(ics, from, to).map((e) => [e.title, iso(e.start)])).toEqual([["Windows zone", "2026-11-24T09:00:00.000Z"]]);
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
