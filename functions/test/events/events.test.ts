/**
 * Events for the family's apps, on the official emulator: each change to a person is published in
 * its own transaction (core/people/person-events), fanned out to every subscription that hears of
 * it, and posted to the app signed as Standard Webhooks sign (core/events/delivery), verified here
 * with the registry's `standardwebhooks`. A receiver of our own on loopback stands for each app;
 * the clock moves by hand past each backoff and pause.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { HOUR, MINUTE } from "../../src/clock";
import { erasePerson } from "../../src/core/account/erasure";
import { addHook, findHook, hookDeliveries, redeliver, rotateHookSecret } from "../../src/core/events/hooks";
import { MAX_ATTEMPTS } from "../../src/core/outbox/claims";
import type { ServiceEvent } from "../../src/core/model/event";
import { changePerson } from "../../src/core/people/change-person";
import { checkHealth } from "../../src/core/status/health";
import { endSessions } from "../../src/core/sessions/active-sessions";
import * as outbox from "../../src/store/outbox";
import * as sessions from "../../src/store/sessions";
import { testDeps, unique, type TestDeps } from "../support/deps";
import { recordingLogger } from "../support/email-codes";
import { personFor } from "../support/people";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** What the receiver answered. */
  status: number;
}

interface Receiver {
  url: string;
  got: Received[];
  /** The status it answers from now on. */
  answer(status: number): void;
  /** Events it took (a 2xx), by webhook-id. */
  taken(): ServiceEvent[];
  close(): Promise<void>;
}

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

async function receiver(): Promise<Receiver> {
  const got: Received[] = [];
  let status = 204;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      got.push({ headers: req.headers, body, status });
      res.statusCode = status;
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    got,
    answer: (s) => (status = s),
    taken: () => got.filter((r) => r.status < 300).map((r) => JSON.parse(r.body) as ServiceEvent),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const operator = { operator: { kind: "operator" as const, name: "ops@console" } };
const stranger = () => ({ uid: unique("uid"), email: `${unique("p")}@example.test` });

/** Headers as the package's verify takes them. */
const headersOf = (r: Received): Record<string, string> => ({
  "webhook-id": String(r.headers["webhook-id"]),
  "webhook-timestamp": String(r.headers["webhook-timestamp"]),
  "webhook-signature": String(r.headers["webhook-signature"]),
});

/** Runs the mail task until nothing is left to do now. */
const drained = async (deps: TestDeps) => {
  await deps.tasks?.idle();
};

/** Moves the clock `ms` on, runs what fell due, and waits for it. */
async function later(deps: TestDeps, ms: number): Promise<void> {
  deps.clock.advance(ms);
  deps.tasks?.runDue();
  await drained(deps);
}

describe("events for the apps", () => {
  it("tells a subscribed app of an approval, signed: a tampered body or a wrong secret does not verify", async () => {
    const deps = testDeps();
    const app = await receiver();
    const { secret } = await addHook(deps, { app: unique("calendar"), url: app.url, events: [] });
    const person = await personFor(stranger(), { status: "pending", projects: [] }, deps.store);

    await changePerson(deps, person.id, { status: "approved", projects: ["calendar"] }, operator);
    await drained(deps);

    expect(app.got).toHaveLength(1);
    const [delivery] = app.got as [Received];
    const event = JSON.parse(delivery.body) as ServiceEvent;
    expect(event).toMatchObject({
      type: "person.approved",
      version: 1,
      personId: person.id,
      seq: 1,
      data: {
        uids: person.uids,
        by: "operator",
        changes: { status: { from: "pending", to: "approved" }, projects: { from: [], to: ["calendar"] } },
      },
    });
    expect(event.id).toMatch(/^evt_[A-Za-z0-9_-]{22}$/);
    expect(delivery.headers["webhook-id"]).toBe(event.id);
    expect(delivery.headers["content-type"]).toBe("application/json");
    // The registry's package verifies it, and refuses it altered or under another secret.
    expect(new Webhook(secret).verify(delivery.body, headersOf(delivery))).toEqual(event);
    const tampered = delivery.body.replace('"approved"', '"rejected"');
    expect(() => new Webhook(secret).verify(tampered, headersOf(delivery))).toThrow();
    const other = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    expect(() => new Webhook(other).verify(delivery.body, headersOf(delivery))).toThrow();
  });

  it("numbers each person's events in order, and sends an app only the types it asked for", async () => {
    const deps = testDeps();
    const all = await receiver();
    const some = await receiver();
    await addHook(deps, { app: unique("all"), url: all.url, events: [] });
    await addHook(deps, { app: unique("some"), url: some.url, events: ["person.profile_changed"] });
    const person = await personFor(stranger(), { status: "approved", projects: ["a"] }, deps.store);

    await changePerson(deps, person.id, { projects: ["a", "b"] }, operator);
    await changePerson(deps, person.id, { name: "Ann Lee" }, operator);
    // A change of nothing an app hears of is no event.
    await changePerson(deps, person.id, { name: "Ann Lee" }, operator);
    const now = deps.clock.now();
    const session = { sessionId: unique("s"), personId: person.id, uid: person.uids[0] as string, amr: ["otp"] };
    const times = { openedAt: now, authTime: now, lastSeenAt: now, expiresAt: new Date(now.getTime() + HOUR) };
    await sessions.record(deps.store, {
      ...session,
      ...times,
      address: null,
      passkeyId: null,
      codesMadeAt: null,
      userAgent: "Firefox",
      endedAt: null,
    });
    await endSessions(deps, person.id, { allBut: null }, operator);
    await drained(deps);

    // Deliveries are not ordered: the sequence number is what puts them in order.
    const inOrder = all.taken().sort((a, b) => a.seq - b.seq);
    expect(inOrder.map((e) => [e.type, e.seq])).toEqual([
      ["person.access_changed", 1],
      ["person.profile_changed", 2],
      ["person.sessions_ended", 3],
    ]);
    expect(inOrder[2]?.data).toEqual({ uids: person.uids, by: "operator", sessions: 1 });
    expect(some.taken().map((e) => e.type)).toEqual(["person.profile_changed"]);
  });

  it("gives a receiver that was down every event once it answers, each under its one webhook-id", async () => {
    const deps = testDeps();
    const app = await receiver();
    const name = unique("down");
    await addHook(deps, { app: name, url: app.url, events: [] });
    app.answer(503);
    const people = await Promise.all([1, 2, 3].map(() => personFor(stranger(), { status: "pending" }, deps.store)));
    for (const p of people) await changePerson(deps, p.id, { status: "approved" }, operator);
    await drained(deps);
    // One request found it down; the endpoint then rests, and the others wait without a request.
    expect(app.got.filter((r) => r.status === 503).length).toBeGreaterThanOrEqual(1);
    expect(app.taken()).toEqual([]);

    await later(deps, 10 * MINUTE);
    app.answer(200);
    for (let i = 0; i < 8 && app.taken().length < 3; i++) await later(deps, 10 * MINUTE);

    const ids = app.taken().map((e) => e.id);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toHaveLength(3);
    expect(
      app
        .taken()
        .map((e) => e.personId)
        .sort(),
    ).toEqual(people.map((p) => p.id).sort());
    // Each retry carried the event's own id: a receiver deduplicates on it.
    for (const r of app.got) expect(ids).toContain(JSON.parse(r.body).id);
    const states = (await hookDeliveries(deps, name)).map((d) => d.state);
    expect(states).toEqual(["sent", "sent", "sent"]);
  });

  it("holds an event for an app that rests after failing until its pause ends, without counting a try", async () => {
    const deps = testDeps();
    const app = await receiver();
    const name = unique("resting");
    await addHook(deps, { app: name, url: app.url, events: [] });
    app.answer(503);
    const [first, second] = await Promise.all(
      [1, 2].map(() => personFor(stranger(), { status: "pending" }, deps.store)),
    );
    await changePerson(deps, first?.id as string, { status: "approved" }, operator);
    await drained(deps);
    expect(app.got).toHaveLength(1);
    const hook = await findHook(deps, name);
    expect(hook?.pausedUntil).not.toBeNull();

    await changePerson(deps, second?.id as string, { status: "approved" }, operator);
    await drained(deps);
    // Not tried: no request, no try counted, due again when the pause ends.
    expect(app.got).toHaveLength(1);
    const held = (await hookDeliveries(deps, name)).find((d) => d.event?.personId === second?.id);
    expect(held).toMatchObject({ state: "pending", attempts: 0, lastError: "paused" });
    expect(held?.nextAttemptAt).toEqual(hook?.pausedUntil);

    app.answer(204);
    await later(deps, MINUTE);
    expect(
      app
        .taken()
        .map((e) => e.personId)
        .sort(),
    ).toEqual([first?.id, second?.id].sort());
  });

  it("keeps a delivery an app never takes as dead after the stated attempts, and sends it again when asked", async () => {
    const log = recordingLogger();
    const deps = testDeps({ log });
    const app = await receiver();
    const name = unique("dead");
    await addHook(deps, { app: name, url: app.url, events: [] });
    app.answer(500);
    const person = await personFor(stranger(), { status: "pending" }, deps.store);
    await changePerson(deps, person.id, { status: "rejected" }, operator);
    await drained(deps);

    for (let i = 0; i < 30 && (await hookDeliveries(deps, name))[0]?.state === "pending"; i++)
      await later(deps, 2 * HOUR);
    const [dead] = await hookDeliveries(deps, name);
    expect(dead).toMatchObject({ state: "failed", lastError: "status 500" });
    expect(dead?.attempts).toBeLessThanOrEqual(MAX_ATTEMPTS);
    expect(app.taken()).toEqual([]);
    // The log tells an app's endpoint that is down from mail failing.
    const given = log.lines.map((l) => JSON.parse(l) as { message: string; outboxId: string });
    expect(given.filter((l) => l.message === "delivery given up").map((l) => l.outboxId)).toEqual([dead?.id]);
    expect(given.map((l) => l.message)).not.toContain("mail given up");

    app.answer(204);
    const eventId = dead?.event?.id as string;
    expect(await redeliver(deps, eventId, name)).toEqual([name]);
    await drained(deps);
    expect(app.taken().map((e) => e.id)).toEqual([eventId]);
    expect(app.got.at(-1)?.headers["webhook-id"]).toBe(eventId);
  });

  it("signs with both secrets during a rotation's overlap, and with the new one alone after", async () => {
    const deps = testDeps();
    const app = await receiver();
    const name = unique("rotating");
    const first = await addHook(deps, { app: name, url: app.url, events: [] });
    const { secret: second } = await rotateHookSecret(deps, name, HOUR);
    const person = await personFor(stranger(), { status: "approved", projects: [] }, deps.store);

    await changePerson(deps, person.id, { projects: ["a"] }, operator);
    await drained(deps);
    const during = app.got.at(-1) as Received;
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(() => new Webhook(first.secret).verify(during.body, headersOf(during))).not.toThrow();
    expect(() => new Webhook(second).verify(during.body, headersOf(during))).not.toThrow();

    deps.clock.advance(2 * HOUR);
    await changePerson(deps, person.id, { projects: ["a", "b"] }, operator);
    await drained(deps);
    const after = app.got.at(-1) as Received;
    const signatures = String(after.headers["webhook-signature"]).split(" ");
    // Signed at the moved clock's time, which the package's own verify would call too new: the
    // package signs the same id, time and body with each secret, and only the new one's matches.
    const at = new Date(Number(after.headers["webhook-timestamp"]) * 1000);
    const id = String(after.headers["webhook-id"]);
    expect(signatures).toEqual([new Webhook(second).sign(id, at, after.body)]);
    expect(signatures).not.toContain(new Webhook(first.secret).sign(id, at, after.body));
  });

  it("counts an app's deliveries that wait for it apart from the mail: the service's status stays ok", async () => {
    const deps = testDeps();
    const app = await receiver();
    await addHook(deps, { app: unique("away"), url: app.url, events: [] });
    app.answer(503);
    const person = await personFor(stranger(), { status: "pending" }, deps.store);
    await changePerson(deps, person.id, { status: "approved" }, operator);
    await drained(deps);
    deps.clock.advance(30 * MINUTE);
    const { checks } = await checkHealth(deps);
    expect(checks.outbox).toEqual({ ok: true, pending: 0, oldestSeconds: null });
    const waiting = await outbox.backlog(deps.store, ["none"]);
    expect(waiting.pending).toBe(1);
  });

  it("tells every subscribed app of an erasure, with the ids alone, and the store keeps nothing else of them", async () => {
    const deps = testDeps();
    const apps = [await receiver(), await receiver()];
    for (const a of apps) await addHook(deps, { app: unique("family"), url: a.url, events: ["person.erased"] });
    const account = stranger();
    const person = await personFor(account, { status: "approved", name: "Erin Example" }, deps.store);

    expect(await erasePerson(deps, person.id, operator)).toEqual({ finished: true, providerSyncErrors: [], apps: [] });
    await drained(deps);

    for (const a of apps) {
      expect(a.taken()).toEqual([
        expect.objectContaining({
          type: "person.erased",
          personId: person.id,
          data: { uids: person.uids, by: "operator" },
        }),
      ]);
      const body = a.got[0]?.body ?? "";
      expect(body).not.toContain(account.email);
      expect(body).not.toContain("Erin");
    }
    // What the outbox keeps of it: the event with the ids, and each delivery of it, nothing more.
    const eventId = apps[0]?.taken()[0]?.id as string;
    const entry = await outbox.findOf(deps.store, "event", eventId);
    expect(JSON.stringify(entry)).not.toContain(account.email);
    expect(entry?.event?.data).toEqual({ uids: person.uids, by: "operator" });
  });
});
