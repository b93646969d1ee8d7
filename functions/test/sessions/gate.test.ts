/** The gate: who it lets in by cookie or bearer token, who it refuses, and 503 without the person lookup. */
import type { ChildProcess } from "node:child_process";
import type { Firestore } from "firebase-admin/firestore";
import request from "supertest";
import * as sessions from "../../src/routes/sessions/sessions";
import * as startpage from "../../src/routes/startpage/startpage";
import { signedUp } from "../support/auth";
import { appFor, testDeps } from "../support/deps";
import { accountWithPerson, personFor, sessionCookieFor } from "../support/people";
import { firestoreAt, ownFirestore, frozenNow, relayTo, signal, stopped } from "../support/own-firestore";

/** The refusal table of every gated endpoint, on GET /startpage/notifications (project startpage). */
describe("gated endpoints", () => {
  const deps = testDeps();
  const app = appFor(startpage, deps);
  const get = () => request(app).get("/startpage/notifications");

  it.each([
    ["no credential", {}],
    ["a cookie that does not verify", { Cookie: "__session=garbage" }],
    ["a bearer token that does not verify", { Authorization: "Bearer garbage" }],
    ["a malformed authorization header", { Authorization: "Basic dXNlcjpwYXNz" }],
  ])("answer 401 Unauthorized for %s", async (_label, headers) => {
    const res = await get().set(headers);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized" });
  });

  it("answer 401 Unauthorized to two session cookies at once, even when one is the person's own", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const attacker = await accountWithPerson({ projects: ["startpage"] });
    const own = await sessionCookieFor(deps, account.uid, person.id);
    const tossed = await sessionCookieFor(deps, attacker.account.uid, attacker.person.id);
    const res = await get().set("Cookie", `${tossed}; ${own}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized" });
  });

  it("answer 401 Unauthorized to a session cookie after logout ended it", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    expect((await get().set("Cookie", cookie)).status).toBe(200);
    await request(appFor(sessions, deps)).post("/auth/logout").set("Cookie", cookie).expect(200);
    const res = await get().set("Cookie", cookie);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized" });
  });

  it("answer 403 Forbidden for a verified account with no person record", async () => {
    const account = await signedUp();
    const res = await get().set("Authorization", `Bearer ${account.idToken}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Forbidden" });
  });

  it.each(["pending", "rejected"] as const)(
    "answer 403 Forbidden with reason %s for a person not approved",
    async (status) => {
      const { account, person } = await accountWithPerson({ status, projects: ["*"] });
      for (const credential of [
        { Cookie: await sessionCookieFor(deps, account.uid, person.id) },
        { Authorization: `Bearer ${account.idToken}` },
      ]) {
        const res = await get().set(credential);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: "Forbidden", reason: status });
      }
    },
  );

  it("answer 403 Forbidden for an approved person without the project grant", async () => {
    const { account } = await accountWithPerson({ projects: ["status"] });
    const res = await get().set("Authorization", `Bearer ${account.idToken}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Forbidden" });
  });

  it("let an approved person with the grant in, by cookie or by bearer ID token", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    expect((await get().set("Cookie", await sessionCookieFor(deps, account.uid, person.id))).status).toBe(200);
    expect((await get().set("Authorization", `Bearer ${account.idToken}`)).status).toBe(200);
  });

  it("let an admin in without a grant", async () => {
    const { account } = await accountWithPerson({ role: "admin", projects: [] });
    expect((await get().set("Authorization", `Bearer ${account.idToken}`)).status).toBe(200);
  });

  it("serve a hot session from the per-instance cache, and see a change once it expires", async () => {
    const cached = testDeps();
    const cachedApp = appFor(startpage, cached);
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const cookie = await sessionCookieFor(cached, account.uid, person.id);
    expect((await request(cachedApp).get("/startpage/notifications").set("Cookie", cookie)).status).toBe(200);
    await cached.store.collection("people").doc(person.id).update({ status: "rejected" });
    expect((await request(cachedApp).get("/startpage/notifications").set("Cookie", cookie)).status).toBe(200);
    cached.clock.advance(30_000);
    const res = await request(cachedApp).get("/startpage/notifications").set("Cookie", cookie);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Forbidden", reason: "rejected" });
  });
});

describe("gated endpoints when the person lookup is unavailable", () => {
  const clients: Firestore[] = [];
  const emulators: ChildProcess[] = [];
  const own = async (): Promise<{ port: number; db: Firestore; emulator: ChildProcess }> => {
    const { port, emulator } = await ownFirestore();
    const db = firestoreAt(`127.0.0.1:${port}`);
    emulators.push(emulator);
    clients.push(db);
    return { port, db, emulator };
  };

  const relays: Array<{ close(): Promise<void> }> = [];
  // Clients first, so no retry of theirs outlives the test file.
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.terminate()));
    await Promise.all(relays.map((r) => r.close()));
    await Promise.all(emulators.map((c) => stopped(c)));
  });

  it("answer 503 Authorization unavailable once the Firestore emulator stops, and recover when it is back", async () => {
    const { port, emulator } = await ownFirestore();
    emulators.push(emulator);
    // The instance's client reaches the emulator through a relay, so the emulator started again
    // takes a fresh port of its own rather than the one this one gives back.
    const relay = await relayTo(port);
    relays.push(relay);
    const db = firestoreAt(`127.0.0.1:${relay.port}`);
    clients.push(db);
    const deps = testDeps({ store: db });
    deps.personCache.set = () => {}; // every request reads the store
    const app = appFor(startpage, deps);
    const account = await signedUp();
    const person = await personFor(account, { name: "", projects: ["startpage"] }, db, "down-test");
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    expect((await request(app).get("/startpage/notifications").set("Cookie", cookie)).status).toBe(200);

    await stopped(emulator);
    const down = await request(app).get("/startpage/notifications").set("Cookie", cookie);
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: "Authorization unavailable" });
    expect(Number(down.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(down.headers["set-cookie"]).toBeUndefined();

    // Back again (empty, as a restarted emulator is): the same instance recovers without a restart.
    const again = await ownFirestore();
    emulators.push(again.emulator);
    relay.to(again.port);
    await personFor(account, { name: "", projects: ["startpage"] }, db, "down-test");
    const back = await request(app).get("/startpage/notifications").set("Cookie", cookie);
    expect(back.status).toBe(200);
  }, 90_000);

  it("answer 503 within the request deadline when Firestore freezes after the gate let them in", async () => {
    const { db, emulator } = await own();
    const deps = testDeps({ store: db });
    const app = appFor(startpage, deps, { deadlineMs: 2000 });
    const account = await signedUp();
    const person = await personFor(account, { name: "", projects: ["startpage"] }, db, "freeze-test");
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    // The person is cached now, so the gate needs no read; the notifications query will hang.
    expect((await request(app).get("/startpage/notifications").set("Cookie", cookie)).status).toBe(200);
    signal(emulator, "SIGSTOP");
    try {
      await frozenNow(db);
      const frozen = await request(app).get("/startpage/notifications").set("Cookie", cookie);
      expect(frozen.status).toBe(503);
      expect(frozen.body).toEqual({ error: "Service unavailable" });
      expect(Number(frozen.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    } finally {
      signal(emulator, "SIGCONT");
    }
    expect((await request(app).get("/startpage/notifications").set("Cookie", cookie)).status).toBe(200);
  }, 90_000);

  it("answer 503 Authorization unavailable, with Retry-After, when Firestore freezes before the person is known", async () => {
    const { db, emulator } = await own();
    const deps = testDeps({ store: db });
    deps.personCache.set = () => {}; // every request reads the store
    const app = appFor(startpage, deps);
    const account = await signedUp();
    const person = await personFor(account, { name: "", projects: ["startpage"] }, db, "frozen-lookup");
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    signal(emulator, "SIGSTOP");
    try {
      await frozenNow(db);
      const frozen = await request(app).get("/startpage/notifications").set("Cookie", cookie);
      expect(frozen.status).toBe(503);
      expect(frozen.body).toEqual({ error: "Authorization unavailable" });
      expect(Number(frozen.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    } finally {
      signal(emulator, "SIGCONT");
    }
  }, 90_000);
});
