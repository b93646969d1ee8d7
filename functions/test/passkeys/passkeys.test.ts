/**
 * Passkeys through HTTP (the passkeys function's app, on the emulators), with a software
 * authenticator standing in for the person's device: registration on a recent session, sign-in
 * bound to the browser, and every check an assertion must pass, each shown to refuse.
 */
import request from "supertest";
import { decodeJwt } from "jose";
import { MINUTE, SECOND } from "../../src/clock";
import { sha256 } from "../../src/core/secrets";
import * as sessions from "../../src/routes/sessions/sessions";
import { signInWithCustomToken } from "../support/auth";
import { SoftwareAuthenticator, type SoftwarePasskey } from "../support/authenticator";
import { appFor, firestore, testDeps } from "../support/deps";
import { newBrowser, passkeyWorld as world } from "../support/passkeys";
import { cookieFrom, sessionCookieFor } from "../support/people";
import { expectRaced } from "../support/race";

const db = firestore();

const storedPasskeys = async (personId: string) =>
  (await db.collection("passkeys").where("personId", "==", personId).get()).docs.map((d) => ({
    id: d.id,
    ...d.data(),
  }));

describe("POST /auth/passkeys/register/options", () => {
  const w = world();

  it("asks for a discoverable credential with the user verified, no attestation, on the parent domain", async () => {
    const { person, browser } = await w.person({ name: "Ada" });
    const options = await w.registrationOptions(browser);
    expect(options).toMatchObject({
      rp: { id: "example.test", name: "example.test" },
      user: { id: Buffer.from(person.id).toString("base64url"), displayName: "Ada" },
      attestation: "none",
      authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
      excludeCredentials: [],
      timeout: 300_000,
    });
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(options.pubKeyCredParams.map((p: { alg: number }) => p.alg)).toEqual([-7, -8, -257]);
  });

  it("excludes the passkeys the person already has", async () => {
    const { browser } = await w.person();
    const authenticator = new SoftwareAuthenticator();
    expect((await w.register(browser, authenticator)).status).toBe(201);
    const options = await w.registrationOptions(browser);
    expect(options.excludeCredentials).toEqual([
      {
        id: authenticator.passkeys[0]?.credentialId.toString("base64url"),
        type: "public-key",
        transports: ["internal"],
      },
    ]);
  });

  it("stores the challenge as a digest, bound to the session, for five minutes", async () => {
    const { person, browser } = await w.person();
    const options = await w.registrationOptions(browser);
    const stored = (await db.collection("passkeyChallenges").doc(sha256(options.challenge)).get()).data();
    expect(stored).toMatchObject({ purpose: "register", personId: person.id, usedAt: null });
    expect(stored?.sessionKey).toEqual(expect.any(String));
    expect(stored?.expiresAt.toMillis() - stored?.createdAt.toMillis()).toBe(5 * MINUTE);
    expect((await db.collection("passkeyChallenges").doc(options.challenge).get()).exists).toBe(false);
  });

  it("takes a sign-in of exactly five minutes ago, and refuses one a second older, asking for a new sign-in", async () => {
    const deps = testDeps();
    const v = world(deps);
    // On a whole second: a session carries its sign-in time in whole seconds.
    deps.clock.set(new Date(Math.floor(deps.clock.now().getTime() / SECOND) * SECOND));
    const { browser } = await v.person();
    deps.clock.advance(5 * MINUTE);
    expect((await v.post("/auth/passkeys/register/options", {}, browser.session)).status).toBe(200);
    deps.clock.advance(SECOND);
    const late = await v.post("/auth/passkeys/register/options", {}, browser.session);
    expect([late.status, late.body]).toEqual([
      401,
      {
        error: "Sign in again to add a passkey: the sign-in must be from the last 5 minutes",
        reason: "sign_in_too_old",
      },
    ]);
  });

  it.each([
    ["pending", 403, { error: "Forbidden", reason: "pending" }],
    ["rejected", 403, { error: "Forbidden", reason: "rejected" }],
  ] as const)("refuses a %s person", async (status, code, body) => {
    const { browser } = await w.person({ status });
    const res = await w.post("/auth/passkeys/register/options", {}, browser.session);
    expect([res.status, res.body]).toEqual([code, body]);
  });

  it("refuses a browser with no session, and a body with a field it does not take", async () => {
    expect((await w.post("/auth/passkeys/register/options", {})).status).toBe(401);
    const { browser } = await w.person();
    const res = await w.post("/auth/passkeys/register/options", { userVerification: "discouraged" }, browser.session);
    expect([res.status, res.body]).toEqual([
      400,
      { error: "Unknown field: userVerification", reason: "unknown_field" },
    ]);
  });
});

describe("POST /auth/passkeys/register/verify", () => {
  const w = world();

  it("stores the credential id, public key, counter, transports, AAGUID, name and dates", async () => {
    const { person, account, browser } = await w.person();
    const authenticator = new SoftwareAuthenticator();
    const res = await w.register(browser, authenticator, {}, "  Work laptop ");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: "Work laptop", lastUsedAt: null, synced: false, suspect: false });
    const [stored] = await storedPasskeys(person.id);
    expect(stored).toMatchObject({
      id: res.body.id,
      personId: person.id,
      uid: account.uid,
      credentialId: authenticator.passkeys[0]?.credentialId.toString("base64url"),
      publicKey: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/),
      counter: 0,
      transports: ["internal"],
      aaguid: "00000000-0000-0000-0000-000000000000",
      backupEligible: false,
      name: "Work laptop",
      lastUsedAt: null,
      suspectAt: null,
    });
    expect(res.body.id).toBe(sha256(authenticator.passkeys[0]?.credentialId.toString("base64url") as string));
  });

  it("names a passkey Passkey when the page gives no name, and refuses a name of control characters or too long", async () => {
    const { browser } = await w.person();
    expect((await w.register(browser, new SoftwareAuthenticator())).body.name).toBe("Passkey");
    for (const name of ["a\u0000b", "x".repeat(61)]) {
      const credential = new SoftwareAuthenticator().create(await w.registrationOptions(browser));
      const res = await w.post("/auth/passkeys/register/verify", { credential, name }, browser.session);
      expect([res.status, res.body]).toEqual([400, { error: "name must be 1 to 60 characters" }]);
    }
  });

  it("refuses a pending person's registration, even one begun while approved, and stores nothing", async () => {
    const { person, browser } = await w.person();
    const credential = new SoftwareAuthenticator().create(await w.registrationOptions(browser));
    await db.collection("people").doc(person.id).update({ status: "pending" });
    // This instance still has the person cached as approved: the transaction reads them afresh.
    const res = await w.post("/auth/passkeys/register/verify", { credential }, browser.session);
    expect([res.status, res.body]).toEqual([403, { error: "Forbidden", reason: "pending" }]);
    expect(await storedPasskeys(person.id)).toEqual([]);
  });

  it.each([
    ["another origin", { origin: "https://evil.example" }],
    ["an origin of the parent domain that is not one of the seven", { origin: "https://other.example.test" }],
    ["another RP ID", { rpId: "evil.example" }],
    ["no user verification", { userVerified: false }],
  ])("refuses an attestation made with %s, stores nothing and spends the challenge", async (_what, lies) => {
    const { person, browser } = await w.person();
    const options = await w.registrationOptions(browser);
    const authenticator = new SoftwareAuthenticator();
    const bad = await w.post(
      "/auth/passkeys/register/verify",
      { credential: authenticator.create(options, lies) },
      browser.session,
    );
    expect([bad.status, bad.body]).toEqual([400, { error: "The passkey could not be added" }]);
    const again = await w.post(
      "/auth/passkeys/register/verify",
      { credential: authenticator.create(options) },
      browser.session,
    );
    expect(again.status).toBe(400);
    expect(again.body.error).toMatch(/has expired or was not started here/);
    expect(await storedPasskeys(person.id)).toEqual([]);
  });

  it("refuses a replayed challenge: one registration per challenge", async () => {
    const { person, browser } = await w.person();
    const options = await w.registrationOptions(browser);
    const authenticator = new SoftwareAuthenticator();
    const first = await w.post(
      "/auth/passkeys/register/verify",
      { credential: authenticator.create(options) },
      browser.session,
    );
    const replay = await w.post(
      "/auth/passkeys/register/verify",
      { credential: authenticator.create(options) },
      browser.session,
    );
    expect([first.status, replay.status]).toEqual([201, 400]);
    expect(await storedPasskeys(person.id)).toHaveLength(1);
  });

  it("refuses a challenge another session of the person asked for, and leaves it to that session", async () => {
    const { account, person, browser } = await w.person();
    const other = await sessionCookieFor(w.deps, account.uid, person.id);
    const credential = new SoftwareAuthenticator().create(await w.registrationOptions(browser));
    const stolen = await w.post("/auth/passkeys/register/verify", { credential }, other);
    expect(stolen.status).toBe(400);
    expect((await w.post("/auth/passkeys/register/verify", { credential }, browser.session)).status).toBe(201);
  });

  it("refuses a session that is more than five minutes from its sign-in", async () => {
    const deps = testDeps();
    const v = world(deps);
    const { browser } = await v.person();
    const credential = new SoftwareAuthenticator().create(await v.registrationOptions(browser));
    deps.clock.advance(5 * MINUTE + SECOND);
    const res = await v.post("/auth/passkeys/register/verify", { credential }, browser.session);
    expect([res.status, res.body.reason]).toEqual([401, "sign_in_too_old"]);
  });

  it("refuses the same authenticator's credential twice", async () => {
    const { browser } = await w.person();
    const authenticator = new SoftwareAuthenticator();
    const credential = authenticator.create(await w.registrationOptions(browser));
    expect((await w.post("/auth/passkeys/register/verify", { credential }, browser.session)).status).toBe(201);
    // The same credential answered to a fresh challenge (an authenticator ignoring excludeCredentials).
    const options = await w.registrationOptions(browser);
    const again = {
      ...credential,
      response: {
        ...credential.response,
        clientDataJSON: Buffer.from(
          JSON.stringify({ type: "webauthn.create", challenge: options.challenge, origin: "https://id.example.test" }),
        ).toString("base64url"),
      },
    };
    const res = await w.post("/auth/passkeys/register/verify", { credential: again }, browser.session);
    expect([res.status, res.body]).toEqual([409, { error: "This passkey is already registered" }]);
  });

  it.each([
    ["no credential", {}],
    ["a credential that is not one", { credential: "x" }],
    [
      "a response without its attestation",
      {
        credential: {
          id: "a",
          rawId: "a",
          type: "public-key",
          response: { clientDataJSON: "e30" },
          clientExtensionResults: {},
        },
      },
    ],
    [
      "unreadable client data",
      {
        credential: {
          id: "a",
          rawId: "a",
          type: "public-key",
          response: { clientDataJSON: "%%", attestationObject: "AA" },
          clientExtensionResults: {},
        },
      },
    ],
  ])("answers 400 to %s, never 500", async (_what, body) => {
    const { browser } = await w.person();
    const res = await w.post("/auth/passkeys/register/verify", body, browser.session);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(expect.any(String));
  });
});

describe("POST /auth/passkeys/sign-in/options", () => {
  const w = world();

  it("names no credential and asks for a verified user, the same for everyone", async () => {
    const res = await w.post("/auth/passkeys/sign-in/options", {});
    expect(res.status).toBe(200);
    expect(res.body.options).toEqual({
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      rpId: "example.test",
      allowCredentials: [],
      userVerification: "required",
      timeout: 300_000,
    });
  });

  it("binds the challenge to this browser with a cookie of its own path, kept across sign-ins in other tabs", async () => {
    const first = await w.post("/auth/passkeys/sign-in/options", {});
    const cookie = String(first.headers["set-cookie"]?.[0]);
    expect(cookie).toMatch(
      /^__session=passkey\.[A-Za-z0-9_-]{43}; Max-Age=300; Domain=example\.test; Path=\/auth\/passkeys\/sign-in; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/,
    );
    const binding = /^__session=(passkey\.[^;]+)/.exec(cookie)?.[1] as string;
    const stored = (await db.collection("passkeyChallenges").doc(sha256(first.body.options.challenge)).get()).data();
    // The digest of the binding, never the binding.
    expect(stored).toMatchObject({ purpose: "sign-in", binding: sha256(binding.slice("passkey.".length)) });
    const second = await w.post("/auth/passkeys/sign-in/options", {}, `__session=${binding}`);
    expect(String(second.headers["set-cookie"]?.[0])).toContain(`__session=${binding};`);
    expect(second.body.options.challenge).not.toBe(first.body.options.challenge);
  });

  it("is not read as a session, nor as a second session cookie beside one", async () => {
    const sessionsApp = appFor(sessions, w.deps);
    const { browser } = await w.person();
    const options = await w.post("/auth/passkeys/sign-in/options", {});
    const binding = /^__session=passkey\.[^;]+/.exec(String(options.headers["set-cookie"]?.[0]))?.[0] as string;
    const alone = await request(sessionsApp).post("/auth/session/refresh").set("Cookie", binding);
    const beside = await request(sessionsApp)
      .post("/auth/session/refresh")
      .set("Cookie", `${binding}; ${browser.session}`);
    expect([alone.status, beside.status]).toEqual([401, 200]);
  });
});

describe("POST /auth/passkeys/sign-in/verify", () => {
  const w = world();

  it("gives a custom token whose sign-in opens a session that says hwk and user, and records the use", async () => {
    const { person, authenticator, passkeyId } = await w.withPasskey();
    const browser = newBrowser();
    const res = await w.signIn(browser, authenticator);
    expect(res.status).toBe(200);
    // The binding has done its work: the cookie goes.
    expect(String(res.headers["set-cookie"]?.[0])).toMatch(
      /^__session=; Domain=example\.test; Path=\/auth\/passkeys\/sign-in;/,
    );
    const idToken = await signInWithCustomToken(res.body.customToken);
    expect(decodeJwt(idToken).sign_in_methods).toEqual(["hwk", "user"]);
    const verified = await request(appFor(sessions, w.deps)).post("/auth/verify").send({ idToken, project: "account" });
    expect(verified.body).toMatchObject({ approved: true, personId: person.id });
    const token = (cookieFrom(verified.headers["set-cookie"]) as string).slice("__session=".length);
    expect((await w.deps.tokens.verify(token, w.deps.clock.now()))?.amr).toEqual(["hwk", "user"]);
    const stored = (await db.collection("passkeys").doc(passkeyId).get()).data();
    expect(stored?.counter).toBe(1);
    expect(stored?.lastUsedAt.toMillis()).toBe(w.deps.clock.now().getTime());
  });

  it("names a synced passkey swk", async () => {
    const { authenticator } = await w.withPasskey({}, true);
    const res = await w.signIn(newBrowser(), authenticator);
    expect(decodeJwt(await signInWithCustomToken(res.body.customToken)).sign_in_methods).toEqual(["swk", "user"]);
  });

  it("refuses a replayed challenge", async () => {
    const { authenticator } = await w.withPasskey();
    const browser = newBrowser();
    const options = await w.signInOptions(browser);
    const first = await w.verify(browser, authenticator.get(options));
    const replay = await w.verify(browser, authenticator.get(options));
    expect([first.status, replay.status]).toEqual([200, 400]);
    expect(replay.body).toEqual({
      error: "This passkey request has expired or was not started here. Please start again.",
    });
  });

  it("gives one success of 20 concurrent verifies of one challenge, and records one use", async () => {
    const { authenticator, passkeyId } = await w.withPasskey();
    const browser = newBrowser();
    const options = await w.signInOptions(browser);
    const assertion = authenticator.get(options);
    const answers = await Promise.all(Array.from({ length: 20 }, () => w.verify(browser, assertion)));
    expectRaced(
      answers,
      (a) => a.status === 200,
      (a) => a.status === 400,
    );
    const challenge = (await db.collection("passkeyChallenges").doc(sha256(options.challenge)).get()).data();
    expect(challenge?.usedAt).not.toBeNull();
    expect((await db.collection("passkeys").doc(passkeyId).get()).data()?.counter).toBe(1);
  });

  it.each([
    ["another origin", { origin: "https://evil.example" }],
    ["a look-alike origin on the parent domain", { origin: "https://id.example.test.evil.example" }],
    ["another RP ID", { rpId: "evil.example" }],
    ["no user verification", { userVerified: false }],
    ["another person's user handle", { userHandle: Buffer.from("someone-else").toString("base64url") }],
  ])("refuses an assertion made with %s, and spends the challenge", async (_what, lies) => {
    const { authenticator, passkeyId } = await w.withPasskey();
    const browser = newBrowser();
    const options = await w.signInOptions(browser);
    const res = await w.verify(browser, authenticator.get(options, lies));
    expect([res.status, res.body]).toEqual([401, { error: "That passkey wasn't accepted" }]);
    expect((await w.verify(browser, authenticator.get(options))).status).toBe(400);
    expect((await db.collection("passkeys").doc(passkeyId).get()).data()?.lastUsedAt).toBeNull();
  });

  it("refuses a counter that goes back, marks the passkey suspect, and refuses it from then on", async () => {
    const { authenticator, passkeyId } = await w.withPasskey();
    for (let i = 0; i < 3; i++) expect((await w.signIn(newBrowser(), authenticator)).status).toBe(200);
    // A clone of the key, made after its first use, still counts from 1.
    const clone = SoftwareAuthenticator.cloneOf({ ...(authenticator.passkeys[0] as SoftwarePasskey), counter: 1 });
    const cloned = await w.signIn(newBrowser(), clone);
    expect([cloned.status, cloned.body]).toEqual([401, { error: "That passkey wasn't accepted" }]);
    const stored = (await db.collection("passkeys").doc(passkeyId).get()).data();
    expect([stored?.counter, stored?.suspectAt?.toMillis()]).toEqual([3, w.deps.clock.now().getTime()]);
    // The genuine authenticator, counting on, is refused too: which copy is the real one cannot be told.
    expect((await w.signIn(newBrowser(), authenticator)).status).toBe(401);
  });

  it("refuses a counter that stands still", async () => {
    const { authenticator } = await w.withPasskey();
    expect((await w.signIn(newBrowser(), authenticator, { counter: 7 })).status).toBe(200);
    expect((await w.signIn(newBrowser(), authenticator, { counter: 7 })).status).toBe(401);
  });

  it("refuses a removed passkey as it refuses one never registered", async () => {
    const { authenticator, passkeyId, browser: owner } = await w.withPasskey();
    expect((await request(w.app).delete(`/auth/passkeys/${passkeyId}`).set("Cookie", owner.session)).status).toBe(200);
    const removed = await w.signIn(newBrowser(), authenticator);
    const stranger = new SoftwareAuthenticator();
    stranger.create({ ...(await w.registrationOptions((await w.person()).browser)) });
    const unknown = await w.signIn(newBrowser(), stranger);
    expect([removed.status, removed.body]).toEqual([401, { error: "That passkey wasn't accepted" }]);
    expect([unknown.status, unknown.body]).toEqual([removed.status, removed.body]);
  });

  it("refuses the challenge in another browser, without spending it for this one", async () => {
    const { authenticator } = await w.withPasskey();
    const browser = newBrowser();
    const assertion = authenticator.get(await w.signInOptions(browser));
    const elsewhere = newBrowser();
    await w.signInOptions(elsewhere);
    expect((await w.verify(elsewhere, assertion)).status).toBe(400);
    expect((await w.verify(newBrowser(), assertion)).status).toBe(400);
    expect((await w.verify(browser, assertion)).status).toBe(200);
  });

  it("refuses a challenge five minutes old", async () => {
    const deps = testDeps();
    const v = world(deps);
    const { browser } = await v.person();
    const authenticator = new SoftwareAuthenticator();
    expect((await v.register(browser, authenticator)).status).toBe(201);
    const signingIn = newBrowser();
    const assertion = authenticator.get(await v.signInOptions(signingIn));
    deps.clock.advance(5 * MINUTE);
    expect((await v.verify(signingIn, assertion)).status).toBe(400);
  });

  it("mints the token for a pending person too: POST /auth/verify refuses them, as for every sign-in", async () => {
    const { person, authenticator } = await w.withPasskey();
    await db.collection("people").doc(person.id).update({ status: "pending" });
    const res = await w.signIn(newBrowser(), authenticator);
    const idToken = await signInWithCustomToken(res.body.customToken);
    const verified = await request(appFor(sessions, testDeps()))
      .post("/auth/verify")
      .send({ idToken, project: "account" });
    expect(verified.body).toEqual({ approved: false, reason: "pending" });
  });

  it.each([
    ["no credential", {}],
    ["a field it does not take", { credential: {}, personId: "p" }],
    [
      "unreadable client data",
      {
        credential: {
          id: "a",
          rawId: "a",
          type: "public-key",
          response: { clientDataJSON: "%%", authenticatorData: "AA", signature: "AA" },
          clientExtensionResults: {},
        },
      },
    ],
    [
      "client data without a challenge",
      {
        credential: {
          id: "a",
          rawId: "a",
          type: "public-key",
          response: { clientDataJSON: "e30", authenticatorData: "AA", signature: "AA" },
          clientExtensionResults: {},
        },
      },
    ],
  ])("answers 400 to %s, never 500", async (_what, body) => {
    const res = await w.post("/auth/passkeys/sign-in/verify", body);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(expect.any(String));
  });
});

describe("the person's passkeys: GET, PATCH and DELETE /auth/passkeys", () => {
  const w = world();

  it("lists only the person's own, oldest first, with when each was added and last used", async () => {
    const { browser } = await w.person();
    const authenticator = new SoftwareAuthenticator();
    await w.register(browser, authenticator, {}, "Phone");
    // A second later: the order is the order they were added in, not the order a query returns.
    w.deps.clock.advance(SECOND);
    await w.register(browser, new SoftwareAuthenticator(), {}, "Laptop");
    await w.signIn(newBrowser(), authenticator);
    await w.register((await w.person()).browser, new SoftwareAuthenticator(), {}, "Someone else's");
    const res = await request(w.app).get("/auth/passkeys").set("Cookie", browser.session);
    expect(res.status).toBe(200);
    expect(res.body.passkeys.map((p: { name: string }) => p.name)).toEqual(["Phone", "Laptop"]);
    expect(res.body.passkeys[0]).toEqual({
      id: expect.any(String),
      name: "Phone",
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      synced: false,
      suspect: false,
    });
    expect(res.body.passkeys[1].lastUsedAt).toBeNull();
  });

  it("renames a passkey, and refuses another person's as unknown", async () => {
    const { browser } = await w.person();
    const id = (await w.register(browser, new SoftwareAuthenticator())).body.id;
    const renamed = await request(w.app)
      .patch(`/auth/passkeys/${id}`)
      .set("Cookie", browser.session)
      .send({ name: "Desk key" });
    expect([renamed.status, renamed.body.name]).toEqual([200, "Desk key"]);
    const other = (await w.person()).browser;
    const refused = await request(w.app)
      .patch(`/auth/passkeys/${id}`)
      .set("Cookie", other.session)
      .send({ name: "Mine" });
    expect([refused.status, refused.body]).toEqual([404, { error: "Passkey not found" }]);
    const blank = await request(w.app)
      .patch(`/auth/passkeys/${id}`)
      .set("Cookie", browser.session)
      .send({ name: "  " });
    expect(blank.status).toBe(400);
    expect((await db.collection("passkeys").doc(id).get()).data()?.name).toBe("Desk key");
  });

  it("removes only the person's own", async () => {
    const { browser } = await w.person();
    const id = (await w.register(browser, new SoftwareAuthenticator())).body.id;
    const other = (await w.person()).browser;
    expect((await request(w.app).delete(`/auth/passkeys/${id}`).set("Cookie", other.session)).status).toBe(404);
    expect((await db.collection("passkeys").doc(id).get()).exists).toBe(true);
    expect((await request(w.app).delete(`/auth/passkeys/${id}`).set("Cookie", browser.session)).body).toEqual({
      ok: true,
    });
    expect((await db.collection("passkeys").doc(id).get()).exists).toBe(false);
    expect((await request(w.app).delete(`/auth/passkeys/${id}`).set("Cookie", browser.session)).status).toBe(404);
  });

  it("removes one on a sign-in of exactly five minutes ago, and refuses one a second older, asking for a new sign-in", async () => {
    const deps = testDeps();
    const v = world(deps);
    // On a whole second: a session carries its sign-in time in whole seconds.
    deps.clock.set(new Date(Math.floor(deps.clock.now().getTime() / SECOND) * SECOND));
    const { browser } = await v.person();
    const [first, second] = [
      (await v.register(browser, new SoftwareAuthenticator())).body.id,
      (await v.register(browser, new SoftwareAuthenticator())).body.id,
    ];
    deps.clock.advance(5 * MINUTE);
    expect((await request(v.app).delete(`/auth/passkeys/${first}`).set("Cookie", browser.session)).status).toBe(200);
    deps.clock.advance(SECOND);
    const late = await request(v.app).delete(`/auth/passkeys/${second}`).set("Cookie", browser.session);
    expect([late.status, late.body]).toEqual([
      401,
      {
        error: "Sign in again to remove a passkey: the sign-in must be from the last 5 minutes",
        reason: "sign_in_too_old",
      },
    ]);
    expect((await db.collection("passkeys").doc(second).get()).exists).toBe(true);
  });

  it("answers 401 without a session, and 404 for an id no document can have", async () => {
    expect((await request(w.app).get("/auth/passkeys")).status).toBe(401);
    const { browser } = await w.person();
    expect((await request(w.app).delete("/auth/passkeys/__x__").set("Cookie", browser.session)).status).toBe(404);
  });
});
