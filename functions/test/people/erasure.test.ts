/**
 * Erasure, proved by looking: a person with something in every corner the service keeps is erased
 * by the operator's `people erase`, then every collection of the database and the identity
 * provider are scanned for anything of theirs. On a project of its own, so the scan sees every
 * document there is.
 */
import { getAuth } from "firebase-admin/auth";
import { getApp } from "firebase-admin/app";
import { DAY } from "../../src/clock";
import { allTasksIdle } from "../support/task-queue";
import { firebaseIdentity } from "../../src/adapters/identity";
import { changePerson } from "../../src/core/people/change-person";
import { invite } from "../../src/core/invitations/invitations";
import { issueExchangeCode } from "../../src/core/sessions/exchange-codes";
import * as notifications from "../../src/store/notifications";
import * as passkeys from "../../src/store/passkeys";
import * as projectAccess from "../../src/store/project-access";
import * as sessions from "../../src/store/sessions";
import type { Firestore } from "firebase-admin/firestore";
import { randomPhone } from "../support/auth";
import { appFor, ID_URL, testDeps, unique } from "../support/deps";
import { operator, freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";
import request from "supertest";
import * as peopleRoutes from "../../src/routes/people/people";
import * as people from "../../src/store/people";
import { erasePerson } from "../../src/core/account/erasure";

jest.setTimeout(120_000);

/** Every document of every collection (and the collections under them), as its path and its data in text. */
async function everything(db: Firestore): Promise<Array<{ path: string; text: string }>> {
  const found: Array<{ path: string; text: string }> = [];
  const walk = async (collections: FirebaseFirestore.CollectionReference[]) => {
    for (const collection of collections) {
      for (const doc of (await collection.get()).docs) {
        found.push({ path: doc.ref.path, text: `${doc.ref.path} ${JSON.stringify(doc.data())}` });
        await walk(await doc.ref.listCollections());
      }
    }
  };
  await walk(await db.listCollections());
  return found;
}

describe("people erase", () => {
  afterEach(() => allTasksIdle());

  it("leaves no document or field with the person's address, number, uid, name or note, and no account at the provider", async () => {
    const { env, db, projectId } = freshProject();
    const auth = getAuth(getApp(projectId));
    const deps = testDeps({ store: db, identity: firebaseIdentity(auth) });
    const now = () => deps.clock.now();
    const byOperator = { operator: { kind: "operator" as const, name: "ops@console" } };

    const email = `${unique("erin")}@example.test`;
    const phone = randomPhone();
    const name = `Erin ${unique("Name")}`;
    const note = `Please let me in, ${unique("note")}`;
    const account = await auth.createUser({ email, emailVerified: true, phoneNumber: phone, displayName: name });
    const other = await auth.createUser({ email: `${unique("other")}@example.test` });
    const keeper = await personFor(
      { uid: unique("uid"), email: `${unique("keeper")}@example.test` },
      { role: "admin", projects: ["*"] },
      db,
    );
    const erin = await personFor(
      { uid: account.uid, email },
      { status: "pending", phones: [phone], name, note, origin: { via: "email", address: email } },
      db,
    );
    const someone = await personFor({ uid: other.uid, email: other.email as string }, {}, db);

    // Approved and made an administrator (history, and the approval's notice in the outbox)...
    await changePerson(deps, erin.id, { status: "approved", role: "admin", projects: ["*"] }, byOperator);
    // ...who then changes someone else (that history names who did it).
    const approvedErin = { ...erin, status: "approved" as const, role: "admin" as const };
    await changePerson(
      deps,
      someone.id,
      { projects: ["status"] },
      { admin: approvedErin, signedInAt: now(), amr: ["hwk", "user"], from: "Firefox on Linux" },
    );
    // ...and invites someone (the invitation names who invited, by address).
    const invitee = `${unique("invitee")}@example.test`;
    await invite(
      deps,
      { address: invitee, name: "", projects: ["status"], groups: [], role: "user", note: "" },
      { admin: approvedErin, signedInAt: now(), amr: ["hwk", "user"], from: "Firefox on Linux" },
    );
    // A session, a passkey, a project reached, notices addressed to them, an exchange code.
    await sessions.record(db, {
      sessionId: unique("s"),
      personId: erin.id,
      uid: account.uid,
      openedAt: now(),
      authTime: now(),
      amr: ["otp"],
      address: null,
      passkeyId: null,
      codesMadeAt: null,
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0",
      lastSeenAt: now(),
      expiresAt: new Date(now().getTime() + 86_400_000),
      endedAt: null,
    });
    await db.runTransaction(async (tx) =>
      passkeys.create(db, tx, {
        id: unique("pk"),
        personId: erin.id,
        uid: account.uid,
        credentialId: unique("cred"),
        publicKey: "pQECAyYgASFYIA",
        counter: 0,
        transports: ["internal"],
        aaguid: "00000000-0000-0000-0000-000000000000",
        backupEligible: true,
        backedUp: true,
        name: `${name}'s phone`,
        address: null,
        createdAt: now(),
        lastUsedAt: null,
        suspectAt: null,
      }),
    );
    await projectAccess.record(db, erin.id, "startpage", now(), new Date(now().getTime() + DAY));
    const notice = (id: string, audience: string[]) =>
      notifications.create(db, {
        id,
        title: "Hello",
        body: "A notice",
        link: null,
        level: "info",
        audience,
        createdAt: now(),
      });
    await notice(`${now().getTime()}-a`, [erin.id]);
    await notice(`${now().getTime()}-b`, [erin.id, someone.id]);
    await db.runTransaction(async (tx) =>
      notifications.saveReadState(db, tx, erin.id, { readIds: ["x"], allReadAt: null }),
    );
    await issueExchangeCode(deps, erin.id, account.uid);
    await allTasksIdle();

    const theirs = [email, phone, account.uid, name, note, encodeURIComponent(email), encodeURIComponent(phone)];
    const holding = (docs: Array<{ path: string; text: string }>) =>
      docs.filter((d) => theirs.some((t) => d.text.includes(t))).map((d) => d.path);
    // Before, the scan finds them in every collection that keeps something of a person: it can fail.
    const before = await everything(db);
    const keeping = new Set(
      before
        .filter((d) => d.text.includes(erin.id) || theirs.some((t) => d.text.includes(t)))
        .map((d) => d.path.split("/")[0]),
    );
    expect([...keeping].sort()).toEqual(
      [
        "auditTrail",
        "exchangeCodes",
        "invitations",
        "noticeWindows",
        "notifications",
        "outbox",
        "passkeys",
        "people",
        "personHistory",
        "personKeys",
        "projectAccess",
        "sessions",
        "startpageReads",
      ].sort(),
    );
    expect(holding(before).length).toBeGreaterThan(0);

    const run = await operator(["people", "erase", email, "--yes", "--json"], env);
    expect(run).toMatchObject({ code: 0 });
    expect(JSON.parse(run.stdout)).toEqual({ erased: erin.id, finished: true, providerSyncErrors: [], apps: [] });

    const after = await everything(db);
    const data = (d: { path: string; text: string }) => JSON.parse(d.text.slice(d.path.length + 1));
    // The apps are told to forget them (docs/endpoints/events.md) by an event in the outbox that
    // holds their ids and nothing else; the events of their earlier changes are gone.
    const told = (d: { path: string; text: string }) =>
      d.path.startsWith("outbox/") && data(d).event?.personId === erin.id;
    expect(after.filter(told).map((d) => data(d).event)).toEqual([
      expect.objectContaining({
        type: "person.erased",
        personId: erin.id,
        data: { uids: [account.uid], by: "operator" },
      }),
    ]);
    expect(holding(after.filter((d) => !told(d)))).toEqual([]);
    // What is left of them: one entry that they were erased, and by whom; and where they acted on
    // someone else, that an administrator did, by an id that names nobody now. The invitation they
    // sent is revoked: an erased administrator lets nobody in.
    const trail = (d: { path: string }) => d.path.startsWith("auditTrail/");
    const left = after.filter((d) => d.text.includes(erin.id) && !told(d) && !trail(d)).map(data);
    expect(left).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ personId: erin.id, event: "erased", via: "cli", changes: {} }),
        // How the session she acted from began is kept with it: it names nobody.
        expect.objectContaining({
          personId: someone.id,
          by: { kind: "admin", personId: erin.id, email: null, amr: ["hwk", "user"] },
        }),
      ]),
    );
    expect(left).toHaveLength(2);
    // The audit trail keeps what she did as an administrator, and her erasure, by her id alone.
    const acts = after.filter((d) => trail(d) && d.text.includes(erin.id)).map(data);
    expect(acts).toHaveLength(3);
    expect(acts.map((r) => [r.actorId, r.action])).toEqual(
      expect.arrayContaining([
        [`admin:${erin.id}`, "invitation.invited-someone"],
        [`admin:${erin.id}`, "person.changed"],
        [expect.stringMatching(/^operator:/), "cli.people.erase"],
      ]),
    );
    expect(after.filter((d) => d.path.startsWith("invitations/") && d.text.includes(invitee))).toEqual([]);
    expect(after.filter((d) => d.path.startsWith("notifications/"))).toHaveLength(1);
    expect(after.find((d) => d.path === `people/${keeper.id}`)).toBeDefined();
    expect(after.find((d) => d.path === `people/${someone.id}`)).toBeDefined();

    // Nor at the identity provider; the other account stays.
    expect((await auth.getUsers([{ uid: account.uid }, { email }, { phoneNumber: phone }])).users).toEqual([]);
    expect((await auth.getUsers([{ uid: other.uid }])).users).toHaveLength(1);
  });

  it("people export prints the person's copy as JSON, and their history records the operator took it", async () => {
    const { env, db, projectId } = freshProject();
    const auth = getAuth(getApp(projectId));
    const email = `${unique("exp")}@example.test`;
    const account = await auth.createUser({ email, emailVerified: true, displayName: "Exa Port" });
    const person = await personFor({ uid: account.uid, email }, { name: "Exa Port", note: "hello" }, db);
    const run = await operator(["people", "export", email], env);
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data).toMatchObject({
      format: "person-data/1",
      person: { personId: person.id, emails: [email], name: "Exa Port", note: "hello" },
      accounts: [expect.objectContaining({ uid: account.uid, email })],
      history: [
        expect.objectContaining({ event: "exported", by: { kind: "operator", name: expect.any(String) }, via: "cli" }),
      ],
    });
    const missing = await operator(["people", "export", "nobody@example.test"], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no person has the address/);
  });

  it("refuses to erase the last approved administrator, and changes nothing", async () => {
    const { env, db } = freshProject();
    expect((await operator(["bootstrap-admin", "boss@example.test"], env)).code).toBe(0);
    const run = await operator(["people", "erase", "boss@example.test", "--yes"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/last approved administrator/);
    expect((await db.collection("people").where("emails", "array-contains", "boss@example.test").get()).size).toBe(1);
  });
});

describe("an erasure the identity provider fails part-way", () => {
  afterEach(() => allTasksIdle());

  /**
   * The provider failing: a fake of its failure (the Auth emulator is shared by every file, so it
   * cannot be stopped for one), in front of the real one. It fails while `down` says so.
   */
  function failing(auth: ReturnType<typeof getAuth>) {
    const real = firebaseIdentity(auth);
    const state = { down: true };
    const identity = {
      ...real,
      deleteAccounts: (uids: string[]) =>
        state.down ? Promise.reject(new Error("the identity provider is unavailable")) : real.deleteAccounts(uids),
    };
    return { identity, state };
  }

  it("says it is not finished, lists it, and finishes by itself once the provider answers", async () => {
    const { env, db, projectId } = freshProject();
    const auth = getAuth(getApp(projectId));
    const { identity, state } = failing(auth);
    const deps = testDeps({ store: db, identity });
    const email = `${unique("una")}@example.test`;
    const account = await auth.createUser({ email, emailVerified: true });
    const una = await personFor({ uid: account.uid, email }, { projects: ["startpage"] }, db);
    const app = appFor(peopleRoutes, deps);
    const cookie = await sessionCookieFor(deps, account.uid, una.id);

    const res = await request(app).delete("/auth/account").set("Origin", ID_URL).set("Cookie", cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      erased: true,
      finished: false,
      providerSyncErrors: [{ uid: account.uid, operation: "delete_account", error: expect.any(String) }],
    });
    expect(await people.findById(db, una.id)).toBeNull();
    expect((await auth.getUsers([{ uid: account.uid }])).users).toHaveLength(1);
    const listed = await operator(["people", "erasures", "--json"], env);
    expect(JSON.parse(listed.stdout).unfinished).toEqual([
      { personId: una.id, uids: [account.uid], startedAt: expect.any(String), lastTriedAt: expect.any(String) },
    ]);

    // The provider answers again; the job, due a minute after the erasure, finishes it.
    state.down = false;
    deps.clock.advance(61_000);
    deps.tasks!.runDue();
    await allTasksIdle();
    expect((await auth.getUsers([{ uid: account.uid }])).users).toEqual([]);
    expect(JSON.parse((await operator(["people", "erasures", "--json"], env)).stdout).unfinished).toEqual([]);
    // The job is gone; what stays about them is the event that tells the apps, with their ids alone.
    const left = (await db.collection("outbox").where("about", "==", una.id).get()).docs;
    expect(left.map((d) => [d.get("kind"), d.get("event.type")])).toEqual([["event", "person.erased"]]);
  });

  it("is retried with backoff while the provider fails, and never deletes an account someone signed in with since", async () => {
    const { db, projectId } = freshProject();
    const auth = getAuth(getApp(projectId));
    const { identity } = failing(auth);
    const deps = testDeps({ store: db, identity });
    const email = `${unique("rex")}@example.test`;
    const account = await auth.createUser({ email, emailVerified: true });
    const rex = await personFor({ uid: account.uid, email }, { projects: ["startpage"] }, db);
    const byOperator = { operator: { kind: "operator" as const, name: "ops@console" } };
    expect((await erasePerson(deps, rex.id, byOperator)).finished).toBe(false);
    // The job's first try fails too, and is tried again after its backoff.
    deps.clock.advance(61_000);
    deps.tasks!.runDue();
    await allTasksIdle();
    const [job] = (await db.collection("outbox").where("about", "==", rex.id).where("kind", "==", "erasure").get())
      .docs;
    expect(job!.get("state")).toBe("pending");
    expect(job!.get("attempts")).toBe(1);
    expect(job!.get("lastError")).toBe("unwritten");

    // Meanwhile the account, still at the provider, signs in again: a new person holds it now.
    const again = await personFor({ uid: account.uid, email }, { status: "pending" }, db);
    const healed = testDeps({ store: db, identity: firebaseIdentity(auth) });
    healed.clock.set(new Date(deps.clock.now().getTime() + 60_000));
    expect((await erasePerson(healed, rex.id, byOperator)).finished).toBe(true);
    expect((await auth.getUsers([{ uid: account.uid }])).users).toHaveLength(1);
    expect((await people.findByUid(db, account.uid))?.id).toBe(again.id);
  });
});
