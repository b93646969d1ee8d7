/**
 * Proves: an invitation and a rule by domain let in only whom they were meant for. An invitation
 * ends when its address is added to someone (and cannot wake when the address is freed again), and
 * when its inviter can no longer approve anyone (demoted, or turned down). An approving rule does
 * not re-admit a person turned down by a `+tag` of their address. A provider the operator does
 * not name cannot vouch an invited address in: the newcomer waits, and a code to the address
 * takes the invitation up, without the account that came first.
 */
import request from "supertest";
import { transactionRunner } from "../../src/store/db";
import * as otp from "../../src/routes/otp/otp";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import * as people from "../../src/store/people";
import * as invitations from "../../src/store/invitations";
import type { AddressRule } from "../../src/core/settings";
import { signedInWithGoogle, signedUp, signInWithCustomToken } from "../support/auth";
import { allTasksIdle } from "../support/task-queue";
import { appFor, auth, testConfig, testDeps, unique, type TestDeps } from "../support/deps";
import { codeFor, codeIn, hasCode, mailAfter, mailTo, settledCount } from "../support/inbox";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";

const { db } = freshProject();
const RULES: AddressRule[] = [{ domain: "school.example", then: "approve", projects: ["calendar"], groups: [] }];
const deps: TestDeps = testDeps({
  store: db,
  transaction: transactionRunner(db),
  config: testConfig({ addressRules: RULES }),
});
const peopleApp = appFor(peopleRoutes, deps);
const otpApp = appFor(otp, deps);
const sessionsApp = appFor(sessionRoutes, deps);
const address = (prefix = "inv") => `${unique(prefix)}@example.test`;

async function admin() {
  const account = await signedUp();
  const person = await personFor(account, { role: "admin", projects: ["*"] }, db);
  return { person, cookie: await sessionCookieFor(deps, account.uid, person.id) };
}

const invite = (cookie: string, email: string) =>
  request(peopleApp)
    .post("/auth/invitations")
    .set("Cookie", cookie)
    .send({ address: email, projects: ["location"] });

/** Signs in by code: the answer of POST /auth/otp/sign-in. */
async function codeSignIn(email: string) {
  const seen = (await mailTo(email)).length;
  expect((await request(otpApp).post("/auth/otp/send").send({ email })).status).toBe(200);
  return request(otpApp)
    .post("/auth/otp/sign-in")
    .send({ email, otp: codeIn(await mailAfter(email, seen, hasCode)) });
}

/** A sign-in code asked for an address nothing lets in goes nowhere (the contract's success-shaped 200). */
async function noCodeFor(email: string) {
  const seen = await settledCount(email);
  expect((await request(otpApp).post("/auth/otp/send").send({ email })).status).toBe(200);
  expect(await settledCount(email)).toBe(seen);
}

describe("an invitation", () => {
  it("ends when its address is added to someone, and does not wake when the address is freed", async () => {
    const { cookie } = await admin();
    const email = address();
    expect((await invite(cookie, email)).status).toBe(201);
    const holder = await personFor(await signedUp(), {}, db);
    const patch = (emails: string[]) =>
      request(peopleApp).patch(`/auth/people/${holder.id}`).set("Cookie", cookie).send({ emails });
    expect((await patch([...holder.emails, email])).status).toBe(200);
    expect(await invitations.findByAddress(db, email)).toBeNull();
    expect((await patch(holder.emails)).status).toBe(200);
    // Free again, and a stranger's: its invitation's grants are gone with it.
    await noCodeFor(email);
    expect(await people.findByEmail(db, email)).toBeNull();
  });

  it("lets nobody in once its inviter is no longer an administrator, and is revoked", async () => {
    const inviter = await admin();
    const { cookie } = await admin();
    const email = address("demoted");
    expect((await invite(inviter.cookie, email)).status).toBe(201);
    const demoted = await request(peopleApp)
      .patch(`/auth/people/${inviter.person.id}`)
      .set("Cookie", cookie)
      .send({ role: "user" });
    expect(demoted.status).toBe(200);
    expect(await invitations.findByAddress(db, email)).toBeNull();
    await noCodeFor(email);
  });

  it("lets nobody in while its inviter is turned down, even before it is revoked", async () => {
    const inviter = await admin();
    const email = address("rejected");
    expect((await invite(inviter.cookie, email)).status).toBe(201);
    // Set back outside the API: the revocation that follows a change has not run.
    await db.collection("people").doc(inviter.person.id).update({ status: "rejected" });
    expect(await invitations.findByAddress(db, email)).not.toBeNull();
    // Neither its mail nor a code goes, and nobody is made.
    await noCodeFor(email);
    expect(await people.findByEmail(db, email)).toBeNull();
  });

  it("is not taken up through a provider the operator does not name; a code to the address takes it up", async () => {
    const { cookie } = await admin();
    const email = address("vouched");
    expect((await invite(cookie, email)).status).toBe(201);
    const untrusted = await signedInWithGoogle(email, unique("gh"), "github.com");
    const verified = await request(sessionsApp)
      .post("/auth/verify")
      .send({ idToken: untrusted.idToken, project: "location" });
    expect(verified.body).toMatchObject({ approved: false, reason: "pending" });
    expect(await invitations.findByAddress(db, email)).not.toBeNull();

    const signedIn = await codeSignIn(email);
    expect(signedIn.status).toBe(200);
    const person = (await people.findByEmail(db, email))!;
    expect(person).toMatchObject({ status: "approved", projects: ["location"] });
    expect(person.uids).not.toContain(untrusted.uid);
    expect(await invitations.findByAddress(db, email)).toBeNull();
    await allTasksIdle();
    await expect(auth().getUser(untrusted.uid)).rejects.toMatchObject({ code: "auth/user-not-found" });
    const idToken = await signInWithCustomToken(signedIn.body.customToken);
    expect((await request(sessionsApp).post("/auth/verify").send({ idToken, project: "location" })).body.approved).toBe(
      true,
    );
  });

  it("is taken up through a named provider's verified sign-in", async () => {
    const { cookie } = await admin();
    const email = address("named");
    expect((await invite(cookie, email)).status).toBe(201);
    const google = await signedInWithGoogle(email);
    const verified = await request(sessionsApp)
      .post("/auth/verify")
      .send({ idToken: google.idToken, project: "location" });
    expect(verified.body).toMatchObject({ approved: true, projects: ["location"] });
  });
});

describe("an approving rule by domain", () => {
  /** A request for access confirmed with its code. */
  async function ask(email: string) {
    expect((await request(otpApp).post("/auth/otp/send").send({ email, purpose: "request-access" })).status).toBe(200);
    const res = await request(otpApp)
      .post("/auth/otp/verify")
      .send({ email, otp: await codeFor(email), purpose: "request-access" });
    expect(res.status).toBe(200);
    return (await people.findByEmail(db, email))!;
  }

  it("does not re-admit someone turned down by a +tag of their address", async () => {
    const local = unique("alice");
    const turnedDown = await ask(`${local}@school.example`);
    expect(turnedDown.status).toBe("approved");
    await db.collection("people").doc(turnedDown.id).update({ status: "rejected" });
    const again = await ask(`${local}+1@school.example`);
    expect(again).toMatchObject({ status: "pending", projects: [], suggestion: { rule: "school.example" } });
  });

  it("does not take a provider's word the operator did not name for an address at its domain", async () => {
    const email = `${unique("gh")}@school.example`;
    const untrusted = await signedInWithGoogle(email, unique("gh"), "github.com");
    const verified = await request(sessionsApp)
      .post("/auth/verify")
      .send({ idToken: untrusted.idToken, project: "calendar" });
    expect(verified.body).toMatchObject({ approved: false, reason: "pending" });
    // The newcomer claims the address without holding it; the rule only suggests, for the reviewer.
    expect(await people.findByEmail(db, email)).toBeNull();
    expect(await people.findByUid(db, untrusted.uid)).toMatchObject({
      status: "pending",
      emails: [],
      origin: { claimedAddress: email },
      suggestion: { rule: "school.example" },
    });
  });
});
