/** GET /status: each dependency's health (Firestore, mail, the outbox's backlog), for the status project only. */
import request from "supertest";
import * as status from "../../src/routes/status/status";
import { enqueueMail } from "../../src/core/outbox/enqueue";
import { OUTBOX_STALE_SECONDS } from "../../src/core/status/health";
import { appFor, testConfig, testDeps, TEST_SESSION_KEYS } from "../support/deps";
import { KEY_ROTATE_AFTER_DAYS, KEY_WARN_DAYS } from "../../src/core/model/key-age";
import { recordingLogger } from "../support/email-codes";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import type { ChildProcess } from "node:child_process";
import { firestoreAt, freePort, ownFirestore, retire, stopped } from "../support/own-firestore";

async function statusReader(deps = testDeps()) {
  const { account, person } = await accountWithPerson({ projects: ["status"] }, deps.store);
  return { app: appFor(status, deps), cookie: await sessionCookieFor(deps, account.uid, person.id), deps };
}

/** The queries one GET /status makes of the store (core/status/health: ping, then the outbox's backlog). */
const STATUS_QUERIES = 4;

describe("GET /status", () => {
  it("reports every dependency healthy", async () => {
    const { app, cookie } = await statusReader();
    const res = await request(app).get("/status").set("Cookie", cookie).set("X-Forwarded-For", "203.0.113.9");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: "ok",
      checks: {
        firestore: { ok: true, ms: expect.any(Number) },
        mail: { ok: true, ms: expect.any(Number) },
        sessionKeys: { ok: true },
        outbox: { ok: true, pending: expect.any(Number), oldestSeconds: res.body.checks.outbox.oldestSeconds },
      },
      caller: { client: "203.0.113.9", network: "203.0.113.0/24" },
    });
    expect(res.body.checks.outbox.oldestSeconds ?? 0).toBeLessThan(OUTBOX_STALE_SECONDS);
  });

  it("reports mail that has waited a quarter of an hour in the outbox as degraded", async () => {
    const log = recordingLogger();
    const deps = testDeps({ mailQueue: { wake: async () => {} }, log });
    const { app, cookie } = await statusReader(deps);
    const deliverBy = new Date(deps.clock.now().getTime() + 60 * 60_000);
    const id = await deps.transaction(async (tx) =>
      enqueueMail(
        deps,
        tx,
        { to: "x@example.test", subject: "s", text: "t", html: "h" },
        { kind: "digest", deliverBy },
      ),
    );
    try {
      deps.clock.advance(OUTBOX_STALE_SECONDS * 1000);
      const res = await request(app).get("/status").set("Cookie", cookie);
      expect(res.body.status).toBe("degraded");
      expect(res.body.checks.outbox).toMatchObject({ ok: false, pending: expect.any(Number) });
      expect(res.body.checks.outbox.oldestSeconds).toBeGreaterThanOrEqual(OUTBOX_STALE_SECONDS);
      // Logged for its alert (monitoring/policies/outbox-late.json), with what was found.
      expect(log.lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toContainEqual({
        message: "outbox late",
        pending: res.body.checks.outbox.pending,
        oldestSeconds: res.body.checks.outbox.oldestSeconds,
      });
    } finally {
      await deps.store.collection("outbox").doc(id).update({ state: "failed" });
    }
  });

  it("logs a key in use near its yearly rotation for its alert, and says nothing of a younger one", async () => {
    const keyMadeDaysAgo = async (days: number) => {
      const log = recordingLogger();
      const ring = JSON.parse(TEST_SESSION_KEYS) as Array<Record<string, unknown>>;
      const deps = testDeps({ log });
      const made = new Date(deps.clock.now().getTime() - days * 86_400_000).toISOString().slice(0, 10);
      const kid = `session-${made.replaceAll("-", "")}-a1b2c3`;
      ring[0] = { ...ring[0], kid };
      const aged = testDeps({ log, config: testConfig({ sessionKeys: JSON.stringify(ring) }), clock: deps.clock });
      const { app, cookie } = await statusReader(aged);
      expect((await request(app).get("/status").set("Cookie", cookie)).status).toBe(200);
      const lines = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      return { kid, made, said: lines.filter((l) => l.message === "key near retirement") };
    };
    const near = await keyMadeDaysAgo(KEY_ROTATE_AFTER_DAYS - 10);
    expect(near.said).toEqual([
      expect.objectContaining({ secret: "SESSION_KEYS", kid: near.kid, madeOn: near.made, daysLeft: 10 }),
    ]);
    expect((await keyMadeDaysAgo(KEY_ROTATE_AFTER_DAYS - KEY_WARN_DAYS - 5)).said).toEqual([]);
  });

  it("reports mail not configured as degraded, still 200", async () => {
    const deps = testDeps({ config: testConfig({ smtp: null }), mailer: null });
    const { app, cookie } = await statusReader(deps);
    const res = await request(app).get("/status").set("Cookie", cookie);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("degraded");
    expect(res.body.checks.mail).toEqual({ ok: false, configured: false });
  });

  it("reports a mail server that does not answer", async () => {
    const deadPort = await freePort();
    const deps = testDeps({ config: testConfig({ smtp: { ...testConfig().smtp!, port: deadPort } }) });
    const { app, cookie } = await statusReader({ ...deps, mailer: testDeps({ config: deps.config }).mailer });
    const res = await request(app).get("/status").set("Cookie", cookie);
    expect(res.body.status).toBe("degraded");
    expect(res.body.checks.mail).toEqual({ ok: false, ms: expect.any(Number), error: "unavailable" });
  });

  it("reports Firestore down once its emulator stops, without leaking details", async () => {
    const { port, emulator } = await ownFirestore();
    const store = firestoreAt(`127.0.0.1:${port}`);
    let running: ChildProcess | null = emulator;
    try {
      // The person lives in the store that is about to stop; the cache keeps them once read.
      const { app: probeApp, cookie } = await statusReader(testDeps({ store }));
      expect((await request(probeApp).get("/status").set("Cookie", cookie)).body.checks.firestore.ok).toBe(true);
      await stopped(emulator);
      running = null;
      const res = await request(probeApp).get("/status").set("Cookie", cookie);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("degraded");
      expect(res.body.checks.firestore).toEqual({
        ok: false,
        ms: expect.any(Number),
        error: expect.stringMatching(/^(timeout|unavailable)$/),
      });
    } finally {
      // The probes that timed out are still being retried by the SDK: each query to let land, or
      // one that wakes after the client is closed rejects where nobody listens. GET /status reads
      // the store four times: the ping, and the outbox's backlog (two counts and its oldest entries).
      if (running) {
        await store.terminate();
        await stopped(running);
      } else {
        await retire(store, port, STATUS_QUERIES);
      }
    }
  }, 60_000);

  it("needs the status project", async () => {
    const deps = testDeps();
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const res = await request(appFor(status, deps))
      .get("/status")
      .set("Cookie", await sessionCookieFor(deps, account.uid, person.id));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Forbidden" });
    expect((await request(appFor(status, deps)).get("/status")).status).toBe(401);
  });
});
