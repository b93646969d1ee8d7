/**
 * The service's health over a window (core/status/report, GET /auth/health): on a project of its
 * own, so every count is what this file did. Sign-ins by way in and email codes by outcome, per
 * hour over 24 hours and per day over 7; people waiting, the outbox per lane, deliveries given up
 * per app and erasures unfinished, as they stand; administrators only; and no write made to tell.
 */
import request from "supertest";
import { transactionRunner } from "../../src/store/db";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessionRecords from "../../src/store/sessions";
import { healthReport, wayOf, windowOf } from "../../src/core/status/report";
import { signedUp } from "../support/auth";
import { appFor, testDeps, unique } from "../support/deps";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";
import { queuedEntry } from "../support/outbox-entries";
import type { Person } from "../../src/core/model/person";

const { db } = freshProject();
const deps = testDeps({ store: db, transaction: transactionRunner(db) });
const app = appFor(peopleRoutes, deps);
const HOUR = 3_600_000;

async function signedIn(fields: Partial<Person>): Promise<{ cookie: string; person: Person }> {
  const account = await signedUp();
  const person = await personFor(account, fields, db);
  return { cookie: await sessionCookieFor(deps, account.uid, person.id), person };
}

/** A session opened `hoursAgo` hours ago, begun by `amr`. */
async function opened(hoursAgo: number, amr: string[]): Promise<void> {
  const at = new Date(deps.clock.now().getTime() - hoursAgo * HOUR);
  await sessionRecords.record(db, {
    sessionId: unique("s"),
    personId: unique("p"),
    uid: unique("u"),
    openedAt: at,
    authTime: at,
    amr,
    address: null,
    passkeyId: null,
    codesMadeAt: null,
    userAgent: "",
    lastSeenAt: at,
    expiresAt: new Date(at.getTime() + 14 * 24 * HOUR),
    endedAt: null,
  });
}

const ago = (hours: number) => new Date(deps.clock.now().getTime() - hours * HOUR);

describe("the service's health over a window", () => {
  it("counts what happened, per hour and per day, and says what stands now", async () => {
    // Before anything of the test's: the administrator's own sign-in is a session too.
    const admin = await signedIn({ role: "admin", projects: ["*"] });
    const before = await healthReport(deps, "24h");
    await opened(1, ["hwk", "user"]);
    await opened(1, ["otp"]);
    await opened(3, ["otp"]);
    await opened(30, ["fed"]); // outside 24 hours, inside 7 days
    await queuedEntry(db, { kind: "code", state: "sent", at: ago(1) });
    await queuedEntry(db, { kind: "code", state: "sent", at: ago(2) });
    await queuedEntry(db, { kind: "code", state: "failed", at: ago(2) });
    await queuedEntry(db, { kind: "code", state: "none", at: ago(5) });
    await queuedEntry(db, { kind: "delivery", about: "calendar", state: "failed", at: ago(4) });
    await queuedEntry(db, { kind: "delivery", about: "calendar", state: "failed", at: ago(6) });
    await queuedEntry(db, { kind: "delivery", about: "status", state: "sent", at: ago(6) });
    await queuedEntry(db, { kind: "delivery", about: "startpage", state: "pending", at: ago(2) });
    await signedIn({ status: "pending" });

    const res = await request(app).get("/auth/health?window=24h").set("Cookie", admin.cookie);
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const r = res.body as Awaited<ReturnType<typeof healthReport>>;
    expect(r.buckets).toHaveLength(24);
    expect(new Date(r.to).getTime() - new Date(r.from).getTime()).toBe(24 * HOUR);
    const { starts } = windowOf("24h", deps.clock.now());
    const bucketOf = (hours: number) => starts.findLastIndex((s) => s <= ago(hours));
    const total = (way: string) => r.signIns.find((s) => s.way === way)?.counts.reduce((a, b) => a + b, 0) ?? 0;
    const totalBefore = (way: string) =>
      before.signIns.find((s) => s.way === way)?.counts.reduce((a, b) => a + b, 0) ?? 0;
    expect(total("passkey") - totalBefore("passkey")).toBe(1);
    expect(total("code") - totalBefore("code")).toBe(2);
    expect(total("provider")).toBe(0);
    expect(r.signIns.find((s) => s.way === "passkey")?.counts[bucketOf(1)]).toBe(1);
    expect(r.codes.sent.reduce((a, b) => a + b, 0)).toBe(2);
    expect(r.codes.givenUp[bucketOf(2)]).toBe(1);
    expect(r.codes.notNeeded[bucketOf(5)]).toBe(1);
    expect(r.deliveriesGivenUp).toEqual([{ app: "calendar", count: 2 }]);
    expect(r.waiting).toEqual({ people: 1, oldestSeconds: expect.any(Number) });
    expect(r.outbox).toEqual([
      { lane: "mail", pending: 0, oldestSeconds: null },
      { lane: "apps", pending: 1, oldestSeconds: expect.any(Number) },
      { lane: "bulk", pending: 0, oldestSeconds: null },
    ]);
    expect(r.outbox[1]?.oldestSeconds).toBeGreaterThanOrEqual(2 * 3600);
    expect(r.erasures).toEqual({ unfinished: 0, oldestSeconds: null });
    expect(r.partial).toBe(false);

    const week = (await request(app).get("/auth/health?window=7d").set("Cookie", admin.cookie)).body as typeof r;
    expect(week.buckets).toHaveLength(7);
    expect(week.signIns.find((s) => s.way === "provider")?.counts.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it("is for administrators, and refuses a window it does not draw", async () => {
    const member = await signedIn({ projects: ["startpage"] });
    expect((await request(app).get("/auth/health").set("Cookie", member.cookie)).status).toBe(403);
    const admin = await signedIn({ role: "admin", projects: ["*"] });
    for (const bad of ["window=1y", "window=24h&extra=1"])
      expect((await request(app).get(`/auth/health?${bad}`).set("Cookie", admin.cookie)).status).toBe(400);
  });
});

describe("how a sign-in began", () => {
  it.each([
    [["hwk", "user"], "passkey"],
    [["swk"], "passkey"],
    [["otp"], "code"],
    [["fed"], "provider"],
    [["pwd"], "password"],
    [["rec"], "recovery code"],
    [["rc"], "other"],
    [[], "other"],
  ])("reads %j as %s", (amr, way) => {
    expect(wayOf(amr as string[])).toBe(way);
  });
});
