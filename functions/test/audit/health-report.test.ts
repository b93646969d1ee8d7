/**
 * The service's health over a window (core/status/report, GET /auth/health): on a project of its
 * own, so every count is what this file did. Sign-ins by way in and email codes by outcome, per
 * hour over 24 hours and per day over 7; people waiting, the outbox per lane, deliveries given up
 * per app and erasures unfinished, as they stand; administrators only; and no write made to tell.
 * Refusals of code requests and of sign-ins, which nothing else keeps, are counted as they happen,
 * by reason, in documents of the instance's own (core/status/health-counts).
 */
import request from "supertest";
import { transactionRunner } from "../../src/store/db";
import * as peopleRoutes from "../../src/routes/people/people";
import * as otpRoutes from "../../src/routes/otp/otp";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
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

describe("refusals counted as they happen", () => {
  it("counts code requests and sign-ins refused, by reason, in one document of this instance's an hour", async () => {
    const otp = appFor(otpRoutes, deps);
    const sessions = appFor(sessionRoutes, deps);
    const address = `${unique("nobody")}@example.test`;
    // An address on no account is answered as any other, the second ask within a minute too.
    expect((await request(otp).post("/auth/otp/send").send({ email: address })).status).toBe(200);
    const again = await request(otp).post("/auth/otp/send").send({ email: address });
    expect([again.status, again.body.reason]).toEqual([429, "resend_too_soon"]);
    expect((await request(otp).post("/auth/otp/send").send({ email: "not an address" })).status).toBe(400);
    const wrong = await request(otp).post("/auth/otp/sign-in").send({ email: address, otp: "000000" });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    const forged = await request(sessions).post("/auth/verify").send({ idToken: "not.a.token" });
    expect(forged.status).toBeGreaterThanOrEqual(400);
    await deps.counts.written();

    const r = await healthReport(deps, "24h");
    const now =
      r.buckets.length -
      1 -
      r.buckets
        .slice()
        .reverse()
        .findIndex((b) => new Date(b) <= deps.clock.now());
    const inThisHour = (rs: typeof r.refused.codes) => Object.fromEntries(rs.map((x) => [x.reason, x.counts[now]]));
    expect(inThisHour(r.refused.codes)).toEqual({ resend_too_soon: 1, email_invalid: 1 });
    const reasons = [wrong.body.reason, forged.body.reason] as string[];
    expect(reasons.every((reason) => typeof reason === "string")).toBe(true);
    const expected: Record<string, number> = {};
    for (const reason of reasons) expected[reason] = (expected[reason] ?? 0) + 1;
    expect(inThisHour(r.refused.signIns)).toEqual(expected);
    // What this instance counted in this hour is one document, its own.
    const docs = await db.collection("healthCounts").get();
    expect(docs.size).toBe(1);
    expect(docs.docs[0]?.id).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z~/);
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
