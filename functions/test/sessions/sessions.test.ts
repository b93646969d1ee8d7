/** The session cookie: POST /auth/verify opens it, refresh and project-access read it, logout ends it. */
import { createServer, connect, type AddressInfo, type Socket } from "node:net";
import { initializeApp } from "firebase-admin/app";
import { getAuth } from "firebase-admin/auth";
import { decodeJwt } from "jose";
import { firebaseIdentity } from "../../src/adapters/identity";
import request from "supertest";
import { DAY, MINUTE, SECOND, systemClock } from "../../src/clock";
import * as sessions from "../../src/routes/sessions/sessions";
import { PERSON_CACHE_TTL_MS } from "../../src/core/people/person-cache";
import { PROJECT_ACCESS_KEPT_MS } from "../../src/core/sessions/sessions";
import * as people from "../../src/store/people";
import { randomPhone, signedInByPhone, signedUp, signInWithCustomToken, signInWithPassword } from "../support/auth";
import { appFor, APP_ORIGIN, auth, firestore, sessionKeyJwk, testConfig, testDeps, unique } from "../support/deps";
import { accountWithPerson, cookieFrom, sessionCookieFor } from "../support/people";

const db = firestore();

describe("POST /auth/verify", () => {
  const deps = testDeps();
  const app = appFor(sessions, deps);
  const verify = (body: unknown) =>
    request(app)
      .post("/auth/verify")
      .send(body as object);

  it.each([
    [{}],
    [{ idToken: "x" }],
    [{ project: "startpage" }],
    [{ idToken: 42, project: "startpage" }],
    [{ idToken: "x", project: "" }],
  ])("answers 400 when a field is missing or not a string: %j", async (body) => {
    const res = await verify(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "idToken and project required", reason: "fields_required" });
  });

  it.each([
    ['{"idToken":"%s","project":"startpage","isAdmin":true}', "isAdmin"],
    ['{"idToken":"%s","project":"startpage","__proto__":{"role":"admin"}}', "__proto__"],
  ])("refuses a body with a field it does not take (%s), and opens no session", async (body, field) => {
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const res = await request(app)
      .post("/auth/verify")
      .set("Content-Type", "application/json")
      .send(body.replace("%s", account.idToken));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: `Unknown field: ${field}`, reason: "unknown_field" });
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("refuses a body declared as another JSON type (application/vnd.evil+json) with 415", async () => {
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const res = await request(app)
      .post("/auth/verify")
      .set("Content-Type", "application/vnd.evil+json")
      .send(JSON.stringify({ idToken: account.idToken, project: "startpage" }));
    expect(res.status).toBe(415);
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("answers 401 for a token that does not verify", async () => {
    const res = await verify({ idToken: "not-a-token", project: "startpage" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Invalid token", reason: "invalid_token" });
  });

  it("refuses a sign-in older than five minutes with 401 and no cookie, and accepts one just inside", async () => {
    const clockDeps = testDeps();
    const clockApp = appFor(sessions, clockDeps);
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    clockDeps.clock.advance(50 * MINUTE);
    const stale = await request(clockApp).post("/auth/verify").send({ idToken: account.idToken, project: "startpage" });
    expect(stale.status).toBe(401);
    expect(stale.body).toEqual({ error: "Sign-in is too old; please sign in again", reason: "sign_in_too_old" });
    expect(stale.headers["set-cookie"]).toBeUndefined();

    const fresh = await accountWithPerson({ projects: ["startpage"] });
    const inside = testDeps();
    inside.clock.advance(4 * MINUTE);
    const ok = await request(appFor(sessions, inside))
      .post("/auth/verify")
      .send({ idToken: fresh.account.idToken, project: "startpage" });
    expect(ok.status).toBe(200);
  });

  it("creates a pending person for a sign-in nobody knows, and sets no cookie", async () => {
    const account = await signedUp({ name: "New Person" });
    const res = await verify({ idToken: account.idToken, project: "startpage" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ approved: false, reason: "pending" });
    expect(res.headers["set-cookie"]).toBeUndefined();
    const person = await people.findByUid(db, account.uid);
    expect(person).toMatchObject({
      status: "pending",
      role: "user",
      projects: [],
      emails: [account.email],
      name: "New Person",
    });
  });

  it("opens a session for an approved person with the grant", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"], groups: ["staff"], name: "Ada" });
    // eslint-disable-next-line no-restricted-syntax -- Express dates the cookie by the machine's clock
    const sentAt = Date.now();
    const res = await verify({ idToken: account.idToken, project: "startpage" });
    // eslint-disable-next-line no-restricted-syntax -- as above
    const answeredAt = Date.now();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      approved: true,
      uid: account.uid,
      personId: person.id,
      email: account.email,
      name: "Ada",
      role: "user",
      projects: ["startpage"],
      groups: ["staff"],
    });
    const cookie = (res.headers["set-cookie"] as unknown as string[])[0] ?? "";
    expect(cookie).toMatch(
      /^__session=[^;]+; Max-Age=1209600; Domain=example\.test; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/,
    );
    // Express writes Expires as the moment it answers plus Max-Age, by the machine's clock (the
    // test's own clock stands still), to the second.
    const expires = new Date(/Expires=([^;]+)/.exec(cookie)?.[1] ?? "").getTime();
    expect(expires).toBeGreaterThan(sentAt + 14 * DAY - 1000);
    expect(expires).toBeLessThanOrEqual(answeredAt + 14 * DAY);
    expect(res.headers["cache-control"]).toBe("private, no-store");
  });

  it.each([
    ["an email code", ["otp"]],
    ["a bridge", ["fed"]],
  ])("records how the person signed in (%s) in the session, from the custom token's claim", async (_how, amr) => {
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const idToken = await signInWithCustomToken(await auth().createCustomToken(account.uid, { sign_in_methods: amr }));
    const res = await verify({ idToken, project: "startpage" });
    expect(res.status).toBe(200);
    const token = (cookieFrom(res.headers["set-cookie"]) as string).slice("__session=".length);
    expect(decodeJwt(token).amr).toEqual(amr);
    expect((await deps.tokens.verify(token, deps.clock.now()))?.amr).toEqual(amr);
  });

  it("records a password sign-in at the identity provider as pwd, and one it cannot name as nothing", async () => {
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const byPassword = await verify({ idToken: account.idToken, project: "startpage" });
    const passwordToken = (cookieFrom(byPassword.headers["set-cookie"]) as string).slice("__session=".length);
    expect(decodeJwt(passwordToken).amr).toEqual(["pwd"]);
    const bare = await signInWithCustomToken(await auth().createCustomToken(account.uid));
    const byCustom = await verify({ idToken: bare, project: "startpage" });
    const customToken = (cookieFrom(byCustom.headers["set-cookie"]) as string).slice("__session=".length);
    expect(decodeJwt(customToken).amr).toBeUndefined();
  });

  it("records when the person authenticated (the ID token's auth_time), not when the cookie was set", async () => {
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const start = deps.clock.now();
    // From the real now: the file's clock stands where its first test began, and the Auth
    // emulator stamped the token with the real time, as much later as the file's tests took.
    deps.clock.set(systemClock.now());
    deps.clock.advance(4 * 60 * SECOND); // still a recent sign-in (STEP_UP_MS)
    try {
      const res = await verify({ idToken: account.idToken, project: "startpage" });
      const session = decodeJwt(cookieFrom(res.headers["set-cookie"])?.slice("__session=".length) ?? "");
      expect(session.auth_time).toBe(decodeJwt(account.idToken).auth_time);
      expect(session.iat).toBe(Math.floor(deps.clock.now().getTime() / 1000));
      expect(Number(session.iat) - Number(session.auth_time)).toBeGreaterThanOrEqual(4 * 60 - 5);
    } finally {
      deps.clock.set(start);
    }
  });

  it.each([
    ["pending", { status: "pending" as const, projects: ["*"] }],
    ["rejected", { status: "rejected" as const, projects: ["*"] }],
    ["no_project_access", { status: "approved" as const, projects: ["status"] }],
  ])("refuses with reason %s and no cookie", async (reason, fields) => {
    const { account } = await accountWithPerson(fields);
    const res = await verify({ idToken: account.idToken, project: "startpage" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ approved: false, reason });
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("opens a session for the identity host's own pages (project account) to an approved person with no grants", async () => {
    const { account, person } = await accountWithPerson({ projects: [] });
    const res = await verify({ idToken: account.idToken, project: "account" });
    expect(res.body).toMatchObject({ approved: true, personId: person.id, projects: [] });
    expect(cookieFrom(res.headers["set-cookie"])).not.toBeNull();
  });

  it("grants every project to the wildcard and to admins", async () => {
    for (const fields of [{ projects: ["*"] }, { role: "admin" as const, projects: [] }]) {
      const { account } = await accountWithPerson(fields);
      const res = await verify({ idToken: account.idToken, project: "status" });
      expect(res.body.approved).toBe(true);
    }
  });

  it("refuses a phone-only sign-in whose number is on no account, creating nobody", async () => {
    const phone = randomPhone();
    const { uid, idToken } = await signedInByPhone(phone);
    const res = await verify({ idToken, project: "startpage" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ approved: false, reason: "phone_not_linked", error: expect.any(String) });
    expect(await people.findByUid(db, uid)).toBeNull();
    expect(await people.findByPhone(db, phone)).toBeNull();
  });

  it("resolves a phone-only sign-in to the person who carries the number, and links the account", async () => {
    const phone = randomPhone();
    const { person } = await accountWithPerson({ phones: [phone], projects: ["startpage"] });
    const { uid, idToken } = await signedInByPhone(phone);
    const res = await verify({ idToken, project: "startpage" });
    expect(res.body).toMatchObject({ approved: true, uid, personId: person.id });
    expect((await people.findById(db, person.id))?.uids).toEqual([...person.uids, uid]);
  });

  it("links a new account with a verified address to the person holding that address", async () => {
    const { person } = await accountWithPerson({ projects: ["startpage"] });
    const email = person.emails[0] as string;
    // A second account for the same address, e.g. a different sign-in method.
    await auth().deleteUser(person.uids[0] as string);
    const other = await signedUp({ email: email.toUpperCase() });
    const res = await verify({ idToken: other.idToken, project: "startpage" });
    expect(res.body).toMatchObject({ approved: true, personId: person.id, uid: other.uid });
  });

  it("never links by an unverified address: the account becomes a separate pending person", async () => {
    const { person } = await accountWithPerson({ projects: ["*"] });
    const email = person.emails[0] as string;
    await auth().deleteUser(person.uids[0] as string);
    const squatter = await signedUp({ email, verified: false });
    const res = await verify({ idToken: squatter.idToken, project: "startpage" });
    expect(res.body).toEqual({ approved: false, reason: "pending" });
    const created = await people.findByUid(db, squatter.uid);
    expect(created?.id).not.toBe(person.id);
    expect(created?.emails).toEqual([]);
  });

  it("refuses the token of a disabled account", async () => {
    const { account } = await accountWithPerson({ projects: ["*"] });
    await auth().updateUser(account.uid, { disabled: true });
    const res = await verify({ idToken: account.idToken, project: "startpage" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Invalid token", reason: "invalid_token" });
  });

  it("refuses a token issued before the account's tokens were revoked", async () => {
    const { account } = await accountWithPerson({ projects: ["*"] });
    // Revocation has one-second resolution: make sure the token is strictly older.
    await new Promise((r) => setTimeout(r, 1100));
    await auth().revokeRefreshTokens(account.uid);
    const res = await verify({ idToken: account.idToken, project: "startpage" });
    expect(res.status).toBe(401);
    const fresh = await signInWithPassword(account.email, account.password);
    expect((await verify({ idToken: fresh, project: "startpage" })).body.approved).toBe(true);
  });

  it("creates exactly one person when 20 first sign-ins of one account race", async () => {
    const account = await signedUp();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => verify({ idToken: account.idToken, project: "startpage" })),
    );
    // Every one decided is the one person, pending (a sign-in that outlasted the contention retries is told to retry).
    const decided = answers.filter((a) => a.status !== 503);
    expect(decided.length).toBeGreaterThan(answers.length / 2);
    expect(decided.map((a) => [a.status, a.body.reason])).toEqual(Array(decided.length).fill([200, "pending"]));
    for (const a of answers.filter((a) => a.status === 503))
      expect(Number(a.headers["retry-after"])).toBeGreaterThan(0);
    const stored = await db.collection("people").where("uids", "array-contains", account.uid).get();
    expect(stored.size).toBe(1);
    const byEmail = await db.collection("people").where("emails", "array-contains", account.email).get();
    expect(byEmail.size).toBe(1);
  });

  it("refuses a sign-in posted from a foreign origin before it takes effect (login CSRF)", async () => {
    const account = await signedUp();
    const res = await request(app)
      .post("/auth/verify")
      .set("Origin", "https://evil.test")
      .send({ idToken: account.idToken, project: "startpage" });
    expect(res.status).toBe(403);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(await people.findByUid(db, account.uid)).toBeNull();
  });
});

describe("POST /auth/session/refresh", () => {
  const deps = testDeps();
  const app = appFor(sessions, deps);
  const refresh = (cookie?: string) => {
    const req = request(app).post("/auth/session/refresh");
    return cookie ? req.set("Cookie", cookie) : req;
  };

  it("reports the person for a valid cookie, with X-Remote-User, and sets no cookie", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"], name: "Ada" });
    const res = await refresh(await sessionCookieFor(deps, account.uid, person.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      authenticated: true,
      uid: account.uid,
      personId: person.id,
      email: account.email,
      name: "Ada",
      role: "user",
      projects: ["startpage"],
      groups: [],
    });
    expect(res.headers["x-remote-user"]).toBe(account.email);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.headers["cache-control"]).toBe("private, no-store");
  });

  it("accepts the cookie POST /auth/verify set", async () => {
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const verified = await request(app).post("/auth/verify").send({ idToken: account.idToken, project: "startpage" });
    const res = await refresh(cookieFrom(verified.headers["set-cookie"]) ?? "");
    expect(res.status).toBe(200);
    expect(res.body.uid).toBe(account.uid);
  });

  it.each([
    ["no cookie", undefined],
    ["an empty cookie", "__session="],
    ["garbage", "__session=garbage"],
    ["a forged token", "__session=eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."],
  ])("answers 401 authenticated false for %s", async (_label, cookie) => {
    const res = await refresh(cookie);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ authenticated: false });
  });

  it("does not accept an ID token presented as the cookie", async () => {
    const { account } = await accountWithPerson({ projects: ["*"] });
    const res = await refresh(`__session=${account.idToken}`);
    expect(res.status).toBe(401);
  });

  it("honours the cookie for 14 days and not a second longer", async () => {
    const clockDeps = testDeps();
    const clockApp = appFor(sessions, clockDeps);
    const { account, person } = await accountWithPerson({ projects: ["*"] });
    const cookie = await sessionCookieFor(clockDeps, account.uid, person.id);
    clockDeps.clock.advance(14 * DAY - SECOND);
    expect((await request(clockApp).post("/auth/session/refresh").set("Cookie", cookie)).status).toBe(200);
    clockDeps.clock.advance(SECOND);
    expect((await request(clockApp).post("/auth/session/refresh").set("Cookie", cookie)).status).toBe(401);
  });

  it("refuses a token signed with the service's own key that claims to live longer than 14 days", async () => {
    const { account, person } = await accountWithPerson({ projects: ["*"] });
    const now = deps.clock.now();
    const claims = { uid: account.uid, personId: person.id, sessionId: deps.random.token(16), authTime: now, amr: [] };
    const yearLong = await deps.tokens.issue(claims, now, 365 * DAY);
    expect((await refresh(`__session=${yearLong.token}`)).status).toBe(401);
    const contractLong = await deps.tokens.issue(claims, now, 14 * DAY);
    expect((await refresh(`__session=${contractLong.token}`)).status).toBe(200);
  });

  it("still accepts the provider's older session cookie", async () => {
    const { account, person } = await accountWithPerson({ projects: ["*"] });
    const legacy = await auth().createSessionCookie(account.idToken, { expiresIn: 14 * DAY });
    const res = await refresh(`__session=${legacy}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ authenticated: true, uid: account.uid, personId: person.id });
  });

  it("accepts tokens of a key still in the ring after rotation, and refuses a key that left it", async () => {
    const oldKey = sessionKeyJwk("old");
    const newKey = sessionKeyJwk("new");
    const before = testDeps({ config: testConfig({ sessionKeys: JSON.stringify([oldKey]) }) });
    const rotated = testDeps({ config: testConfig({ sessionKeys: JSON.stringify([newKey, oldKey]) }) });
    const retired = testDeps({ config: testConfig({ sessionKeys: JSON.stringify([newKey]) }) });
    const { account, person } = await accountWithPerson({ projects: ["*"] });
    const cookie = await sessionCookieFor(before, account.uid, person.id);
    expect((await request(appFor(sessions, rotated)).post("/auth/session/refresh").set("Cookie", cookie)).status).toBe(
      200,
    );
    expect((await request(appFor(sessions, retired)).post("/auth/session/refresh").set("Cookie", cookie)).status).toBe(
      401,
    );
  });

  it("stops honouring a session once its person is rejected", async () => {
    const { account, person } = await accountWithPerson({ projects: ["*"] });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    expect((await refresh(cookie)).status).toBe(200);
    await db.collection("people").doc(person.id).update({ status: "rejected" });
    deps.personCache.evict(person.id);
    expect((await refresh(cookie)).status).toBe(401);
  });
});

describe("POST /auth/project-access", () => {
  const deps = testDeps();
  const app = appFor(sessions, deps);

  it("records that the person reached the project", async () => {
    const { account, person } = await accountWithPerson({ projects: ["*"] });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    for (let i = 0; i < 2; i++) {
      const res = await request(app).post("/auth/project-access").set("Cookie", cookie).send({ project: "startpage" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
    }
    const stored = await db.collection("projectAccess").doc(`${person.id}_startpage`).get();
    expect(stored.get("count")).toBe(2);
    expect(stored.get("project")).toBe("startpage");
    // Forgotten a year after it was last reached.
    expect(stored.get("forgetAfter").toMillis() - stored.get("lastAt").toMillis()).toBe(PROJECT_ACCESS_KEPT_MS);
  });

  it("answers 400 missing params without a cookie or without a project", async () => {
    const { account, person } = await accountWithPerson();
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    for (const req of [
      request(app).post("/auth/project-access").send({ project: "startpage" }),
      request(app).post("/auth/project-access").set("Cookie", cookie).send({}),
    ]) {
      const res = await req;
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "missing params" });
    }
  });

  it("answers 401 Unauthorized for a cookie that does not verify", async () => {
    const res = await request(app)
      .post("/auth/project-access")
      .set("Cookie", "__session=garbage")
      .send({ project: "startpage" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized" });
  });
});

describe("POST /auth/logout", () => {
  const logoutDeps = testDeps();
  const app = appFor(sessions, logoutDeps);

  it("ends the session it is sent: a copy of the cookie is refused afterwards, here and on another instance", async () => {
    const deps = testDeps();
    const here = appFor(sessions, deps);
    const elsewhere = testDeps();
    const other = appFor(sessions, elsewhere);
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const verified = await request(here).post("/auth/verify").send({ idToken: account.idToken, project: "startpage" });
    const cookie = cookieFrom(verified.headers["set-cookie"]) as string;
    expect((await request(here).post("/auth/session/refresh").set("Cookie", cookie)).status).toBe(200);
    expect((await request(other).post("/auth/session/refresh").set("Cookie", cookie)).status).toBe(200);

    const out = await request(here).post("/auth/logout").set("Cookie", cookie);
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ ok: true });

    const replayed = await request(here).post("/auth/session/refresh").set("Cookie", cookie);
    expect(replayed.status).toBe(401);
    expect(replayed.body).toEqual({ authenticated: false });
    expect((await request(here).post("/auth/project-access").set("Cookie", cookie).send({ project: "x" })).status).toBe(
      401,
    );
    // Another instance holds the person for PERSON_CACHE_TTL_MS at most.
    elsewhere.clock.advance(PERSON_CACHE_TTL_MS);
    expect((await request(other).post("/auth/session/refresh").set("Cookie", cookie)).status).toBe(401);
  });

  it("leaves the person's sessions in other browsers alone", async () => {
    const deps = testDeps();
    const here = appFor(sessions, deps);
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const laptop = await sessionCookieFor(deps, account.uid, person.id);
    const phone = await sessionCookieFor(deps, account.uid, person.id);
    expect((await request(here).post("/auth/logout").set("Cookie", laptop)).status).toBe(200);
    expect((await request(here).post("/auth/session/refresh").set("Cookie", laptop)).status).toBe(401);
    expect((await request(here).post("/auth/session/refresh").set("Cookie", phone)).status).toBe(200);
  });

  it("ends the provider's older session cookie too", async () => {
    const deps = testDeps();
    const here = appFor(sessions, deps);
    const { account } = await accountWithPerson({ projects: ["*"] });
    const legacy = `__session=${await auth().createSessionCookie(account.idToken, { expiresIn: 14 * DAY })}`;
    expect((await request(here).post("/auth/session/refresh").set("Cookie", legacy)).status).toBe(200);
    expect((await request(here).post("/auth/logout").set("Cookie", legacy)).status).toBe(200);
    expect((await request(here).post("/auth/session/refresh").set("Cookie", legacy)).status).toBe(401);
  });

  it("forgets ended sessions once they would have expired anyway", async () => {
    const deps = testDeps();
    const here = appFor(sessions, deps);
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const first = await sessionCookieFor(deps, account.uid, person.id);
    await request(here).post("/auth/logout").set("Cookie", first).expect(200);
    expect(Object.keys((await people.findById(db, person.id))?.endedSessions ?? {})).toHaveLength(1);
    deps.clock.advance(14 * DAY);
    const second = await sessionCookieFor(deps, account.uid, person.id);
    await request(here).post("/auth/logout").set("Cookie", second).expect(200);
    expect(Object.keys((await people.findById(db, person.id))?.endedSessions ?? {})).toHaveLength(1);
  });

  it("answers 200 ok and clears the cookie on the parent domain", async () => {
    const res = await request(app).post("/auth/logout").set("Cookie", "__session=anything");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(res.headers["set-cookie"]?.[0]).toBe(
      "__session=; Domain=example.test; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax",
    );
  });

  it("answers 200 whatever is sent, even a body that is not JSON", async () => {
    const res = await request(app).post("/auth/logout").set("Content-Type", "application/json").send("{not json");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });

  it.each([
    ["a foreign origin", { Origin: "https://evil.example" }],
    ["a sibling host that is not one of the allowed origins", { Origin: "https://x.example.test" }],
    ["a browser that sent no Origin but says the request crossed sites", { "Sec-Fetch-Site": "cross-site" }],
    ["a browser that sent no Origin but says it came from a sibling host", { "Sec-Fetch-Site": "same-site" }],
  ])("refuses %s with 403, and the session lives on", async (_label, headers) => {
    const { account, person } = await accountWithPerson({ projects: ["*"] });
    const cookie = await sessionCookieFor(logoutDeps, account.uid, person.id);
    const res = await request(app).post("/auth/logout").set(headers).set("Cookie", cookie);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Origin not allowed" });
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    logoutDeps.personCache.evict(person.id);
    expect((await request(app).post("/auth/session/refresh").set("Cookie", cookie)).status).toBe(200);
  });

  it("ends the session when the identity host itself asks (same-origin)", async () => {
    const { account, person } = await accountWithPerson({ projects: ["*"] });
    const cookie = await sessionCookieFor(logoutDeps, account.uid, person.id);
    const res = await request(app)
      .post("/auth/logout")
      .set({ Origin: "https://id.example.test", "Sec-Fetch-Site": "same-origin" })
      .set("Cookie", cookie);
    expect(res.status).toBe(200);
    expect((await request(app).post("/auth/session/refresh").set("Cookie", cookie)).status).toBe(401);
  });

  it("allows an allowed origin with credentials", async () => {
    const res = await request(app).post("/auth/logout").set("Origin", APP_ORIGIN);
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(APP_ORIGIN);
    expect(res.headers["access-control-allow-credentials"]).toBe("true");
  });
});

/** A real path to the Auth emulator that the test can cut: a TCP relay in front of it. */
async function relayToAuthEmulator(): Promise<{ host: string; cut: () => Promise<void> }> {
  const [targetHost, targetPort] = (process.env.FIREBASE_AUTH_EMULATOR_HOST as string).split(":");
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(targetPort), targetHost as string);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => s.destroy());
      s.on("close", () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    cut: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("POST /auth/verify when what it depends on fails", () => {
  it("answers 503 with Retry-After, and no cookie, when the identity provider cannot be reached", async () => {
    const relay = await relayToAuthEmulator();
    const saved = process.env.FIREBASE_AUTH_EMULATOR_HOST;
    process.env.FIREBASE_AUTH_EMULATOR_HOST = relay.host;
    // The provider's client reads its host when it is made.
    const relayed = getAuth(initializeApp({ projectId: process.env.GCLOUD_PROJECT }, unique("relayed")));
    process.env.FIREBASE_AUTH_EMULATOR_HOST = saved;
    const app = appFor(sessions, testDeps({ identity: firebaseIdentity(relayed) }));
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const body = { idToken: account.idToken, project: "startpage" };
    expect((await request(app).post("/auth/verify").send(body)).status).toBe(200);

    await relay.cut();
    const down = await request(app).post("/auth/verify").send(body);
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: "Service unavailable" });
    expect(down.headers["retry-after"]).toBe("1");
    expect(down.headers["set-cookie"]).toBeUndefined();
  });

  it("answers 503 when Firestore gives up on contention (ABORTED), and writes nothing", async () => {
    // Contention that outlasts the client's retries cannot be produced on demand: this runner
    // answers as Firestore does when it happens.
    const aborted = Object.assign(new Error("10 ABORTED: Too much contention on these documents."), { code: 10 });
    const app = appFor(
      sessions,
      testDeps({
        transaction: async () => {
          throw aborted;
        },
      }),
    );
    const account = await signedUp();
    const res = await request(app).post("/auth/verify").send({ idToken: account.idToken, project: "startpage" });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: "Service unavailable" });
    expect(await people.findByUid(db, account.uid)).toBeNull();
  });
});
