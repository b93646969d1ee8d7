/**
 * Proves: an email code becomes no administrator's power by way of a passkey added before the
 * promotion. A member may add a passkey after any recent sign-in, an email code's included (the
 * passkey rule does not hold members), so a look-alike page that relays a member's code can plant
 * the attacker's passkey, sign in with it, and make recovery codes: the member is told "a passkey
 * was added", which means little to them. When that member is later made an administrator, none
 * of it may sign in as one: docs/security.md, "no email code, relayed by a look-alike page or
 * not, becomes their power". The promotion removes the passkeys and recovery codes the member
 * held, ends the sessions they opened, and says so in the enrolment's mail; the member's own
 * code then adds their first administrator's passkey, in the enrolment's days. So does the
 * operator's bootstrap-admin of a member.
 */
import request from "supertest";
import * as peopleGroup from "../../src/routes/people/people";
import * as sessions from "../../src/routes/sessions/sessions";
import { changePerson } from "../../src/core/people/change-person";
import { bootstrapAdmin } from "../../src/core/people/operator";
import { transactionRunner } from "../../src/store/db";
import * as passkeys from "../../src/store/passkeys";
import { personHistory } from "../../src/core/people/history";
import { SoftwareAuthenticator } from "../support/authenticator";
import { signedUp, signInWithCustomToken } from "../support/auth";
import { appFor, testConfig, testDeps, unique } from "../support/deps";
import { freshProject } from "../support/operator-cli";
import { cookieFrom, personFor, sessionCookieFor } from "../support/people";
import { newBrowser, passkeyWorld } from "../support/passkeys";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(120_000);

const deps = testDeps({ config: testConfig({ passkeyRoles: ["admin"] }) });
const keys = passkeyWorld(deps);
const sessionsApp = appFor(sessions, deps);
const peopleApp = appFor(peopleGroup, deps);
const OPERATOR = { kind: "operator" as const, name: "test operator" };

afterEach(() => allTasksIdle());

/** The session a sign-in's custom token opens, as a browser would: its cookie. */
async function sessionFrom(customToken: string): Promise<string> {
  const idToken = await signInWithCustomToken(customToken);
  const verified = await request(sessionsApp).post("/auth/verify").send({ idToken, project: "account" });
  expect(verified.body).toMatchObject({ approved: true });
  return cookieFrom(verified.headers["set-cookie"]) as string;
}

const listPeople = (cookie: string) => request(peopleApp).get("/auth/people").query({ limit: 1 }).set("Cookie", cookie);

/** What the notices queued about a person say. */
async function noticesAbout(personId: string): Promise<string[]> {
  const entries = await deps.store.collection("outbox").where("about", "==", personId).get();
  return entries.docs.flatMap((d) => (d.get("notice.lines") as string[] | undefined) ?? []);
}

describe("a passkey an email code added to a member", () => {
  it("does not act as an administrator once the member is made one", async () => {
    // The member's relayed code: a session of a second ago, by email code.
    const member = await keys.person({ projects: ["status"] });
    const attackers = new SoftwareAuthenticator();
    expect((await keys.register(member.browser, attackers)).status).toBe(201);
    // The attacker signs in with the passkey they planted, and keeps that session.
    const kept = await keys.signIn(newBrowser(), attackers);
    expect(kept.status).toBe(200);
    const keptSession = await sessionFrom(kept.body.customToken);

    // Months later, the member is made an administrator.
    await changePerson(deps, member.person.id, { role: "admin", projects: ["*"] }, { operator: OPERATOR });

    // The session the planted passkey opened ended with the promotion: it is no session at all.
    expect((await listPeople(keptSession)).status).toBe(401);
    // The attacker signs in with the passkey they planted: it was removed, and signs in no more.
    const signedIn = await keys.signIn(newBrowser(), attackers);
    expect([signedIn.status, signedIn.body.error]).toEqual([401, "That passkey wasn't accepted"]);
    expect((await request(keys.app).get("/auth/passkeys").set("Cookie", member.browser.session)).body.passkeys).toEqual(
      [],
    );
  });

  it("nor do the recovery codes made with it, and the member's own code adds their first key in the enrolment's days", async () => {
    const member = await keys.person({ projects: ["status"] });
    const attackers = new SoftwareAuthenticator();
    expect((await keys.register(member.browser, attackers, {}, "Attacker's key")).status).toBe(201);
    const signedIn = await keys.signIn(newBrowser(), attackers);
    const keyed = await sessionFrom(signedIn.body.customToken);
    const made = await request(keys.app).post("/auth/passkeys/recovery-codes").set("Cookie", keyed).send({});
    expect(made.status).toBe(201);
    const [code] = made.body.codes as string[];
    // A recovery code's session, opened before the promotion, ends with it too.
    const recovered = await request(keys.app)
      .post("/auth/passkeys/recovery/sign-in")
      .send({ email: member.account.email, code: (made.body.codes as string[])[1] });
    const recoverySession = await sessionFrom(recovered.body.customToken);

    await changePerson(deps, member.person.id, { role: "admin", projects: ["*"] }, { operator: OPERATOR });

    expect((await request(keys.app).get("/auth/passkeys").set("Cookie", recoverySession)).status).toBe(401);
    const used = await request(keys.app)
      .post("/auth/passkeys/recovery/sign-in")
      .send({ email: member.account.email, code });
    expect(used.body.reason).toBe("code_invalid");
    expect((await deps.store.collection("recoveryCodes").doc(member.person.id).get()).exists).toBe(false);

    // Told so, and told that a code is enough to add a first passkey, which it is.
    const told = await noticesAbout(member.person.id);
    expect(told).toContainEqual(
      expect.stringContaining("We removed your passkeys (“Attacker's key”) and your recovery codes"),
    );
    expect(told).toContainEqual(expect.stringContaining("until then an emailed code is enough to add your first one"));
    const code2 = await sessionCookieFor(deps, member.account.uid, member.person.id, ["otp"]);
    const own = new SoftwareAuthenticator();
    expect((await keys.register({ session: code2, binding: null }, own)).status).toBe(201);
    const ownSignIn = await keys.signIn(newBrowser(), own);
    expect((await listPeople(await sessionFrom(ownSignIn.body.customToken))).status).toBe(200);
  });

  it("nor when the operator makes that member the first administrator", async () => {
    // A deployment with no administrator yet, its own database: bootstrap-admin refuses otherwise.
    const { db } = freshProject();
    const deployment = () =>
      testDeps({ store: db, transaction: transactionRunner(db), config: testConfig({ passkeyRoles: ["admin"] }) });
    const boot = deployment();
    const bootKeys = passkeyWorld(boot);
    const member = await bootKeys.person({ projects: ["status"] });
    const attackers = new SoftwareAuthenticator();
    expect((await bootKeys.register(member.browser, attackers)).status).toBe(201);
    const signedIn = await bootKeys.signIn(newBrowser(), attackers);
    const idToken = await signInWithCustomToken(signedIn.body.customToken);
    const verified = await request(appFor(sessions, boot)).post("/auth/verify").send({ idToken, project: "account" });
    const keptSession = cookieFrom(verified.headers["set-cookie"]) as string;

    // The operator's command runs apart from the functions: an instance that has not seen the
    // person in the last seconds reads them afresh.
    await bootstrapAdmin(deployment(), member.account.email, "", OPERATOR);

    const listed = await request(appFor(peopleGroup, deployment())).get("/auth/people").set("Cookie", keptSession);
    expect(listed.status).toBe(401);
    expect((await bootKeys.signIn(newBrowser(), attackers)).status).toBe(401);
    expect((await db.collection("passkeys").where("personId", "==", member.person.id).get()).size).toBe(0);
  });

  it("goes once when the same change takes away the address it came through", async () => {
    const account = await signedUp();
    const work = `${unique("work")}@example.test`;
    const member = await personFor(account, { projects: ["status"], emails: [account.email, work] }, deps.store);
    const planted = (name: string, address: string | null) =>
      deps.transaction(async (tx) =>
        passkeys.create(deps.store, tx, {
          id: unique("pk"),
          personId: member.id,
          uid: account.uid,
          credentialId: unique("cred"),
          publicKey: "pk",
          counter: 0,
          transports: [],
          aaguid: "",
          backupEligible: false,
          backedUp: false,
          name,
          address,
          createdAt: deps.clock.now(),
          lastUsedAt: null,
          suspectAt: null,
        }),
      );
    await planted("Through work", work);
    await planted("Own", null);

    const change = { role: "admin" as const, projects: ["*"], emails: [account.email] };
    await changePerson(deps, member.id, change, { operator: OPERATOR });

    expect(await passkeys.listByPerson(deps.store, member.id)).toEqual([]);
    const removals = (await personHistory(deps, member.id, 20, null)).entries.filter(
      (e) => e.event === "passkeys-removed",
    );
    expect(removals.flatMap((e) => e.changes.passkeys?.from ?? []).sort()).toEqual(["Own", "Through work"]);
  });
});
