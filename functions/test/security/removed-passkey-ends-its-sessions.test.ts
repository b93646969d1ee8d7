/**
 * Proves: a passkey or a recovery code taken away takes away the sessions it opened. Under the
 * passkey rule a session begun with a passkey is an administrator's full power for 14 days; when
 * the device is lost or stolen, the person removes its passkey (from another of theirs), or the
 * operator clears them (`passkey-rule clear`, "a device in someone else's hands"). Whoever
 * signed in with it before must not keep acting as the administrator, nor add a passkey through
 * an instance whose copy of the person is older. Likewise a session a
 * recovery code opened must not keep its power over the person's passkeys once they have made new
 * codes ("which ends these"), as the notice of its use tells them to.
 */
import request from "supertest";
import * as peopleGroup from "../../src/routes/people/people";
import * as sessions from "../../src/routes/sessions/sessions";
import { clearPasskeysAndCodes } from "../../src/core/people/passkey-rule";
import { removeAllPasskeys } from "../../src/core/passkeys/passkeys";
import { SoftwareAuthenticator } from "../support/authenticator";
import { signInWithCustomToken } from "../support/auth";
import { appFor, testConfig, testDeps } from "../support/deps";
import { cookieFrom, sessionCookieFor } from "../support/people";
import { newBrowser, passkeyWorld } from "../support/passkeys";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(120_000);

const deps = testDeps({ config: testConfig({ passkeyRoles: ["admin"] }) });
const keys = passkeyWorld(deps);
const sessionsApp = appFor(sessions, deps);
const peopleApp = appFor(peopleGroup, deps);
const OPERATOR = { kind: "operator" as const, name: "test operator" };
const OPERATOR_ACTING = { operator: OPERATOR };

afterEach(() => allTasksIdle());

/** The session a custom token opens, every step a browser takes: its cookie. */
async function sessionFrom(customToken: string): Promise<string> {
  const idToken = await signInWithCustomToken(customToken);
  const verified = await request(sessionsApp).post("/auth/verify").send({ idToken, project: "account" });
  expect(verified.body).toMatchObject({ approved: true });
  return cookieFrom(verified.headers["set-cookie"]) as string;
}

/** Whoever holds the authenticator signs in with it, as on the sign-in page. */
async function signInWith(authenticator: SoftwareAuthenticator): Promise<string> {
  const signedIn = await keys.signIn(newBrowser(), authenticator);
  expect(signedIn.status).toBe(200);
  return sessionFrom(signedIn.body.customToken);
}

const listPeople = (cookie: string) => request(peopleApp).get("/auth/people").query({ limit: 1 }).set("Cookie", cookie);

describe("a passkey taken away", () => {
  it("by the operator's clear: the session a stolen device opened acts as the administrator no more", async () => {
    const admin = await keys.withPasskey({ role: "admin", projects: ["*"] });
    // The device is in someone else's hands: they sign in with it.
    const thief = await signInWith(admin.authenticator);
    expect((await listPeople(thief)).status).toBe(200);

    // The administrator reports it; the operator clears their passkeys and codes.
    await clearPasskeysAndCodes(deps, admin.person.id, OPERATOR);

    const after = await listPeople(thief);
    expect(after.status).toBe(401);
  });

  it("by the person, from their other passkey: the session the lost one opened ends with it", async () => {
    const admin = await keys.withPasskey({ role: "admin", projects: ["*"] });
    const second = new SoftwareAuthenticator();
    // Their second device, added from the first one's sign-in.
    const keyed = await sessionCookieFor(deps, admin.account.uid, admin.person.id, ["hwk", "user"]);
    expect((await keys.register({ session: keyed, binding: null }, second)).status).toBe(201);
    const thief = await signInWith(admin.authenticator);

    const own = await signInWith(second);
    const removed = await request(keys.app).delete(`/auth/passkeys/${admin.passkeyId}`).set("Cookie", own);
    expect(removed.status).toBe(200);

    const after = await listPeople(thief);
    expect(after.status).toBe(401);
  });

  it("by the removal of every one (an administrator's, the operator's): the sessions they opened end", async () => {
    const admin = await keys.withPasskey({ role: "admin", projects: ["*"] });
    const thief = await signInWith(admin.authenticator);
    const own = await sessionCookieFor(deps, admin.account.uid, admin.person.id, ["otp"]);

    expect(await removeAllPasskeys(deps, admin.person.id, OPERATOR_ACTING)).toBe(1);

    expect((await listPeople(thief)).status).toBe(401);
    // A session begun another way goes on.
    expect((await request(keys.app).get("/auth/passkeys").set("Cookie", own)).status).toBe(200);
  });

  it("between a sign-in with it and the session it would open: no session opens", async () => {
    const member = await keys.withPasskey({ projects: ["*"] });
    const signedIn = await keys.signIn(newBrowser(), member.authenticator);
    expect(signedIn.status).toBe(200);
    const idToken = await signInWithCustomToken(signedIn.body.customToken);

    await removeAllPasskeys(deps, member.person.id, OPERATOR_ACTING);

    // The ID token still verifies for minutes; the passkey it came from is gone.
    const verified = await request(sessionsApp).post("/auth/verify").send({ idToken, project: "account" });
    expect(verified.status).toBe(401);
    expect(cookieFrom(verified.headers["set-cookie"])).toBeNull();
  });

  it("on another instance, whose copy of the person is older: the session it opened adds no passkey", async () => {
    const member = await keys.withPasskey({ projects: ["*"] });
    const thief = await signInWith(member.authenticator);
    // Another instance of the function has read the person while the session lived.
    const elsewhere = passkeyWorld(testDeps({ config: deps.config, store: deps.store }));
    expect((await request(elsewhere.app).get("/auth/passkeys").set("Cookie", thief)).status).toBe(200);

    await removeAllPasskeys(deps, member.person.id, OPERATOR_ACTING);

    // That instance's copy still shows the session live; the registration's own read does not.
    const planted = await elsewhere.register({ session: thief, binding: null }, new SoftwareAuthenticator());
    expect(planted.status).toBe(401);
    const held = await deps.store.collection("passkeys").where("personId", "==", member.person.id).get();
    expect(held.size).toBe(0);
  });
});

describe("recovery codes made again", () => {
  it("leave the session a used code opened without its power over the person's passkeys", async () => {
    const admin = await keys.withPasskey({ role: "admin", projects: ["*"] });
    const keyed = await sessionCookieFor(deps, admin.account.uid, admin.person.id, ["hwk", "user"]);
    const made = await request(keys.app).post("/auth/passkeys/recovery-codes").set("Cookie", keyed).send({});
    expect(made.status).toBe(201);
    const [code] = made.body.codes as string[];
    // Someone else used one of the codes (a printed sheet, read over a shoulder).
    const used = await request(keys.app)
      .post("/auth/passkeys/recovery/sign-in")
      .send({ email: admin.account.email, code });
    expect(used.status).toBe(200);
    const thief = await sessionFrom(used.body.customToken);

    // Told of the use, the administrator makes new codes, "which ends these".
    const again = await sessionCookieFor(deps, admin.account.uid, admin.person.id, ["hwk", "user"]);
    expect((await request(keys.app).post("/auth/passkeys/recovery-codes").set("Cookie", again).send({})).status).toBe(
      201,
    );

    // The session the old code opened cannot strip the administrator of their passkey.
    const stripping = await request(keys.app).delete(`/auth/passkeys/${admin.passkeyId}`).set("Cookie", thief);
    expect(stripping.status).not.toBe(200);
    expect((await request(keys.app).get("/auth/passkeys").set("Cookie", keyed)).body.passkeys).toHaveLength(1);
  });
});
