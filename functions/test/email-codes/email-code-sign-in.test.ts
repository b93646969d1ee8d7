/** POST /auth/otp/sign-in: a code signs its person in once, through an account it makes, links or takes back. */
import request from "supertest";
import { MINUTE } from "../../src/clock";
import * as sessions from "../../src/routes/sessions/sessions";
import type { ServiceEvent } from "../../src/core/model/event";
import * as people from "../../src/store/people";
import * as personHistory from "../../src/store/person-history";
import { signedUp, signInWithCustomToken, signInWithPassword } from "../support/auth";
import { appFor, auth, testDeps } from "../support/deps";
import { codeFor } from "../support/inbox";
import { accountWithPerson } from "../support/people";
import {
  db,
  RACE_ROUND_MS,
  raceRuns,
  RUNS,
  fresh,
  send,
  signIn,
  personAddress,
  otherThan,
  storedCode,
} from "../support/email-codes";

/** The events queued for the apps about `personId`, oldest first: their type, by whom, and `data`. */
async function eventsAbout(personId: string) {
  const entries = await db.collection("outbox").where("about", "==", personId).where("kind", "==", "event").get();
  return entries.docs
    .map((d) => d.get("event") as ServiceEvent)
    .sort((a, b) => a.seq - b.seq)
    .map((e) => ({ type: e.type, by: e.data.by, data: e.data }));
}

describe("POST /auth/otp/sign-in", () => {
  it("returns a custom token the Auth emulator exchanges for an ID token that POST /auth/verify approves", async () => {
    const { app, deps } = fresh();
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    await send(app, { email: account.email });
    const res = await signIn(app, { email: account.email, otp: await codeFor(account.email) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ customToken: expect.any(String) });
    const idToken = await signInWithCustomToken(res.body.customToken);
    const verified = await request(appFor(sessions, deps)).post("/auth/verify").send({ idToken, project: "startpage" });
    expect(verified.body).toMatchObject({ approved: true, uid: account.uid, personId: person.id });
    // The sign-in says it was by a one-time code (RFC 8176 otp), and the session keeps it.
    expect((await deps.identity.verifyIdToken(idToken, false))?.amr).toEqual(["otp"]);
  });

  it("consumes the code: it signs in once", async () => {
    const { app } = fresh();
    const email = await personAddress();
    await send(app, { email });
    const code = await codeFor(email);
    expect((await signIn(app, { email, otp: code })).status).toBe(200);
    const again = await signIn(app, { email, otp: code });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: "Invalid code", reason: "code_invalid" });
    expect(await storedCode(email)).toBeNull();
  });

  it("makes a verified account for a person who has none, and links it", async () => {
    const { app, deps } = fresh();
    const email = await personAddress({ uids: [] });
    await send(app, { email });
    const res = await signIn(app, { email, otp: await codeFor(email) });
    const user = await auth().getUserByEmail(email);
    expect(user.emailVerified).toBe(true);
    const linked = await people.findByEmail(db, email);
    expect(linked?.uids).toEqual([user.uid]);
    // The apps know people by their accounts: they hear of the link, and so does the history.
    expect(await eventsAbout(linked?.id as string)).toEqual([
      {
        type: "person.profile_changed",
        by: "person",
        data: expect.objectContaining({ uids: [user.uid], changes: { uids: { from: [], to: [user.uid] } } }),
      },
    ]);
    const history = await personHistory.page(db, linked?.id as string, 10, null);
    expect(history.map((h) => [h.event, h.via, h.changes])).toEqual([
      ["changed", "sign-in", { uids: { from: [], to: [user.uid] } }],
    ]);
    const idToken = await signInWithCustomToken(res.body.customToken);
    expect(
      (await request(appFor(sessions, deps)).post("/auth/verify").send({ idToken, project: "startpage" })).body,
    ).toMatchObject({ approved: true, uid: user.uid });
  });

  it("takes an unverified account for the address back from whoever registered it", async () => {
    const { app, deps } = fresh();
    const email = await personAddress({ uids: [] });
    const squatter = await signedUp({ email, verified: false });
    // Revocation has one-second resolution: make sure the squatter's token is strictly older.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await send(app, { email });
    const res = await signIn(app, { email, otp: await codeFor(email) });
    expect(res.status).toBe(200);
    await expect(signInWithPassword(email, squatter.password)).rejects.toThrow(
      /INVALID_PASSWORD|INVALID_LOGIN_CREDENTIALS/,
    );
    expect((await auth().getUser(squatter.uid)).emailVerified).toBe(true);
    const stale = await request(appFor(sessions, deps))
      .post("/auth/verify")
      .send({ idToken: squatter.idToken, project: "startpage" });
    expect(stale.status).toBe(401);
    const idToken = await signInWithCustomToken(res.body.customToken);
    expect(
      (await request(appFor(sessions, deps)).post("/auth/verify").send({ idToken, project: "startpage" })).body,
    ).toMatchObject({ approved: true, uid: squatter.uid });
  });

  it("is not blocked by someone who registered the address unverified and signed in with it first", async () => {
    const { app, deps } = fresh();
    const email = await personAddress({ uids: [] });
    const squatter = await signedUp({ email, verified: false });
    // The squatter's sign-in makes a pending person who holds the account and no address.
    const squatted = await request(appFor(sessions, deps))
      .post("/auth/verify")
      .send({ idToken: squatter.idToken, project: "startpage" });
    expect(squatted.body).toEqual({ approved: false, reason: "pending" });
    const squatterPerson = await people.findByUid(db, squatter.uid);
    expect(squatterPerson?.emails).toEqual([]);

    await send(app, { email });
    const res = await signIn(app, { email, otp: await codeFor(email) });
    expect(res.status).toBe(200);
    const owner = await people.findByEmail(db, email);
    expect(owner?.uids).toEqual([squatter.uid]);
    expect(await people.findById(db, squatterPerson?.id as string)).toBeNull();
    // The apps heard of the squatter's request: now that it is gone, they are told to forget it,
    // by its id alone (the account is the owner's now: an app must not forget what it keeps of
    // it); and the owner's new account is told as any link is.
    const squatterEvents = await eventsAbout(squatterPerson?.id as string);
    expect(squatterEvents.map((e) => e.type)).toEqual(["person.access_requested", "person.erased"]);
    expect(squatterEvents[1]).toEqual({
      type: "person.erased",
      by: "service",
      data: { uids: [], by: "service" },
    });
    expect(await eventsAbout(owner?.id as string)).toEqual([
      expect.objectContaining({
        type: "person.profile_changed",
        data: expect.objectContaining({ changes: { uids: { from: [], to: [squatter.uid] } } }),
      }),
    ]);
    // Erased as anyone is: once its job has run, what named it is swept and its history keeps only
    // that it was erased; the account it held is the owner's now, and stays.
    const squatterId = squatterPerson?.id as string;
    // (At one instant of the test's clock, so in either order.)
    expect((await personHistory.page(db, squatterId, 10, null)).map((h) => h.event).sort()).toEqual([
      "created",
      "erased",
    ]);
    deps.clock.advance(2 * MINUTE);
    deps.tasks?.runDue();
    await deps.tasks?.idle();
    expect((await personHistory.page(db, squatterId, 10, null)).map((h) => [h.event, h.by])).toEqual([
      ["erased", { kind: "service" }],
    ]);
    expect((await db.collection("erasures").doc(squatterId).get()).exists).toBe(false);
    expect((await auth().getUser(squatter.uid)).email).toBe(email);
    const idToken = await signInWithCustomToken(res.body.customToken);
    expect(
      (await request(appFor(sessions, deps)).post("/auth/verify").send({ idToken, project: "startpage" })).body,
    ).toMatchObject({ approved: true, uid: squatter.uid });
  });

  it("recovers an owner whose account was taken back earlier but is still held by the squatter's person", async () => {
    const { app, deps } = fresh();
    const email = await personAddress({ uids: [] });
    const squatter = await signedUp({ email, verified: false });
    await request(appFor(sessions, deps))
      .post("/auth/verify")
      .send({ idToken: squatter.idToken, project: "startpage" });
    // The address was verified at the provider before the link was made (a failure in between).
    await auth().updateUser(squatter.uid, { emailVerified: true });
    await send(app, { email });
    const res = await signIn(app, { email, otp: await codeFor(email) });
    expect(res.status).toBe(200);
    expect((await people.findByEmail(db, email))?.uids).toEqual([squatter.uid]);
  });

  it("answers 403 No account for that address when no person holds it", async () => {
    const { app } = fresh();
    const email = await personAddress();
    await send(app, { email });
    const code = await codeFor(email);
    const person = await people.findByEmail(db, email);
    await db.collection("people").doc(person!.id).delete();
    const res = await signIn(app, { email, otp: code });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "No account for that address", reason: "no_account" });
  });

  it.each([
    ["pending", { error: "Your account is pending", reason: "pending" }],
    ["rejected", { error: expect.any(String), reason: "rejected" }],
  ] as const)("answers 403 for a %s person", async (status, body) => {
    const { app } = fresh();
    const email = await personAddress({ status });
    await send(app, { email });
    const res = await signIn(app, { email, otp: await codeFor(email) });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(body);
  });

  it("leaves the code unconsumed when it refuses an account that is not approved", async () => {
    const { app } = fresh();
    const email = await personAddress({ status: "pending" });
    await send(app, { email });
    const code = await codeFor(email);
    expect((await signIn(app, { email, otp: code })).status).toBe(403);
    const person = await people.findByEmail(db, email);
    await db.collection("people").doc(person!.id).update({ status: "approved" });
    const res = await signIn(app, { email, otp: code });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ customToken: expect.any(String) });
  });

  it("answers 400 for a wrong, an expired and an exhausted code", async () => {
    const { app, deps } = fresh();
    const email = await personAddress();
    await send(app, { email });
    const code = await codeFor(email);
    expect((await signIn(app, { email, otp: otherThan(code) })).body).toEqual({
      error: "Invalid code",
      reason: "code_invalid",
    });
    for (let i = 0; i < 4; i++) await signIn(app, { email, otp: otherThan(code) });
    expect((await signIn(app, { email, otp: code })).body).toEqual({
      error: "Too many attempts. Request a new code.",
      reason: "code_exhausted",
    });
    deps.clock.advance(MINUTE);
    await send(app, { email });
    const second = await codeFor(email, 2);
    deps.clock.advance(10 * MINUTE);
    const expired = await signIn(app, { email, otp: second });
    expect(expired.status).toBe(400);
    expect(expired.body).toEqual({ error: "That code expired. Request a new one.", reason: "code_expired" });
  });

  it("never accepts a request-access code", async () => {
    const { app } = fresh();
    const email = await personAddress();
    await send(app, { email, purpose: "request-access" });
    const res = await signIn(app, { email, otp: await codeFor(email), purpose: "request-access" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Invalid code", reason: "code_invalid" });
  });

  it("answers 500 Sign-in failed when the provider fails", async () => {
    const identity = { ...testDeps().identity, createCustomToken: () => Promise.reject(new Error("provider down")) };
    const { app } = fresh({ identity });
    const email = await personAddress();
    await send(app, { email });
    const res = await signIn(app, { email, otp: await codeFor(email) });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "Sign-in failed", reason: "signin_failed" });
  });

  it.each([[{}], [{ email: "ada@example.test" }], [{ otp: "123456" }], [{ email: 1, otp: "123456" }]])(
    "answers 400 when a field is missing: %j",
    async (body) => {
      const res = await signIn(fresh().app, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "email and otp required", reason: "fields_required" });
    },
  );

  it(
    "lets exactly one of 50 concurrent sign-ins with the right code succeed",
    async () => {
      const { app } = fresh({}, true);
      await raceRuns(RUNS / 2, async () => {
        const email = await personAddress();
        await send(app, { email });
        const code = await codeFor(email);
        const answers = await Promise.all(Array.from({ length: 50 }, () => signIn(app, { email, otp: code })));
        expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
        // The rest are refused, the code being used, or told to retry where contention on Google's
        // emulator outlasted the transaction's retries (503 with Retry-After); none signs in.
        for (const a of answers.filter((a) => a.status !== 200))
          if (a.status === 503) expect(Number(a.headers["retry-after"])).toBeGreaterThan(0);
          else expect([a.status, a.body.error]).toEqual([400, "Invalid code"]);
        expect(await storedCode(email)).toBeNull();
      });
    },
    (RUNS / 2) * RACE_ROUND_MS,
  );
});
