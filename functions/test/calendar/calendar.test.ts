/** The week's events, the coming days' places and where people are, from a calendar feed that may fail. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { CALENDAR_CACHE_MS } from "../../src/core/calendar/calendar";
import * as calendar from "../../src/routes/calendar/calendar";
import * as location from "../../src/routes/location/location";
import { appFor, testConfig, testDeps, type TestDeps } from "../support/deps";
import { icsCalendar as ics } from "../support/ics";
import { accountWithPerson, sessionCookieFor } from "../support/people";

/** A real calendar server on loopback: what it answers is set by the test. */
interface Feed {
  url: string;
  hits: number;
  answer: { status: number; body: string } | "hang";
  close(): Promise<void>;
}

async function feedServer(body = ""): Promise<Feed> {
  const held: Array<() => void> = [];
  const feed: Feed = { url: "", hits: 0, answer: { status: 200, body }, close: async () => {} };
  const server: Server = createServer((_req, res) => {
    feed.hits++;
    const answer = feed.answer;
    if (answer === "hang") return void held.push(() => res.destroy());
    res.writeHead(answer.status, { "content-type": "text/calendar" }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  feed.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/team.ics`;
  feed.close = () =>
    new Promise<void>((resolve) => {
      for (const release of held) release();
      server.close(() => resolve());
    });
  return feed;
}

/** Relative to the test clock's now, so the week under test is always the current one. */
function at(deps: TestDeps, hoursFromNow: number): string {
  const t = new Date(deps.clock.now().getTime() + hoursFromNow * 3_600_000);
  // 2026-11-24T15:27:49.123Z → 20261124T152749 (callers add the Z)
  return t
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}Z$/, "");
}

async function reader(deps: TestDeps, projects = ["startpage"]): Promise<string> {
  const { account, person } = await accountWithPerson({ projects });
  return sessionCookieFor(deps, account.uid, person.id);
}

let feed: Feed;
beforeEach(async () => {
  feed = await feedServer();
});
afterEach(() => feed.close());

function depsFor(overrides: Parameters<typeof testConfig>[0] = {}): TestDeps {
  return testDeps({ config: testConfig({ calendarUrl: feed.url, ...overrides }) });
}

describe("GET /calendar/events", () => {
  it("answers the events of a given week, and this week by default", async () => {
    const deps = depsFor();
    feed.answer = {
      status: 200,
      body: ics(
        `UID:one
         SUMMARY:Review
         LOCATION:Room 4
         DTSTART:20261124T090000Z
         DTEND:20261124T100000Z`,
        `UID:two
         SUMMARY:Holiday
         DTSTART;VALUE=DATE:20261201
         DTEND;VALUE=DATE:20261202`,
      ),
    };
    const app = appFor(calendar, deps);
    const cookie = await reader(deps);
    const res = await request(app).get("/calendar/events?week=2026-11-26").set("Cookie", cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      week: { start: "2026-11-23", end: "2026-11-30" },
      available: true,
      events: [
        {
          id: "one",
          title: "Review",
          location: "Room 4",
          allDay: false,
          start: "2026-11-24T09:00:00.000Z",
          end: "2026-11-24T10:00:00.000Z",
        },
      ],
    });
    const next = await request(app).get("/calendar/events?week=2026-11-30").set("Cookie", cookie);
    expect(next.body.events).toEqual([
      { id: "two", title: "Holiday", location: null, allDay: true, start: "2026-12-01", end: "2026-12-02" },
    ]);
    const thisWeek = await request(app).get("/calendar/events").set("Cookie", cookie);
    const monday = new Date(thisWeek.body.week.start as string);
    expect(monday.getUTCDay()).toBe(1);
    expect(deps.clock.now().getTime() - monday.getTime()).toBeLessThan(7 * 86_400_000);
  });

  it("answers 200 with no events, and says the calendar is unavailable, when it cannot be read", async () => {
    const deps = depsFor();
    const app = appFor(calendar, deps);
    const cookie = await reader(deps);
    for (const answer of [
      { status: 500, body: "" },
      { status: 200, body: "<html>not a calendar</html>" },
    ] as const) {
      feed.answer = answer;
      const res = await request(app).get("/calendar/events").set("Cookie", cookie);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ available: false, events: [] });
    }
    await feed.close();
    expect((await request(app).get("/calendar/events").set("Cookie", cookie)).body).toMatchObject({
      available: false,
      events: [],
    });
  });

  it("answers within its own deadline when the calendar does not answer", async () => {
    const deps = depsFor();
    feed.answer = "hang";
    const res = await request(appFor(calendar, deps))
      .get("/calendar/events")
      .set("Cookie", await reader(deps));
    // The request's own deadline (8 s) would have answered 503 had the fetch not been cut off.
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ available: false, events: [] });
  });

  it("answers no events, available false, when no calendar is configured", async () => {
    const deps = testDeps();
    const res = await request(appFor(calendar, deps))
      .get("/calendar/events")
      .set("Cookie", await reader(deps));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ available: false, events: [] });
  });

  it("reads the feed once a minute at most, one fetch for requests that arrive together", async () => {
    const deps = depsFor();
    feed.answer = { status: 200, body: ics(`UID:x\nSUMMARY:X\nDTSTART:${at(deps, 1)}Z`) };
    const app = appFor(calendar, deps);
    const cookie = await reader(deps);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => request(app).get("/calendar/events").set("Cookie", cookie)),
    );
    expect(answers.map((a) => a.body.available)).toEqual([true, true, true, true, true]);
    expect(feed.hits).toBe(1);
    await request(app).get("/calendar/events").set("Cookie", cookie);
    expect(feed.hits).toBe(1);
    deps.clock.advance(CALENDAR_CACHE_MS);
    await request(app).get("/calendar/events").set("Cookie", cookie);
    expect(feed.hits).toBe(2);
  });

  it("refuses a week that is not a date with 400, and gates like every start-page endpoint", async () => {
    const deps = depsFor();
    const app = appFor(calendar, deps);
    const cookie = await reader(deps);
    for (const week of ["2026-13-01", "2026-02-30", "next", "2026-1-1"]) {
      const res = await request(app).get(`/calendar/events?week=${week}`).set("Cookie", cookie);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "Invalid request parameters" });
    }
    expect((await request(app).get("/calendar/events")).status).toBe(401);
    const outsider = await reader(deps, ["status"]);
    expect((await request(app).get("/calendar/events").set("Cookie", outsider)).body).toEqual({ error: "Forbidden" });
    expect(feed.hits).toBe(0);
  });
});

describe("GET /calendar/upcoming-locations", () => {
  it("lists the places of the coming days' events, in order, and nothing when the calendar fails", async () => {
    const deps = depsFor();
    feed.answer = {
      status: 200,
      body: ics(
        `UID:later\nSUMMARY:Visit\nLOCATION:Lyon\nDTSTART:${at(deps, 48)}Z\nDTEND:${at(deps, 50)}Z`,
        `UID:soon\nSUMMARY:Workshop\nLOCATION:Berlin\nDTSTART:${at(deps, 2)}Z\nDTEND:${at(deps, 3)}Z`,
        `UID:nowhere\nSUMMARY:Call\nDTSTART:${at(deps, 4)}Z`,
        `UID:far\nSUMMARY:Far\nLOCATION:Oslo\nDTSTART:${at(deps, 24 * 20)}Z`,
      ),
    };
    const app = appFor(calendar, deps);
    const cookie = await reader(deps);
    const res = await request(app).get("/calendar/upcoming-locations").set("Cookie", cookie);
    expect(res.status).toBe(200);
    expect(res.body.locations.map((l: { location: string }) => l.location)).toEqual(["Berlin", "Lyon"]);
    expect(
      (await request(app).get("/calendar/upcoming-locations?days=31").set("Cookie", cookie)).body.locations,
    ).toHaveLength(3);
    expect((await request(app).get("/calendar/upcoming-locations?days=0").set("Cookie", cookie)).status).toBe(400);

    feed.answer = { status: 503, body: "" };
    deps.clock.advance(CALENDAR_CACHE_MS);
    const failed = await request(app).get("/calendar/upcoming-locations").set("Cookie", cookie);
    expect(failed.status).toBe(200);
    expect(failed.body).toEqual({ locations: [] });
  });
});

describe("GET /location", () => {
  it("says where the event in progress is, the latest begun first, else the default", async () => {
    const deps = depsFor({ defaultLocation: "Head office" });
    feed.answer = {
      status: 200,
      body: ics(
        `UID:trip\nSUMMARY:Trip\nLOCATION:Madrid\nDTSTART:${at(deps, -24)}Z\nDTEND:${at(deps, 24)}Z`,
        `UID:meeting\nSUMMARY:Meeting\nLOCATION:Madrid, client site\nDTSTART:${at(deps, -1)}Z\nDTEND:${at(deps, 1)}Z`,
      ),
    };
    const app = appFor(location, deps);
    const cookie = await reader(deps);
    const res = await request(app).get("/location").set("Cookie", cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      location: "Madrid, client site",
      source: "calendar",
      until: new Date(deps.clock.now().getTime() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, ".000Z"),
    });
    deps.clock.advance(2 * 3_600_000);
    expect((await request(app).get("/location").set("Cookie", cookie)).body.location).toBe("Madrid");
    deps.clock.advance(48 * 3_600_000);
    expect((await request(app).get("/location").set("Cookie", cookie)).body).toEqual({
      location: "Head office",
      source: "default",
      until: null,
    });
  });

  it("always answers 200: the fallback body without a credential, for an outsider, or when the calendar fails", async () => {
    const deps = depsFor({ defaultLocation: "Head office" });
    feed.answer = {
      status: 200,
      body: ics(`UID:m\nSUMMARY:M\nLOCATION:Secret place\nDTSTART:${at(deps, -1)}Z\nDTEND:${at(deps, 1)}Z`),
    };
    const app = appFor(location, deps);
    const fallback = { location: "Head office", source: "default", until: null };
    const anonymous = await request(app).get("/location");
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toEqual(fallback);
    expect(
      (
        await request(app)
          .get("/location")
          .set("Cookie", await reader(deps, ["status"]))
      ).body,
    ).toEqual(fallback);
    feed.answer = { status: 500, body: "" };
    expect(
      (
        await request(app)
          .get("/location")
          .set("Cookie", await reader(deps))
      ).body,
    ).toEqual(fallback);
  });
});
