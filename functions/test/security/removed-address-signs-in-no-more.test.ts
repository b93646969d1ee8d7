/**
 * Proves: an address taken off a person takes with it every provider account that signs in with
 * it. A Google account of a work address the person removed no longer opens their session, nor a
 * session it opened before; the account is deleted at the provider; a new sign-in with it is a
 * stranger waiting for review; and what the person and the removed address are told is true.
 * The same for an administrator's removal, and the person can unlink an account themselves.
 */
import request from "supertest";
import * as otpRoutes from "../../src/routes/otp/otp";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessions from "../../src/routes/sessions/sessions";
import * as people from "../../src/store/people";
import { adminCookie } from "../support/admin";
import { signedInWithGoogle, signedUp, signInWithCustomToken } from "../support/auth";
import { allTasksIdle } from "../support/task-queue";
import { appFor, auth, firestore, ID_URL, testDeps, unique, type TestDeps } from "../support/deps";
import { codeFor, mailAfter, waitForSubject } from "../support/inbox";
import { personFor } from "../support/people";

const db = firestore();
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";

/** POST /auth/verify with an ID token: the answer and its session cookie. */
async function verify(deps: TestDeps, idToken: string) {
  const res = await request(appFor(sessions, deps))
    .post("/auth/verify")
    .set("Origin", ID_URL)
    .set("User-Agent", FIREFOX)
    .send({ idToken, project: "startpage" });
  const cookie = ([res.headers["set-cookie"] ?? []].flat() as string[]).find((c) => c.startsWith("__session="));
  return { body: res.body, cookie: cookie?.split(";")[0] ?? null };
}

const refresh = (deps: TestDeps, cookie: string) =>
  request(appFor(sessions, deps)).post("/auth/session/refresh").set("Origin", ID_URL).set("Cookie", cookie);

const gone = async (uid: string) =>
  (await auth()
    .getUser(uid)
    .then(
      () => false,
      () => true,
    )) as boolean;

/** An approved person with a home address (signed up) and a work address, who signed in with the work Google account. */
async function leaver(deps: TestDeps) {
  const home = await signedUp();
  const work = `${unique("work")}@example.test`;
  const person = await personFor(home, { emails: [home.email, work], projects: ["startpage"] });
  const google = await signedInWithGoogle(work);
  const first = await verify(deps, google.idToken);
  expect(first.body).toMatchObject({ approved: true, personId: person.id });
  await allTasksIdle();
  return { home, work, person, google, googleCookie: first.cookie as string };
}

describe("removing an address", () => {
  it("by the person: its Google account no longer signs in as them, and is deleted at the provider", async () => {
    const deps = testDeps();
    const { home, work, person, google, googleCookie } = await leaver(deps);
    expect((await people.findById(db, person.id))!.uids).toEqual([home.uid, google.uid]);
    // Signed in by their home address's account, just now.
    const homeCookie = (await verify(deps, home.idToken)).cookie as string;
    const removed = await request(appFor(otpRoutes, deps))
      .delete(`/auth/account/addresses/${encodeURIComponent(work)}`)
      .set("Origin", ID_URL)
      .set("Cookie", homeCookie)
      .set("User-Agent", FIREFOX);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ emails: [home.email] });
    await allTasksIdle();

    expect((await people.findById(db, person.id))!.uids).toEqual([home.uid]);
    expect(await gone(google.uid)).toBe(true);
    // The session the Google account opened is over; the home one goes on.
    expect((await refresh(deps, googleCookie)).status).toBe(401);
    expect((await refresh(deps, homeCookie)).status).toBe(200);
    // Whoever holds the work mailbox now (the employer) signs in with its Google account: a stranger.
    const again = await signedInWithGoogle(work, google.sub);
    const stranger = await verify(deps, again.idToken);
    expect(stranger.body).toMatchObject({ approved: false, reason: "pending" });
    expect(stranger.cookie).toBeNull();
    expect((await people.findByUid(db, again.uid))!.id).not.toBe(person.id);

    // What each is told is true: the person, at home, which sign-in went; the work address, that it signs in no more.
    const told = await mailAfter(home.email, 0, (m) => m.text.includes("Address removed"));
    expect(told.subject).toBe("A way into your account changed");
    expect(told.text).toContain(`Address removed: ${work}.`);
    expect(told.text).toContain(`no longer sign in as you: Google (${work})`);
    const left = await waitForSubject(work, "This address was removed from an account");
    expect(left.text).toContain("no longer signs in to it");
    expect(left.text).not.toContain(home.email);
  });

  it("by an administrator: the same, and the person's sign-in by it ends at once", async () => {
    const deps = testDeps();
    const { home, work, person, google, googleCookie } = await leaver(deps);
    const admin = await adminCookie(appFor(sessions, deps));
    const patched = await request(appFor(peopleRoutes, deps))
      .patch(`/auth/people/${person.id}`)
      .set("Origin", ID_URL)
      .set("Cookie", admin)
      .send({ emails: [home.email] });
    expect(patched.status).toBe(200);
    await allTasksIdle();
    expect(patched.body.uids ?? (await people.findById(db, person.id))!.uids).not.toContain(google.uid);
    expect(await gone(google.uid)).toBe(true);
    expect((await refresh(deps, googleCookie)).status).toBe(401);
    expect((await verify(deps, (await signedInWithGoogle(work, google.sub)).idToken)).body.approved).toBe(false);
  });

  it("signs out the browser that signed in through the removed address's account, and says so", async () => {
    const deps = testDeps();
    const { work, person, googleCookie } = await leaver(deps);
    const removed = await request(appFor(otpRoutes, deps))
      .delete(`/auth/account/addresses/${encodeURIComponent(work)}`)
      .set("Origin", ID_URL)
      .set("Cookie", googleCookie)
      .set("User-Agent", FIREFOX);
    expect(removed.body).toEqual({ emails: [(await people.findById(db, person.id))!.emails[0]], signedOut: true });
    expect((await refresh(deps, googleCookie)).status).toBe(401);
  });
});

describe("removing an address, for sessions its codes opened", () => {
  it("ends every session a code to that address opened, whichever account it is under", async () => {
    const deps = testDeps();
    const home = await signedUp();
    const work = `${unique("work")}@example.test`;
    const person = await personFor(home, { emails: [home.email, work], projects: ["startpage"] });
    // Whoever reads the work mailbox signs in by code to it: a session under the home account.
    const otp = appFor(otpRoutes, deps);
    expect((await request(otp).post("/auth/otp/send").send({ email: work })).status).toBe(200);
    const signedIn = await request(otp)
      .post("/auth/otp/sign-in")
      .send({ email: work, otp: await codeFor(work) });
    expect(signedIn.status).toBe(200);
    const byCode = await verify(deps, await signInWithCustomToken(signedIn.body.customToken));
    expect(byCode.body).toMatchObject({ approved: true, uid: home.uid });
    const homeCookie = (await verify(deps, home.idToken)).cookie as string;
    const admin = await adminCookie(appFor(sessions, deps));
    const patched = await request(appFor(peopleRoutes, deps))
      .patch(`/auth/people/${person.id}`)
      .set("Origin", ID_URL)
      .set("Cookie", admin)
      .send({ emails: [home.email] });
    expect(patched.status).toBe(200);
    expect((await refresh(deps, byCode.cookie as string)).status).toBe(401);
    expect((await refresh(deps, homeCookie)).status).toBe(200);
  });
});

describe("a person's linked accounts", () => {
  it("lists each, and unlinks one for good after a recent sign-in; never the last way in", async () => {
    const deps = testDeps();
    const { home, work, person, google } = await leaver(deps);
    const homeCookie = (await verify(deps, home.idToken)).cookie as string;
    const app = appFor(peopleRoutes, deps);
    const call = (method: "get" | "delete", path: string, cookie = homeCookie) =>
      request(app)[method](path).set("Origin", ID_URL).set("Cookie", cookie).set("User-Agent", FIREFOX);

    const listed = await call("get", "/auth/account/accounts");
    expect(listed.status).toBe(200);
    expect(listed.body.accounts.map((a: { id: string; label: string; thisBrowser: boolean }) => a)).toEqual([
      expect.objectContaining({ id: home.uid, label: `email and password (${home.email})`, thisBrowser: true }),
      expect.objectContaining({ id: google.uid, label: `Google (${work})`, thisBrowser: false }),
    ]);

    // A stale sign-in cannot let a way in go.
    deps.clock.advance(6 * 60_000);
    expect((await call("delete", `/auth/account/accounts/${google.uid}`)).body.reason).toBe("step_up_required");
    deps.clock.advance(-6 * 60_000);
    expect((await call("delete", `/auth/account/accounts/${unique("nobody")}`)).status).toBe(404);
    // Not even a well-formed account id: not theirs, and the provider is never asked.
    expect((await call("delete", `/auth/account/accounts/${"x".repeat(200)}`)).status).toBe(404);
    const unlinked = await call("delete", `/auth/account/accounts/${google.uid}`);
    expect(unlinked.body).toEqual({ unlinked: true });
    await allTasksIdle();
    expect((await people.findById(db, person.id))!.uids).toEqual([home.uid]);
    expect(await gone(google.uid)).toBe(true);
    const told = await mailAfter(home.email, 0, (m) => m.text.includes("was unlinked"));
    expect(told.text).toContain(`A sign-in by Google (${work}) was unlinked`);
    // It still holds the work address: a new Google sign-in with it is theirs again, and told.
    expect((await verify(deps, (await signedInWithGoogle(work)).idToken)).body.personId).toBe(person.id);
  });

  it("keeps the last account of a person with no address", async () => {
    const deps = testDeps();
    const account = await signedUp();
    const person = await personFor(account, { emails: [], projects: ["startpage"] });
    const cookie = (await verify(deps, account.idToken)).cookie as string;
    const res = await request(appFor(peopleRoutes, deps))
      .delete(`/auth/account/accounts/${account.uid}`)
      .set("Origin", ID_URL)
      .set("Cookie", cookie);
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe("last_way_in");
    expect((await people.findById(db, person.id))!.uids).toEqual([account.uid]);
  });
});
