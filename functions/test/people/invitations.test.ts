/**
 * Invitations over HTTP, on a project of this file's own: an invited address signs in (by code,
 * by a provider, by asking) and arrives approved with its grants, never queued; the mail carries
 * no credential; an expired or revoked invitation leaves a stranger; a file run twice invites
 * nobody twice, and a file with a bad row invites nobody; inviting needs a recent sign-in.
 */
import request from "supertest";
import { DAY, MINUTE } from "../../src/clock";
import { transactionRunner } from "../../src/store/db";
import * as otp from "../../src/routes/otp/otp";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import * as people from "../../src/store/people";
import * as invitations from "../../src/store/invitations";
import { arriveByCode } from "../../src/core/arrival/arrival";
import { RESEND_WAIT_MS } from "../../src/core/invitations/invitations";
import { deliver } from "../../src/core/outbox/drain";
import { handlers } from "../../src/tasks/mail";
import { signedUp, signInWithCustomToken } from "../support/auth";
import { appFor, ID_URL, testDeps, unique, type TestDeps } from "../support/deps";
import { codeFor, mailTo, waitForMail } from "../support/inbox";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";
import type { Person } from "../../src/core/model/person";

const { db } = freshProject();
const world = (): TestDeps => testDeps({ store: db, transaction: transactionRunner(db) });
const deps = world();
const peopleApp = appFor(peopleRoutes, deps);
const otpApp = appFor(otp, deps);
const sessionsApp = appFor(sessionRoutes, deps);

async function adminSession(d: TestDeps = deps): Promise<{ cookie: string; person: Person }> {
  const account = await signedUp();
  const person = await personFor(account, { role: "admin", projects: ["*"], name: "Inviter" }, db);
  return { cookie: await sessionCookieFor(d, account.uid, person.id), person };
}

const address = (prefix = "inv") => `${unique(prefix)}@example.test`;

async function inviteVia(cookie: string, body: Record<string, unknown>, app = peopleApp) {
  return request(app).post("/auth/invitations").set("Cookie", cookie).send(body);
}

/** Signs in by code as a browser does, through to POST /auth/verify for `project`. */
async function signInByCode(email: string, project: string, nth = 1) {
  expect((await request(otpApp).post("/auth/otp/send").send({ email })).status).toBe(200);
  const signedIn = await request(otpApp)
    .post("/auth/otp/sign-in")
    .send({ email, otp: await codeFor(email, nth) });
  if (signedIn.status !== 200) return { signedIn, verified: null };
  const idToken = await signInWithCustomToken(signedIn.body.customToken);
  const verified = await request(sessionsApp).post("/auth/verify").send({ idToken, project });
  return { signedIn, verified };
}

const invitationMails = async (email: string) => (await mailTo(email)).filter((m) => m.subject.includes("invited"));

describe("POST /auth/invitations", () => {
  it("lets an invited address sign in by code, approved with its grants, never queued", async () => {
    const { cookie, person: admin } = await adminSession();
    const email = address();
    const invited = await inviteVia(cookie, {
      address: email.toUpperCase(),
      name: "Grace Hopper",
      projects: ["calendar"],
      groups: ["navy"],
      note: "Welcome aboard",
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({
      id: invitations.invitationId(email),
      address: email,
      projects: ["calendar"],
      groups: ["navy"],
      role: "user",
      state: "live",
      sends: 1,
      invitedBy: { kind: "admin", personId: admin.id },
    });
    expect(new Date(invited.body.expiresAt).getTime() - deps.clock.now().getTime()).toBe(14 * DAY);
    // Nobody holds the address until its owner proves it.
    expect(await people.findByEmail(db, email)).toBeNull();

    const [mail] = await waitForMail(email);
    expect(mail?.subject).toBe("You're invited to id.example.test");
    expect(mail?.text).toContain(`${admin.emails[0]} invited you`);
    expect(mail?.text).toContain("with access to calendar");
    expect(mail?.text).toContain("Welcome aboard");
    // A link to the sign-in page and nothing more: no code, no token, nothing a scanner could use.
    const links = [...(mail?.text ?? "").matchAll(/https?:\/\/\S+/g)].map((m) => m[0]);
    expect(links).toEqual([`${ID_URL}/`]);
    expect(mail?.text).not.toMatch(/\b[0-9]{6}\b/);

    const { signedIn, verified } = await signInByCode(email, "calendar", 2);
    expect(signedIn.status).toBe(200);
    expect(verified?.body).toMatchObject({ approved: true, email, name: "Grace Hopper", projects: ["calendar"] });
    const person = (await people.findByEmail(db, email)) as Person;
    expect(person).toMatchObject({ status: "approved", groups: ["navy"], role: "user" });
    expect(person.awaitingNotice).toBeUndefined();
    const queue = await request(peopleApp).get("/auth/people/queue").set("Cookie", cookie);
    expect(queue.body.people.map((p: { personId: string }) => p.personId)).not.toContain(person.id);
    // Taken up: the invitation is gone, and the person's history holds who invited them and the
    // account their sign-in linked (at one instant of the test's clock, so in either order).
    expect(await invitations.findByAddress(db, email)).toBeNull();
    const history = await request(peopleApp).get(`/auth/people/${person.id}/history`).set("Cookie", cookie);
    expect(history.body.entries).toHaveLength(2);
    expect(history.body.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ event: "changed", via: "sign-in", changes: { uids: { from: [], to: person.uids } } }),
        expect.objectContaining({
          event: "created",
          via: "invitation",
          by: expect.objectContaining({ personId: admin.id }),
        }),
      ]),
    );
    const own = await request(peopleApp).get(`/auth/people/${admin.id}/history`).set("Cookie", cookie);
    expect(own.body.entries).toContainEqual(
      expect.objectContaining({ event: "invited-someone", changes: { invited: { from: null, to: email } } }),
    );
  });

  it("lets an invited address in through a provider's verified sign-in, and through a request for access", async () => {
    const { cookie } = await adminSession();
    const byProvider = address("prov");
    const byRequest = address("req");
    for (const email of [byProvider, byRequest])
      expect((await inviteVia(cookie, { address: email, projects: ["location"] })).status).toBe(201);

    const account = await signedUp({ email: byProvider, verified: true });
    const verified = await request(sessionsApp)
      .post("/auth/verify")
      .send({ idToken: account.idToken, project: "location" });
    expect(verified.body).toMatchObject({ approved: true, email: byProvider, projects: ["location"] });

    await request(otpApp).post("/auth/otp/send").send({ email: byRequest, purpose: "request-access" });
    const asked = await request(otpApp)
      .post("/auth/otp/verify")
      .send({ email: byRequest, otp: await codeFor(byRequest, 2), purpose: "request-access", name: "Req" });
    expect(asked.status).toBe(200);
    expect(await people.findByEmail(db, byRequest)).toMatchObject({ status: "approved", projects: ["location"] });
  });

  it("refuses an address a person holds, plainly, and makes nothing", async () => {
    const { cookie } = await adminSession();
    const holder = await personFor({ uid: unique("u"), email: address("held") }, { status: "pending" }, db);
    const res = await inviteVia(cookie, { address: holder.emails[0], projects: ["calendar"] });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ reason: "address_held" });
    expect(res.body.error).toContain(holder.id);
    expect(await invitations.findByAddress(db, holder.emails[0] as string)).toBeNull();
    expect(await people.findById(db, holder.id)).toMatchObject({ status: "pending", projects: [] });
  });

  it("refuses a second invitation of an address while the first lives", async () => {
    const { cookie } = await adminSession();
    const email = address();
    expect((await inviteVia(cookie, { address: email, projects: ["calendar"] })).status).toBe(201);
    const again = await inviteVia(cookie, { address: email, projects: ["location"], role: "admin" });
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe("already_invited");
    expect(await invitations.findByAddress(db, email)).toMatchObject({ projects: ["calendar"], role: "user" });
  });

  it("asks an administrator signed in over 5 minutes ago to sign in again, to invite anyone, an administrator above all", async () => {
    const d = world();
    const app = appFor(peopleRoutes, d);
    const { cookie } = await adminSession(d);
    d.clock.advance(5 * MINUTE + 1000);
    for (const body of [{ role: "admin" }, { projects: ["calendar"] }]) {
      const email = address("stale");
      const res = await inviteVia(cookie, { address: email, ...body }, app);
      expect(res.status).toBe(403);
      expect(res.body.reason).toBe("step_up_required");
      expect(await invitations.findByAddress(db, email)).toBeNull();
    }
    const fresh = await adminSession(d);
    expect((await inviteVia(fresh.cookie, { address: address("fresh"), role: "admin" }, app)).status).toBe(201);
  });

  it("refuses bad input in the contract's shape: an address, a role, days, a name, an unknown field", async () => {
    const { cookie } = await adminSession();
    for (const body of [
      { address: "not an address" },
      { address: address(), role: "owner" },
      { address: address(), days: 0 },
      { address: address(), days: 91 },
      { address: address(), note: "x".repeat(1001) },
    ]) {
      const res = await inviteVia(cookie, body);
      expect(res.status).toBe(400);
      expect(typeof res.body.error).toBe("string");
    }
    // A name too long once cleaned: the same limit as a person's name.
    const longName = await inviteVia(cookie, { address: address(), name: "x".repeat(201) });
    expect(longName.status).toBe(400);
    expect(longName.body.error).toBe("name is at most 200 characters");
    const unknown = await inviteVia(cookie, { address: address(), admin: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe("Unknown field: admin");
  });

  it("lists invitations newest first, a page at a time, by a cursor of this list alone", async () => {
    const d = world();
    const app = appFor(peopleRoutes, d);
    // Ahead of every invitation the file's other tests make (their clocks move minutes, a day at most).
    d.clock.advance(2 * DAY);
    const { cookie } = await adminSession(d);
    const [older, newer] = [address("older"), address("newer")];
    expect((await inviteVia(cookie, { address: older }, app)).status).toBe(201);
    d.clock.advance(1000);
    expect((await inviteVia(cookie, { address: newer }, app)).status).toBe(201);
    const first = await request(app).get("/auth/invitations?limit=1").set("Cookie", cookie);
    expect(first.body.invitations.map((i: { address: string }) => i.address)).toEqual([newer]);
    const second = await request(app)
      .get(`/auth/invitations?limit=1&cursor=${encodeURIComponent(first.body.next)}`)
      .set("Cookie", cookie);
    expect(second.body.invitations.map((i: { address: string }) => i.address)).toEqual([older]);
    const people = await request(app).get("/auth/people?limit=1").set("Cookie", cookie);
    const foreign = await request(app)
      .get(`/auth/invitations?cursor=${encodeURIComponent(people.body.next)}`)
      .set("Cookie", cookie);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toBe("cursor is not one this list gave");
  });

  it("is for administrators alone", async () => {
    const account = await signedUp();
    const user = await personFor(account, { projects: ["*"] }, db);
    const cookie = await sessionCookieFor(deps, account.uid, user.id);
    expect((await inviteVia(cookie, { address: address() })).status).toBe(403);
    expect((await request(peopleApp).get("/auth/invitations").set("Cookie", cookie)).status).toBe(403);
    expect((await request(peopleApp).get("/auth/invitations")).status).toBe(401);
  });
});

describe("an invitation that no longer lets anyone in", () => {
  it("leaves an expired invitation's address a stranger, who may ask for access as anyone does", async () => {
    const d = world();
    const app = appFor(peopleRoutes, d);
    const codes = appFor(otp, d);
    const { cookie } = await adminSession(d);
    const email = address("exp");
    expect((await inviteVia(cookie, { address: email, projects: ["calendar"], days: 1 }, app)).status).toBe(201);
    await waitForMail(email);
    d.clock.advance(DAY);
    const listed = await request(app).get("/auth/invitations").set("Cookie", cookie);
    expect(listed.body.invitations.find((i: { address: string }) => i.address === email)).toMatchObject({
      state: "expired",
    });
    expect((await request(codes).post("/auth/otp/send").send({ email })).status).toBe(200);
    const refused = await request(codes).post("/auth/otp/sign-in").send({ email, otp: "000000" });
    expect(refused.status).toBe(400);
    // No sign-in code went: the only mail is the invitation's.
    expect(await mailTo(email)).toHaveLength(1);
    d.clock.advance(MINUTE);
    expect((await request(codes).post("/auth/otp/send").send({ email, purpose: "request-access" })).status).toBe(200);
    await request(codes)
      .post("/auth/otp/verify")
      .send({ email, otp: await codeFor(email, 2), purpose: "request-access" });
    expect(await people.findByEmail(db, email)).toMatchObject({ status: "pending", projects: [] });
  });

  it("leaves a revoked invitation's address a stranger, and its unsent mail never goes", async () => {
    const { cookie, person: admin } = await adminSession();
    const email = address("rev");
    // Queued but not drained: the drainer is woken by a queue of this test's, which never runs.
    const held = testDeps({ store: db, transaction: transactionRunner(db), mailQueue: { wake: async () => {} } });
    const app = appFor(peopleRoutes, held);
    const { body } = await inviteVia(cookie, { address: email, projects: ["calendar"] }, app);
    const revoked = await request(peopleApp).delete(`/auth/invitations/${body.id}`).set("Cookie", cookie);
    expect(revoked.body).toEqual({ revoked: true });
    expect((await request(peopleApp).get(`/auth/invitations/${body.id}`).set("Cookie", cookie)).status).toBe(404);
    // The drain that comes now finds nothing to send, and settles it so.
    expect(await deliver(held, `${body.id}.1`, held.clock.now(), handlers)).toBe("skipped");
    expect((await db.collection("outbox").doc(`${body.id}.1`).get()).get("state")).toBe("none");
    await request(otpApp).post("/auth/otp/send").send({ email });
    expect(await mailTo(email)).toEqual([]);
    expect(await arriveByCode(deps, email)).toBeNull();
    expect(await people.findByEmail(db, email)).toBeNull();
    const own = await request(peopleApp).get(`/auth/people/${admin.id}/history`).set("Cookie", cookie);
    // (Two clocks: the invitation's and the revocation's; the order between them is not the point.)
    expect(own.body.entries.map((e: { event: string }) => e.event).sort()).toEqual([
      "invitation-revoked",
      "invited-someone",
    ]);
  });
});

describe("POST /auth/invitations/:id/resend", () => {
  it("sends it again after ten minutes at the soonest, renewed, and only the latest mail goes", async () => {
    const d = world();
    const app = appFor(peopleRoutes, d);
    const { cookie } = await adminSession(d);
    const email = address("again");
    const { body } = await inviteVia(cookie, { address: email, days: 2 }, app);
    await waitForMail(email);
    const soon = await request(app).post(`/auth/invitations/${body.id}/resend`).set("Cookie", cookie).send({});
    expect(soon.status).toBe(429);
    expect(Number(soon.headers["retry-after"])).toBeGreaterThan(0);
    d.clock.advance(RESEND_WAIT_MS);
    const fresh = await adminSession(d);
    const again = await request(app).post(`/auth/invitations/${body.id}/resend`).set("Cookie", fresh.cookie).send({});
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ sends: 2, state: "live" });
    expect(new Date(again.body.expiresAt).getTime()).toBe(d.clock.now().getTime() + 14 * DAY);
    await waitForMail(email, 2);
    expect(await invitationMails(email)).toHaveLength(2);
  });
});

describe("POST /auth/invitations/file", () => {
  const csv = (emails: string[]) =>
    ["address,name,projects,groups", ...emails.map((e, i) => `${e},Person ${i},calendar;location,class-a`)].join("\n");
  const upload = (cookie: string, text: string, query = "") =>
    request(peopleApp)
      .post(`/auth/invitations/file${query}`)
      .set("Cookie", cookie)
      .set("Content-Type", "text/csv")
      .send(text);

  it("shows a dry run row by row and writes nothing; run twice, a file of 50 invites each address once", async () => {
    const { cookie } = await adminSession();
    const emails = Array.from({ length: 50 }, () => address("row"));
    const dry = await upload(cookie, csv(emails), "?dryRun=true");
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({
      dryRun: true,
      counts: { invited: 50, "already-invited": 0, held: 0 },
      problems: [],
    });
    expect(dry.body.rows[0]).toMatchObject({ line: 2, address: emails[0], outcome: "invited" });
    expect(await invitations.findByAddress(db, emails[0] as string)).toBeNull();

    const first = await upload(cookie, csv(emails));
    expect(first.body.counts).toEqual({ invited: 50, "already-invited": 0, held: 0 });
    const second = await upload(cookie, csv(emails));
    expect(second.body.counts).toEqual({ invited: 0, "already-invited": 50, held: 0 });
    const stored = await Promise.all(emails.map((e) => invitations.findByAddress(db, e)));
    expect(stored.every((i) => i?.sends === 1 && i.projects.join() === "calendar,location")).toBe(true);
    const outbox = await db.collection("outbox").where("kind", "==", "invitation").get();
    const ours = outbox.docs.filter((doc) => stored.some((i) => doc.get("about") === i?.id));
    expect(ours).toHaveLength(50);
  });

  it("invites nobody from a file with a bad row, and names each bad row by its line", async () => {
    const { cookie } = await adminSession();
    const good = address("good");
    // Line 5 is cut short: its role (and, were it shorter, its projects) would be read as empty.
    const short = address("short");
    const text = [
      "address,projects,role",
      `${good},calendar,`,
      "nobody,calendar,",
      `${address()},calendar,owner`,
      `${short},calendar`,
    ].join("\n");
    const res = await upload(cookie, text);
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe("bad_rows");
    expect(res.body.error).toContain("line 3: the address is not an email address");
    expect(res.body.error).toContain('line 4: the role is "user" or "admin"');
    expect(res.body.error).toContain("line 5: it has 2 fields; the header names 3");
    expect(await invitations.findByAddress(db, good)).toBeNull();
    const dry = await upload(cookie, text, "?dryRun=true");
    expect(dry.body.problems).toHaveLength(3);
    expect(dry.body.rows).toHaveLength(1);
    // Alone, the short row is still refused, and invites nobody.
    const alone = await upload(cookie, ["address,projects,role", `${short},calendar`].join("\n"));
    expect(alone.status).toBe(400);
    expect(await invitations.findByAddress(db, short)).toBeNull();
  });

  it("reports a row whose address a person holds, and invites the rest", async () => {
    const { cookie } = await adminSession();
    const holder = await personFor({ uid: unique("u"), email: address("holds") }, {}, db);
    const other = address();
    const res = await upload(cookie, csv([holder.emails[0] as string, other]));
    expect(res.body.rows).toEqual([
      expect.objectContaining({ line: 2, outcome: "held", personId: holder.id }),
      expect.objectContaining({ line: 3, outcome: "invited" }),
    ]);
  });

  it("takes only text/csv", async () => {
    const { cookie } = await adminSession();
    const res = await request(peopleApp)
      .post("/auth/invitations/file")
      .set("Cookie", cookie)
      .send({ csv: "address\na@example.test" });
    expect(res.status).toBe(415);
  });
});

describe("invitations decided at once", () => {
  it("makes one invitation of an address invited by several administrators at once, with one mail", async () => {
    const admins = await Promise.all([adminSession(), adminSession(), adminSession(), adminSession()]);
    const email = address("together");
    const answers = await Promise.all(
      admins.map(({ cookie }, i) => inviteVia(cookie, { address: email, projects: [`p${i}`] })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.reason === "already_invited")).toBe(true);
    const made = answers.find((a) => a.status === 201);
    expect(await invitations.findByAddress(db, email)).toMatchObject({ projects: made?.body.projects, sends: 1 });
    const queued = await db.collection("outbox").where("about", "==", made?.body.id).get();
    expect(queued.size).toBe(1);
  });

  it("sends an invitation asked to be sent again several times at once once more, not more", async () => {
    const d = world();
    const app = appFor(peopleRoutes, d);
    const { cookie } = await adminSession(d);
    const { body } = await inviteVia(cookie, { address: address("resends") }, app);
    d.clock.advance(RESEND_WAIT_MS);
    const fresh = await adminSession(d);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        request(app).post(`/auth/invitations/${body.id}/resend`).set("Cookie", fresh.cookie).send({}),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 429, 429, 429]);
    expect(await invitations.findByAddress(db, body.address)).toMatchObject({ sends: 2 });
  });
});

describe("an invitation taken up at once from several places", () => {
  it("makes one person, whoever proves the address first", async () => {
    const { cookie } = await adminSession();
    const email = address("race");
    expect((await inviteVia(cookie, { address: email, projects: ["calendar"] })).status).toBe(201);
    const made = await Promise.all(Array.from({ length: 6 }, () => arriveByCode(deps, email)));
    const ids = new Set(made.map((p) => p?.id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toEqual(expect.any(String));
    const holders = await db.collection("people").where("emails", "array-contains", email).get();
    expect(holders.size).toBe(1);
  });
});
