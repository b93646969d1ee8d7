/**
 * Proves: a provider the operator does not name in ARRIVAL_PROVIDERS cannot vouch for an address.
 * Its sign-in with an address someone holds is not linked to them (no session as them), and takes
 * nothing of theirs; an account it is linked to does not become trusted by signing in with a
 * password; and when the owner of an invited address takes the invitation up with a code, nothing
 * the earlier sign-in brought (its account, a number that signs in by itself) comes with it.
 */
import request from "supertest";
import { transactionRunner } from "../../src/store/db";
import * as otp from "../../src/routes/otp/otp";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import * as people from "../../src/store/people";
import * as invitations from "../../src/store/invitations";
import { randomPhone, signedInByPhone, signedInWithGoogle, signedUp, signInWithPassword } from "../support/auth";
import { appFor, auth, testDeps, unique, type TestDeps } from "../support/deps";
import { codeIn, hasCode, mailAfter, mailTo } from "../support/inbox";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";

const { db } = freshProject();
const deps: TestDeps = testDeps({ store: db, transaction: transactionRunner(db) });
const otpApp = appFor(otp, deps);
const sessionsApp = appFor(sessionRoutes, deps);
const address = (prefix: string) => `${unique(prefix)}@example.test`;
const verify = (idToken: string) => request(sessionsApp).post("/auth/verify").send({ idToken, project: "startpage" });

describe("a provider the operator does not name", () => {
  it("signs in as nobody who holds the address it vouches for, and takes the address from nobody", async () => {
    const owner = await signedUp();
    const secondary = address("second");
    const person = await personFor(owner, { emails: [owner.email, secondary], projects: ["startpage"] }, db);
    const untrusted = await signedInWithGoogle(secondary, unique("gh"), "github.com");
    const res = await verify(untrusted.idToken);
    expect(res.body).toMatchObject({ approved: false, reason: "pending" });
    expect(res.body.personId).not.toBe(person.id);
    expect((await people.findById(db, person.id))!.uids).toEqual([owner.uid]);
    // A stranger waiting for review, holding no address: the owner's is still theirs alone.
    expect(await people.findByUid(db, untrusted.uid)).toMatchObject({ status: "pending", emails: [] });
    expect((await people.findByEmail(db, secondary))!.id).toBe(person.id);
  });

  it("leaves an account it is linked to unproven, even signed in with that account's password", async () => {
    const { cookie } = await adminCookie();
    const email = address("pw");
    expect((await invite(cookie, email)).status).toBe(201);
    const untrusted = await signedInWithGoogle(email, unique("gh"), "github.com");
    const password = `pw-${unique()}`;
    await auth().updateUser(untrusted.uid, { password });
    const res = await verify(await signInWithPassword(email, password));
    expect(res.body).toMatchObject({ approved: false, reason: "pending" });
    expect(await invitations.findByAddress(db, email)).not.toBeNull();
  });

  it("brings no number of its own into the invitation a code takes up", async () => {
    const { cookie } = await adminCookie();
    const email = address("phone");
    expect((await invite(cookie, email)).status).toBe(201);
    const sub = unique("gh");
    const first = await signedInWithGoogle(email, sub, "github.com");
    const phone = randomPhone();
    await auth().updateUser(first.uid, { phoneNumber: phone });
    const withPhone = await signedInWithGoogle(email, sub, "github.com");
    expect((await verify(withPhone.idToken)).body).toMatchObject({ approved: false, reason: "pending" });
    expect((await people.findByUid(db, first.uid))!.phones).toEqual([phone]);

    // The owner of the address takes the invitation up with a code.
    const seen = (await mailTo(email)).length;
    expect((await request(otpApp).post("/auth/otp/send").send({ email })).status).toBe(200);
    const code = codeIn(await mailAfter(email, seen, hasCode));
    expect((await request(otpApp).post("/auth/otp/sign-in").send({ email, otp: code })).status).toBe(200);
    const admitted = (await people.findByEmail(db, email))!;
    expect(admitted).toMatchObject({ status: "approved", phones: [] });
    expect(admitted.uids).not.toContain(first.uid);
    // The number signs in by itself: it stays with the newcomer who brought it, still waiting, and
    // opens nothing of the owner's.
    const byPhone = await signedInByPhone(phone);
    const refused = await verify(byPhone.idToken);
    expect(refused.body).toMatchObject({ approved: false, reason: "pending" });
    const holder = (await people.findByPhone(db, phone))!;
    expect(holder.id).not.toBe(admitted.id);
    expect(holder.uids).toContain(byPhone.uid);
  });
});

async function adminCookie() {
  const account = await signedUp();
  const admin = await personFor(account, { role: "admin", projects: ["*"] }, db);
  return { cookie: await sessionCookieFor(deps, account.uid, admin.id) };
}

const invite = (cookie: string, email: string) =>
  request(appFor(peopleRoutes, deps))
    .post("/auth/invitations")
    .set("Cookie", cookie)
    .send({ address: email, projects: ["startpage"] });
