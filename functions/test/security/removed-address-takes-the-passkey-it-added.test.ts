/**
 * Proves: an address taken off a person takes with it the passkey a sign-in through it added.
 * Whoever reads a second address of a person (a work mailbox, later the employer's) signs in by a
 * code to it, and in the five minutes after, adds a passkey of their own: a member may, after any
 * sign-in. The person removes the address; docs/security.md says "a removed way in signs in no
 * more": its accounts and the sessions its codes opened end. The passkey it bought must not go on
 * signing in as the person, nor what that passkey's own sign-in added (a second passkey, recovery
 * codes); a passkey added another way stays, and the person hears which went.
 */
import request from "supertest";
import * as otpRoutes from "../../src/routes/otp/otp";
import * as sessions from "../../src/routes/sessions/sessions";
import { changePerson } from "../../src/core/people/change-person";
import { SoftwareAuthenticator } from "../support/authenticator";
import { signedUp, signInWithCustomToken } from "../support/auth";
import { appFor, ID_URL, testDeps, unique } from "../support/deps";
import { codeFor, codeIn, hasCode, mailAfter, mailTo } from "../support/inbox";
import { personHistory } from "../../src/core/people/history";
import { cookieFrom, personFor } from "../support/people";
import { newBrowser, passkeyWorld } from "../support/passkeys";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(120_000);

const deps = testDeps();
const keys = passkeyWorld(deps);
const otp = appFor(otpRoutes, deps);
const sessionsApp = appFor(sessions, deps);
const OPERATOR = { kind: "operator" as const, name: "test operator" };

afterEach(() => allTasksIdle());

const verify = (idToken: string) => request(sessionsApp).post("/auth/verify").send({ idToken, project: "startpage" });

/** The session a sign-in's custom token opens, every step a browser takes: its cookie. */
async function sessionOf(signedIn: { status: number; body: { customToken?: string } }): Promise<string> {
  expect(signedIn.status).toBe(200);
  const opened = await verify(await signInWithCustomToken(signedIn.body.customToken as string));
  expect(opened.body).toMatchObject({ approved: true });
  return cookieFrom(opened.headers["set-cookie"]) as string;
}

/** A sign-in by a code mailed to `address`, as the sign-in page makes it: the session's cookie. */
async function signedInByCode(address: string): Promise<string> {
  const seen = (await mailTo(address)).length;
  expect((await request(otp).post("/auth/otp/send").send({ email: address })).status).toBe(200);
  const code = codeIn(await mailAfter(address, seen, hasCode));
  const cookie = await sessionOf(await request(otp).post("/auth/otp/sign-in").send({ email: address, otp: code }));
  // The browser is learned before the next sign-in, so no notice of a new one takes a place in the hour's count.
  await allTasksIdle();
  return cookie;
}

describe("an address taken off a person", () => {
  it("takes the passkey added from a sign-in by a code to it", async () => {
    const home = await signedUp();
    const work = `${unique("work")}@example.test`;
    const person = await personFor(home, { emails: [home.email, work], projects: ["startpage"] });

    // Whoever reads the work mailbox signs in by code to it, and adds a passkey of their own.
    expect((await request(otp).post("/auth/otp/send").send({ email: work })).status).toBe(200);
    const signedIn = await request(otp)
      .post("/auth/otp/sign-in")
      .send({ email: work, otp: await codeFor(work) });
    expect(signedIn.status).toBe(200);
    const opened = await verify(await signInWithCustomToken(signedIn.body.customToken));
    expect(opened.body).toMatchObject({ approved: true, personId: person.id });
    const byCode = cookieFrom(opened.headers["set-cookie"]) as string;
    const theirs = new SoftwareAuthenticator();
    expect((await keys.register({ session: byCode, binding: null }, theirs)).status).toBe(201);

    // The person leaves that job: the work address is taken off them.
    await changePerson(deps, person.id, { emails: [home.email] }, { operator: OPERATOR });

    // The former holder of the mailbox signs in with the passkey it let them add.
    const again = await keys.signIn(newBrowser(), theirs);
    const answer =
      again.status === 200 ? (await verify(await signInWithCustomToken(again.body.customToken))).body : again.body;
    expect(answer).not.toMatchObject({ approved: true, personId: person.id });
  });

  it("takes what that passkey's own sign-in added too: a second passkey, recovery codes, and their sessions", async () => {
    const home = await signedUp();
    const work = `${unique("work")}@example.test`;
    const person = await personFor(home, { emails: [home.email, work], projects: ["startpage"] });
    const theirs = new SoftwareAuthenticator();
    expect((await keys.register({ session: await signedInByCode(work), binding: null }, theirs)).status).toBe(201);

    // From the planted passkey's sign-in: a second passkey, and recovery codes (a passkey sign-in may make them).
    const byKey = await sessionOf(await keys.signIn(newBrowser(), theirs));
    const second = new SoftwareAuthenticator();
    expect((await keys.register({ session: byKey, binding: null }, second)).status).toBe(201);
    const made = await request(keys.app).post("/auth/passkeys/recovery-codes").set("Cookie", byKey).send({});
    expect(made.status).toBe(201);
    const [code] = made.body.codes as string[];
    const bySecond = await sessionOf(await keys.signIn(newBrowser(), second));

    await changePerson(deps, person.id, { emails: [home.email] }, { operator: OPERATOR });

    // Neither passkey signs in, no code of that set does (with the address they still know), and
    // every session they opened is over.
    for (const authenticator of [theirs, second])
      expect((await keys.signIn(newBrowser(), authenticator)).status).toBe(401);
    const recovery = await request(keys.app).post("/auth/passkeys/recovery/sign-in").send({ email: home.email, code });
    expect(recovery.body.reason).toBe("code_invalid");
    for (const cookie of [byKey, bySecond])
      expect((await request(keys.app).get("/auth/passkeys").set("Cookie", cookie)).status).toBe(401);
  });

  it("opens no session from a code to it that signed in just before", async () => {
    const home = await signedUp();
    const work = `${unique("work")}@example.test`;
    const person = await personFor(home, { emails: [home.email, work], projects: ["startpage"] });
    expect((await request(otp).post("/auth/otp/send").send({ email: work })).status).toBe(200);
    const signedIn = await request(otp)
      .post("/auth/otp/sign-in")
      .send({ email: work, otp: await codeFor(work) });
    expect(signedIn.status).toBe(200);
    const idToken = await signInWithCustomToken(signedIn.body.customToken);

    await changePerson(deps, person.id, { emails: [home.email] }, { operator: OPERATOR });

    // The ID token still verifies for minutes; the address its code went to is no longer theirs.
    const opened = await verify(idToken);
    expect(opened.status).toBe(401);
    expect(cookieFrom(opened.headers["set-cookie"])).toBeNull();
  });

  it("leaves a passkey added another way, and tells the person and their history which went", async () => {
    const home = await signedUp();
    const work = `${unique("work")}@example.test`;
    const person = await personFor(home, { emails: [home.email, work], projects: ["startpage"] });
    const own = new SoftwareAuthenticator();
    const byHome = await signedInByCode(home.email);
    expect((await keys.register({ session: byHome, binding: null }, own, {}, "Home laptop")).status).toBe(201);
    const theirs = new SoftwareAuthenticator();
    const byWork = await signedInByCode(work);
    expect((await keys.register({ session: byWork, binding: null }, theirs, {}, "Work phone")).status).toBe(201);
    const seen = (await mailTo(home.email)).length;

    // The person takes the work address off themselves, from their home sign-in.
    const removed = await request(otp)
      .delete(`/auth/account/addresses/${encodeURIComponent(work)}`)
      .set("Origin", ID_URL)
      .set("Cookie", byHome);
    expect(removed.body).toEqual({ emails: [home.email] });

    expect((await keys.signIn(newBrowser(), own)).status).toBe(200);
    expect((await keys.signIn(newBrowser(), theirs)).status).toBe(401);
    const told = await mailAfter(home.email, seen, (m) => m.text.includes("went with it"));
    expect(told.text).toContain(
      "A passkey added from a sign-in through it went with it, and no longer signs you in: “Work phone”.",
    );
    const { entries } = await personHistory(deps, person.id, 5, null);
    expect(entries.find((e) => e.event === "passkeys-removed")).toMatchObject({
      by: { kind: "person" },
      via: "account",
      changes: { passkeys: { from: ["Work phone"], to: null } },
    });
  });
});
