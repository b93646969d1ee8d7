/** People administration over HTTP: a person's way in; listing, reading and changing people and passkeys. */
import request from "supertest";
import { SECOND } from "../../src/clock";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessions from "../../src/routes/sessions/sessions";
import * as startpage from "../../src/routes/startpage/startpage";
import * as people from "../../src/store/people";
import { adminCookie } from "../support/admin";
import { SoftwareAuthenticator } from "../support/authenticator";
import { newBrowser, passkeyWorld } from "../support/passkeys";
import { randomPhone, signedUp, signInWithPassword } from "../support/auth";
import { appFor, auth, firestore, testDeps, unique } from "../support/deps";
import { accountWithPerson, cookieFrom, sessionCookieFor } from "../support/people";

const deps = testDeps();
const sessionsApp = appFor(sessions, deps);
const peopleApp = appFor(peopleRoutes, deps);
const startpageApp = appFor(startpage, deps);
const db = firestore();

let admin: string;
beforeAll(async () => {
  admin = await adminCookie(sessionsApp);
});

describe("a person's way in", () => {
  it("signs up, waits, is approved by the admin, signs in, reaches the start page and signs out", async () => {
    const account = await signedUp({ name: "Grace" });
    const first = await request(sessionsApp)
      .post("/auth/verify")
      .send({ idToken: account.idToken, project: "startpage" });
    expect(first.body).toEqual({ approved: false, reason: "pending" });

    const listed = await request(peopleApp).get("/auth/people").query({ email: account.email }).set("Cookie", admin);
    expect(listed.status).toBe(200);
    expect(listed.body.people).toHaveLength(1);
    const personId = listed.body.people[0].personId as string;
    expect(listed.body.people[0]).toMatchObject({ status: "pending", email: account.email, uid: account.uid });

    const approved = await request(peopleApp)
      .patch(`/auth/people/${personId}`)
      .set("Cookie", admin)
      .send({ status: "approved", projects: ["startpage"] });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      personId,
      status: "approved",
      projects: ["startpage"],
      providerSyncErrors: [],
    });

    const second = await request(sessionsApp)
      .post("/auth/verify")
      .send({ idToken: account.idToken, project: "startpage" });
    expect(second.body).toMatchObject({ approved: true, personId, name: "Grace" });
    const cookie = cookieFrom(second.headers["set-cookie"]) as string;

    const refreshed = await request(sessionsApp).post("/auth/session/refresh").set("Cookie", cookie);
    expect(refreshed.body).toMatchObject({ authenticated: true, personId });

    const notices = await request(startpageApp).get("/startpage/notifications").set("Cookie", cookie);
    expect(notices.status).toBe(200);

    const out = await request(sessionsApp).post("/auth/logout").set("Cookie", cookie);
    expect(out.body).toEqual({ ok: true });
    expect(cookieFrom(out.headers["set-cookie"])).toBeNull();
  });
});

describe("GET /auth/people", () => {
  it("filters by address and status", async () => {
    const { person } = await accountWithPerson({ status: "rejected" });
    const email = person.emails[0] as string;
    const both = await request(peopleApp)
      .get("/auth/people")
      .query({ email: email.toUpperCase(), status: "rejected" })
      .set("Cookie", admin);
    expect(both.body.people.map((p: { personId: string }) => p.personId)).toEqual([person.id]);
    const wrongStatus = await request(peopleApp)
      .get("/auth/people")
      .query({ email, status: "approved" })
      .set("Cookie", admin);
    expect(wrongStatus.body.people).toEqual([]);
  });

  it("answers 400 for a filter that cannot match anything", async () => {
    const res = await request(peopleApp).get("/auth/people").query({ status: "maybe" }).set("Cookie", admin);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(["error"]);
  });

  it("refuses a person who is not an admin, and a bearer token even of an admin", async () => {
    const { account, person } = await accountWithPerson({ projects: ["*"] });
    const asUser = await request(peopleApp)
      .get("/auth/people")
      .set("Cookie", await sessionCookieFor(deps, account.uid, person.id));
    expect(asUser.status).toBe(403);
    expect(asUser.body).toEqual({ error: "Forbidden" });
    const adminToken = await signInWithPassword("admin@example.test", "admin-password");
    const bearer = await request(peopleApp).get("/auth/people").set("Authorization", `Bearer ${adminToken}`);
    expect(bearer.status).toBe(401);
  });
});

describe("GET /auth/people/:personId", () => {
  it("answers the person, or 404 Person not found", async () => {
    const { person } = await accountWithPerson();
    const found = await request(peopleApp).get(`/auth/people/${person.id}`).set("Cookie", admin);
    expect(found.body).toMatchObject({
      personId: person.id,
      uids: person.uids,
      emails: person.emails,
      status: "approved",
    });
    const missing = await request(peopleApp)
      .get(`/auth/people/${unique("nobody")}`)
      .set("Cookie", admin);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: "Person not found" });
  });

  it.each(["a%2Fb", "__x__", "%2F"])("answers 404 Person not found for an id no document can have: %s", async (id) => {
    for (const res of [
      await request(peopleApp).get(`/auth/people/${id}`).set("Cookie", admin),
      await request(peopleApp).patch(`/auth/people/${id}`).set("Cookie", admin).send({ status: "approved" }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Person not found" });
    }
  });
});

describe("PATCH /auth/people/:personId", () => {
  const patch = (personId: string, body: unknown) =>
    request(peopleApp)
      .patch(`/auth/people/${personId}`)
      .set("Cookie", admin)
      .send(body as object);

  it("changes every field it accepts, canonicalising addresses", async () => {
    const { person } = await accountWithPerson();
    const phone = randomPhone();
    const email = `${unique()}@Example.TEST`;
    const res = await patch(person.id, {
      role: "admin",
      projects: ["status", "status"],
      groups: ["ops"],
      name: "Renamed",
      emails: [email],
      phones: [phone],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      role: "admin",
      projects: ["status"],
      groups: ["ops"],
      name: "Renamed",
      emails: [email.toLowerCase()],
      phones: [phone],
      providerSyncErrors: [],
    });
    expect((await people.findByEmail(db, email.toLowerCase()))?.id).toBe(person.id);
    expect(await people.findByEmail(db, person.emails[0] as string)).toBeNull();
  });

  it.each([
    [{}],
    [{ status: "maybe" }],
    [{ emails: ["not an address"] }],
    [{ phones: ["555-1234"] }],
    [{ uid: "x" }],
    [{ projects: "startpage" }],
  ])("answers 400 for %j", async (body) => {
    const { person } = await accountWithPerson();
    const res = await patch(person.id, body);
    expect(res.status).toBe(400);
    // The general shape; a field the endpoint does not take also says so (reason unknown_field).
    expect(res.body).toEqual(
      "uid" in body ? { error: "Unknown field: uid", reason: "unknown_field" } : { error: expect.any(String) },
    );
  });

  it("answers 409 when an address is on another person, and changes nothing", async () => {
    const { person: holder } = await accountWithPerson();
    const { person } = await accountWithPerson();
    const res = await patch(person.id, { emails: [holder.emails[0]], name: "Should not stick" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect((await people.findById(db, person.id))?.name).toBe(person.name);
  });

  it("gives a contested address to exactly one of two concurrent changes", async () => {
    const [{ person: a }, { person: b }] = await Promise.all([accountWithPerson(), accountWithPerson()]);
    const email = `${unique()}@example.test`;
    const answers = await Promise.all([patch(a.id, { emails: [email] }), patch(b.id, { emails: [email] })]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const holders = await db.collection("people").where("emails", "array-contains", email).get();
    expect(holders.size).toBe(1);
  });

  it("revokes the person's provider sessions when access is taken away", async () => {
    const { account, person } = await accountWithPerson({ projects: ["*"] });
    await new Promise((r) => setTimeout(r, 1100));
    const res = await patch(person.id, { status: "rejected" });
    expect(res.body.providerSyncErrors).toEqual([]);
    await expect(auth().verifyIdToken(account.idToken, true)).rejects.toMatchObject({ code: "auth/id-token-revoked" });
  });

  it("leaves a waiting person signed in when an administrator renames them, and ends their sessions when they are turned down", async () => {
    const { account, person } = await accountWithPerson({ status: "pending" });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await patch(person.id, { name: "Renamed while waiting" })).status).toBe(200);
    await expect(auth().verifyIdToken(account.idToken, true)).resolves.toMatchObject({ uid: account.uid });
    expect((await patch(person.id, { status: "rejected" })).status).toBe(200);
    await expect(auth().verifyIdToken(account.idToken, true)).rejects.toMatchObject({ code: "auth/id-token-revoked" });
  });

  it("ends an approved person's sessions when a group is taken away", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"], groups: ["family"] });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await patch(person.id, { groups: [] })).status).toBe(200);
    await expect(auth().verifyIdToken(account.idToken, true)).rejects.toMatchObject({ code: "auth/id-token-revoked" });
  });

  it("has nothing to end for an account the provider no longer holds", async () => {
    const { account, person } = await accountWithPerson({ projects: ["*"] });
    await auth().deleteUser(account.uid);
    const res = await patch(person.id, { status: "rejected" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "rejected", providerSyncErrors: [] });
  });

  it("keeps the change and lists the failure when the provider cannot be updated", async () => {
    const { account, person } = await accountWithPerson({ projects: ["*"] });
    // The provider refusing is not something the emulator can be made to do: a stand-in refuses.
    const refusing = appFor(
      peopleRoutes,
      testDeps({
        identity: {
          ...deps.identity,
          revokeSessions: () => Promise.reject(new Error("the provider is unavailable")),
        },
      }),
    );
    const res = await request(refusing)
      .patch(`/auth/people/${person.id}`)
      .set("Cookie", admin)
      .send({ status: "rejected" });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("rejected");
    expect(res.body.providerSyncErrors).toEqual([
      { uid: account.uid, operation: "revoke_sessions", error: expect.any(String) },
    ]);
    expect((await people.findById(db, person.id))?.status).toBe("rejected");
  });

  it("answers 404 for a person who does not exist", async () => {
    const res = await patch(unique("nobody"), { status: "approved" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Person not found" });
  });
});

describe("a person's passkeys, for an administrator: /auth/people/:personId/passkeys", () => {
  const w = passkeyWorld(deps);

  it("lists them, and removes them all, after which none signs in", async () => {
    const { person, authenticator, browser } = await w.withPasskey();
    // A second later: listed in the order they were added, not the order a query returns.
    w.deps.clock.advance(SECOND);
    await w.register(browser, new SoftwareAuthenticator(), {}, "Second");
    const listed = await request(peopleApp).get(`/auth/people/${person.id}/passkeys`).set("Cookie", admin);
    expect(listed.body.passkeys.map((p: { name: string }) => p.name)).toEqual(["Passkey", "Second"]);
    const removed = await request(peopleApp).delete(`/auth/people/${person.id}/passkeys`).set("Cookie", admin);
    expect([removed.status, removed.body]).toEqual([200, { removed: 2 }]);
    expect((await w.signIn(newBrowser(), authenticator)).status).toBe(401);
    const after = await request(peopleApp).get(`/auth/people/${person.id}/passkeys`).set("Cookie", admin);
    expect(after.body).toEqual({ passkeys: [] });
  });

  it("removes one, and only a passkey of that person", async () => {
    const { person, passkeyId } = await w.withPasskey();
    const other = await w.withPasskey();
    const wrong = await request(peopleApp)
      .delete(`/auth/people/${person.id}/passkeys/${other.passkeyId}`)
      .set("Cookie", admin);
    expect([wrong.status, wrong.body]).toEqual([404, { error: "Passkey not found" }]);
    const right = await request(peopleApp)
      .delete(`/auth/people/${person.id}/passkeys/${passkeyId}`)
      .set("Cookie", admin);
    expect([right.status, right.body]).toEqual([200, { removed: 1 }]);
    expect((await w.signIn(newBrowser(), other.authenticator)).status).toBe(200);
  });

  it("refuses anyone but an administrator, and answers 404 for a person who does not exist", async () => {
    const { person, browser } = await w.withPasskey();
    const self = await request(peopleApp).delete(`/auth/people/${person.id}/passkeys`).set("Cookie", browser.session);
    expect(self.status).toBe(403);
    expect((await db.collection("passkeys").where("personId", "==", person.id).get()).size).toBe(1);
    const nobody = await request(peopleApp)
      .delete(`/auth/people/${unique("nobody")}/passkeys`)
      .set("Cookie", admin);
    expect([nobody.status, nobody.body]).toEqual([404, { error: "Person not found" }]);
  });
});
