/**
 * The review loop over HTTP: what a request for access carries, the queue and the people list a
 * page at a time, step-up before widening access, every change in the person's history, the
 * notices (one digest per reviewer per window, one approval mail per approval), and ending a
 * person's sessions. On a project of its own: an empty database, whose queue and digests are this
 * file's alone.
 */
import request from "supertest";
import { transactionRunner } from "../../src/store/db";
import { allTasksIdle } from "../support/task-queue";
import { MINUTE } from "../../src/clock";
import { deliver } from "../../src/core/outbox/drain";
import { LEASE_MS } from "../../src/core/outbox/claims";
import { digestMail } from "../../src/core/notices/review-notices";
import { handlers, run as mailRound } from "../../src/tasks/mail";
import type { Deps } from "../../src/deps";
import * as otp from "../../src/routes/otp/otp";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import * as startpage from "../../src/routes/startpage/startpage";
import * as people from "../../src/store/people";
import { signedUp, signInWithCustomToken } from "../support/auth";
import { appFor, auth, ID_URL, testConfig, testDeps, unique, type TestDeps } from "../support/deps";
import { mailTo, settledCount, waitForMail } from "../support/inbox";
import { freshProject } from "../support/operator-cli";
import { recordingRandom } from "../support/email-codes";
import { cryptoRandom } from "../../src/random";
import { cookieFrom, personFor, sessionCookieFor } from "../support/people";
import { smtpMailer } from "../../src/adapters/mailer";
import type { Mailer } from "../../src/core/ports";
import { type Person } from "../../src/core/model/person";

const { db } = freshProject();

/** Deps on this file's database; `digests` runs the mail task's whole round (digest, then outbox) on each wake. */
function worldDeps(overrides: Partial<Deps> = {}, { digests = false } = {}): TestDeps {
  return testDeps({ store: db, transaction: transactionRunner(db), ...overrides }, { digests });
}

const deps = worldDeps();
const peopleApp = appFor(peopleRoutes, deps);

async function adminSession(d: TestDeps = deps): Promise<{ cookie: string; person: Person }> {
  const account = await signedUp();
  const person = await personFor(account, { role: "admin", projects: ["*"], name: "Reviewer" }, db);
  return { cookie: await sessionCookieFor(d, account.uid, person.id), person };
}

async function requestAccess(
  app: ReturnType<typeof appFor>,
  random: ReturnType<typeof recordingRandom>,
  email: string,
  details: Record<string, unknown> = {},
) {
  const sent = await request(app).post("/auth/otp/send").send({ email, purpose: "request-access" });
  expect(sent.status).toBe(200);
  return request(app)
    .post("/auth/otp/verify")
    .send({ email, otp: random.lastCode(), purpose: "request-access", ...details });
}

const held = async (email: string) => (await people.findByEmail(db, email)) as Person;
const history = (cookie: string, personId: string) =>
  request(peopleApp).get(`/auth/people/${personId}/history`).set("Cookie", cookie);

describe("what a request for access carries", () => {
  const random = recordingRandom();
  const d = worldDeps({ random });
  const app = appFor(otp, d);

  it("keeps a name and a note as plain text, cleaned, for the reviewer", async () => {
    const email = `${unique("ada")}@example.test`;
    const answer = await requestAccess(app, random, email, {
      name: "  Ada\u0000 \u202eLovelace ",
      note: "I run the <b>analytical</b>\nengine team.\u2028Thanks!",
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ valid: true });
    const person = await held(email);
    expect(person).toMatchObject({
      status: "pending",
      name: "Ada Lovelace",
      note: "I run the <b>analytical</b> engine team. Thanks!",
      origin: { via: "email", address: email },
      awaitingNotice: true,
    });
  });

  it.each([
    ["a note over 500 characters", { note: "x".repeat(501) }],
    ["a name over 100 characters", { name: "y".repeat(101) }],
    ["a note that is not text", { note: ["a list"] }],
  ])("refuses %s, and records nothing", async (_what, details) => {
    const email = `${unique("long")}@example.test`;
    const answer = await requestAccess(app, random, email, details);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ valid: false, reason: "details_invalid" });
    expect(await people.findByEmail(db, email)).toBeNull();
  });

  it("refuses a name or note with a sign-in code's check", async () => {
    const answer = await request(app)
      .post("/auth/otp/verify")
      .send({ email: `${unique("x")}@example.test`, otp: "123456", purpose: "signin", note: "hello" });
    expect(answer.status).toBe(400);
    expect(answer.body.reason).toBe("details_invalid");
  });

  it("takes exactly 500 characters of note, counted as a person counts them", async () => {
    const email = `${unique("full")}@example.test`;
    const note = "é".repeat(250) + "😀".repeat(250);
    expect((await requestAccess(app, random, email, { note })).status).toBe(200);
    expect((await held(email)).note).toBe(note);
  });
});

describe("the review queue and the people list", () => {
  it("pages through the queue oldest first, with how many wait", async () => {
    const { cookie } = await adminSession();
    const before = await request(peopleApp).get("/auth/people/queue").set("Cookie", cookie);
    const waitingBefore = before.body.waiting as number;
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      // Each made a moment after the last (created at the real time, as set-up data is).
      await new Promise((resolve) => setTimeout(resolve, 3));
      made.push(
        (
          await personFor(
            { uid: unique("u"), email: `${unique("q")}@example.test` },
            { status: "pending" },
            db,
            unique("q"),
          )
        ).id,
      );
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await request(peopleApp)
        .get("/auth/people/queue")
        .query({ limit: 3, ...(cursor === undefined ? {} : { cursor }) })
        .set("Cookie", cookie);
      expect(page.status).toBe(200);
      expect(page.body.waiting).toBe(waitingBefore + 7);
      expect(page.body.people.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.people.map((p: { personId: string; status: string }) => p.personId));
      cursor = page.body.next ?? undefined;
      pages++;
    } while (cursor !== undefined && pages < 50);
    expect(new Set(seen).size).toBe(seen.length);
    // The seven made here come last, in the order they came.
    expect(seen.filter((id) => made.includes(id))).toEqual(made);
  });

  it("refuses a cursor it did not give, or one from another list", async () => {
    const { cookie } = await adminSession();
    const bogus = await request(peopleApp)
      .get("/auth/people/queue")
      .query({ cursor: "not-a-cursor" })
      .set("Cookie", cookie);
    expect(bogus.status).toBe(400);
    expect(bogus.body.error).toMatch(/cursor/);
    await personFor({ uid: unique("u"), email: `${unique("c")}@example.test` }, {}, db, unique("c"));
    await personFor({ uid: unique("u"), email: `${unique("c")}@example.test` }, {}, db, unique("c"));
    const list = await request(peopleApp).get("/auth/people").query({ limit: 1 }).set("Cookie", cookie);
    expect(typeof list.body.next).toBe("string");
    const crossed = await request(peopleApp)
      .get("/auth/people/queue")
      .query({ cursor: list.body.next })
      .set("Cookie", cookie);
    expect(crossed.status).toBe(400);
  });

  it("finds people by the start of a word of their name or address, with status, role and project", async () => {
    const { cookie } = await adminSession();
    const tag = unique("zq")
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "");
    const ada = await personFor(
      { uid: unique("u"), email: `ada.${tag}@analytical.example` },
      { name: `Ada ${tag}Lovelace`, projects: ["calendar"] },
      db,
      unique("p"),
    );
    const grace = await personFor(
      { uid: unique("u"), email: `grace.${tag}@navy.example` },
      { name: `Grace ${tag}Hopper`, status: "pending" },
      db,
      unique("p"),
    );
    const find = async (query: Record<string, string>) => {
      const res = await request(peopleApp).get("/auth/people").query(query).set("Cookie", cookie);
      expect(res.status).toBe(200);
      return res.body.people.map((p: { personId: string }) => p.personId).sort();
    };
    expect(await find({ q: tag })).toEqual([ada.id, grace.id].sort());
    expect(await find({ q: `${tag}LOVE` })).toEqual([ada.id]);
    expect(await find({ q: `grace.${tag}@navy` })).toEqual([grace.id]);
    expect(await find({ q: `ada ${tag}` })).toEqual([ada.id]);
    expect(await find({ q: tag, status: "pending" })).toEqual([grace.id]);
    expect(await find({ q: tag, project: "calendar" })).toEqual([ada.id]);
    expect(await find({ q: `${tag} nobody` })).toEqual([]);
    expect(await find({ email: `GRACE.${tag}@navy.example` })).toEqual([grace.id]);
  });

  it("shows a reviewer what a bridge sign-up proved: the bridge, provider, account and its name", async () => {
    const { cookie } = await adminSession();
    const account = `${unique("steam")}`;
    const person = await db.runTransaction(async (tx) =>
      people.create(
        db,
        tx,
        {
          uids: [`gaming:${account}`],
          emails: [],
          phones: [],
          name: "Player One",
          role: "user",
          projects: [],
          groups: [],
          status: "pending",
          origin: { via: "account", bridge: "gaming", provider: "gaming", account, displayName: "Player One" },
        },
        unique("g"),
        deps.clock.now(),
      ),
    );
    const shown = await request(peopleApp).get(`/auth/people/${person.id}`).set("Cookie", cookie);
    expect(shown.body.origin).toEqual({
      via: "account",
      bridge: "gaming",
      provider: "gaming",
      account,
      displayName: "Player One",
    });
  });

  it("gives a non-admin nothing", async () => {
    const account = await signedUp();
    const person = await personFor(account, { projects: ["*"] }, db);
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    for (const path of ["/auth/people", "/auth/people/queue", `/auth/people/${person.id}/history`]) {
      const res = await request(peopleApp).get(path).set("Cookie", cookie);
      expect(res.status).toBe(403);
      expect(Object.keys(res.body)).toEqual(["error"]);
    }
  });
});

describe("step-up before widening access", () => {
  it("asks a reviewer signed in over 5 minutes ago to sign in again to approve, grant or make admin; never to narrow", async () => {
    const d = worldDeps();
    const app = appFor(peopleRoutes, d);
    const { cookie } = await adminSession(d);
    const target = await personFor(
      { uid: unique("u"), email: `${unique("s")}@example.test` },
      { status: "pending" },
      db,
      unique("s"),
    );
    d.clock.advance(5 * MINUTE + 1000);
    for (const change of [{ status: "approved" }, { projects: ["calendar"] }, { role: "admin" }, { groups: ["ops"] }]) {
      const res = await request(app).patch(`/auth/people/${target.id}`).set("Cookie", cookie).send(change);
      expect(res.status).toBe(403);
      expect(res.body.reason).toBe("step_up_required");
    }
    const bulk = await request(app)
      .post("/auth/people/review")
      .set("Cookie", cookie)
      .send({ personIds: [target.id], status: "approved" });
    expect(bulk.body.results[0]).toMatchObject({ personId: target.id, reason: "step_up_required" });
    expect(await people.findById(db, target.id)).toMatchObject({ status: "pending", role: "user", projects: [] });
    const rejected = await request(app)
      .patch(`/auth/people/${target.id}`)
      .set("Cookie", cookie)
      .send({ status: "rejected" });
    expect(rejected.status).toBe(200);
    // A fresh sign-in: the same change goes through.
    const fresh = await adminSession(d);
    const approved = await request(app)
      .patch(`/auth/people/${target.id}`)
      .set("Cookie", fresh.cookie)
      .send({ status: "approved" });
    expect(approved.status).toBe(200);
  });
});

describe("the person's history", () => {
  it("records every change through the API: who, when, how and what changed", async () => {
    const { cookie, person: admin } = await adminSession();
    const account = await signedUp();
    const person = await personFor(account, { status: "pending" }, db);
    // A second between changes: entries of one instant have no order among themselves.
    const patch = (body: object) => {
      deps.clock.advance(1000);
      return request(peopleApp).patch(`/auth/people/${person.id}`).set("Cookie", cookie).send(body);
    };
    expect((await patch({ status: "approved" })).status).toBe(200);
    expect((await patch({ projects: ["calendar", "*"] })).status).toBe(200);
    expect((await patch({ role: "admin", groups: ["ops"] })).status).toBe(200);
    expect((await patch({ name: "Renamed", phones: ["+15555550123"] })).status).toBe(200);
    expect((await patch({ name: "Renamed" })).status).toBe(200); // no change: no entry
    deps.clock.advance(1000);
    const bulk = await request(peopleApp)
      .post("/auth/people/review")
      .set("Cookie", cookie)
      .send({ personIds: [person.id], status: "rejected" });
    expect(bulk.body.results[0].person.status).toBe("rejected");

    const entries = (await history(cookie, person.id)).body.entries as Array<Record<string, unknown>>;
    expect(entries.map((e) => e.changes)).toEqual([
      { status: { from: "approved", to: "rejected" } },
      { name: { from: "Test Person", to: "Renamed" }, phones: { from: [], to: ["+15555550123"] } },
      { role: { from: "user", to: "admin" }, groups: { from: [], to: ["ops"] } },
      { projects: { from: [], to: ["calendar", "*"] } },
      { status: { from: "pending", to: "approved" } },
    ]);
    for (const e of entries) {
      expect(e).toMatchObject({
        by: { kind: "admin", personId: admin.id, email: admin.emails[0] },
        via: "api",
        event: "changed",
      });
      expect(Number.isNaN(Date.parse(e.at as string))).toBe(false);
    }
  });

  it("records a request for access as made by the person, and pages through a long history", async () => {
    const random = recordingRandom();
    const app = appFor(otp, worldDeps({ random, clock: deps.clock }));
    const email = `${unique("h")}@example.test`;
    expect((await requestAccess(app, random, email, { name: "Hedy", note: "first" })).status).toBe(200);
    const { cookie } = await adminSession();
    const person = await held(email);
    const first = (await history(cookie, person.id)).body.entries;
    expect(first).toEqual([
      expect.objectContaining({
        by: { kind: "person" },
        via: "request-access",
        event: "created",
        changes: expect.objectContaining({ emails: { from: null, to: [email] }, note: { from: null, to: "first" } }),
      }),
    ]);
    for (let i = 0; i < 5; i++) {
      deps.clock.advance(1000);
      await request(peopleApp)
        .patch(`/auth/people/${person.id}`)
        .set("Cookie", cookie)
        .send({ name: `Hedy ${i}` });
    }
    const page1 = await history(cookie, person.id).query({ limit: 4 });
    expect(page1.body.entries).toHaveLength(4);
    const page2 = await history(cookie, person.id).query({ limit: 4, cursor: page1.body.next });
    expect(page2.body.entries).toHaveLength(2);
    expect(page2.body.next).toBeNull();
    expect(page2.body.entries[1].event).toBe("created");
  });
});

describe("ending a person's sessions as an administrator", () => {
  it("lists them, ends one (refused at its next request) and then the rest, each in the history", async () => {
    const d = worldDeps();
    const sessionsApp = appFor(sessionRoutes, d);
    const app = appFor(peopleRoutes, d);
    const { cookie } = await adminSession(d);
    const account = await signedUp();
    const person = await personFor(account, { projects: ["startpage"] }, db);
    const browser = async () => {
      const idToken = await signInWithCustomToken(
        await auth().createCustomToken(account.uid, { sign_in_methods: ["otp"] }),
      );
      const res = await request(sessionsApp).post("/auth/verify").send({ idToken, project: "startpage" });
      return cookieFrom(res.headers["set-cookie"]) as string;
    };
    const [one, two] = [await browser(), await browser()];
    const listed = await request(app).get(`/auth/people/${person.id}/sessions`).set("Cookie", cookie);
    expect(listed.body.sessions).toHaveLength(2);
    const target = listed.body.sessions[0].sessionId as string;
    const ended = await request(app).delete(`/auth/people/${person.id}/sessions/${target}`).set("Cookie", cookie);
    expect(ended.body).toEqual({ ended: 1 });
    const statuses = await Promise.all(
      [one, two].map(
        async (c) => (await request(appFor(startpage, d)).get("/startpage/notifications").set("Cookie", c)).status,
      ),
    );
    expect(statuses.sort()).toEqual([200, 401]);
    expect((await request(app).delete(`/auth/people/${person.id}/sessions`).set("Cookie", cookie)).body).toEqual({
      ended: 1,
    });
    const unknown = await request(app).delete(`/auth/people/${person.id}/sessions/nope`).set("Cookie", cookie);
    expect(unknown.status).toBe(404);
    const events = (await history(cookie, person.id)).body.entries.map((e: { event: string }) => e.event);
    expect(events).toEqual(["sessions-ended", "sessions-ended"]);
  });
});

describe("notices", () => {
  const realMailer = () => smtpMailer(testConfig().smtp!);

  it("tells an approved person once, with a link to the sign-in page and nothing that signs in", async () => {
    const { cookie } = await adminSession();
    const email = `${unique("ok")}@example.test`;
    const person = await personFor({ uid: unique("u"), email }, { status: "pending" }, db, unique("a"));
    // Ten approvals at once, and one more after: one notice.
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        request(peopleApp).patch(`/auth/people/${person.id}`).set("Cookie", cookie).send({ status: "approved" }),
      ),
    );
    // Ten transactions on one person contend on Google's emulator as in production: one that
    // outlasts the retries is told to try again (503 with Retry-After), and changes nothing.
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    for (const a of answers.filter((a) => a.status !== 200)) {
      expect(a.status).toBe(503);
      expect(Number(a.headers["retry-after"])).toBeGreaterThan(0);
    }
    const after = await request(peopleApp)
      .patch(`/auth/people/${person.id}`)
      .set("Cookie", cookie)
      .send({ status: "approved" });
    expect(after.status).toBe(200);
    const [mail] = await waitForMail(email);
    expect(mail!.subject).toBe("Your access is approved");
    expect(mail!.text).toContain(`Sign in: ${ID_URL}/\n`);
    const links = [...mail!.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(links).toEqual([`${ID_URL}/`]);
    expect(await settledCount(email)).toBe(1);
    // One notice, beside the event that tells the apps (core/people/person-events).
    const queued = await db.collection("outbox").where("about", "==", person.id).get();
    expect(queued.docs.map((d) => d.get("kind")).sort()).toEqual(["approval", "event"]);
  });

  it("tells a rejected person nothing, unless the operator turned it on", async () => {
    const { cookie } = await adminSession();
    const quiet = `${unique("no")}@example.test`;
    const told = `${unique("no")}@example.test`;
    const a = await personFor({ uid: unique("u"), email: quiet }, { status: "pending" }, db, unique("r"));
    await request(peopleApp).patch(`/auth/people/${a.id}`).set("Cookie", cookie).send({ status: "rejected" });
    const loud = worldDeps({
      config: testConfig({ review: { digestWindowMs: 15 * MINUTE, reviewers: [], notifyRejected: true } }),
    });
    const b = await personFor({ uid: unique("u"), email: told }, { status: "pending" }, db, unique("r"));
    const loudCookie = (await adminSession(loud)).cookie;
    await request(appFor(peopleRoutes, loud))
      .patch(`/auth/people/${b.id}`)
      .set("Cookie", loudCookie)
      .send({ status: "rejected" });
    const [mail] = await waitForMail(told);
    expect(mail!.subject).toBe("Your access request");
    expect(await settledCount(quiet)).toBe(0);
  });

  it("sends an approval once across a crash between sending and marking sent: one message, by its Message-ID", async () => {
    const { cookie } = await adminSession();
    const email = `${unique("crash")}@example.test`;
    const person = await personFor({ uid: unique("u"), email }, { status: "pending" }, db, unique("k"));
    const quiet = { wake: async () => {} };
    const crashed = worldDeps({
      mailQueue: quiet,
      mailer: {
        check: async () => {},
        // The server takes the mail; the drainer dies before it can record so (it never returns).
        send: async (m, options) => {
          await realMailer().send(m, options);
          await new Promise(() => {});
        },
      } satisfies Mailer,
    });
    await request(appFor(peopleRoutes, crashed))
      .patch(`/auth/people/${person.id}`)
      .set("Cookie", cookie)
      .send({ status: "approved" });
    const [entry] = (
      await db.collection("outbox").where("about", "==", person.id).where("kind", "==", "approval").get()
    ).docs;
    void deliver(crashed, entry!.id, crashed.clock.now(), handlers);
    await waitForMail(email);
    const survivor = worldDeps({ mailQueue: quiet });
    survivor.clock.set(new Date(crashed.clock.now().getTime() + LEASE_MS));
    expect(await deliver(survivor, entry!.id, survivor.clock.now(), handlers)).toBe("sent");
    expect(await deliver(survivor, entry!.id, survivor.clock.now(), handlers)).toBe("skipped");
    await allTasksIdle();
    const mails = await mailTo(email);
    // Handed over again under the same Message-ID: one message, as any mailbox files it.
    expect(new Set(mails.map((m) => m.headers["message-id"]))).toEqual(new Set([`<${entry!.id}@example.test>`]));
    expect((await db.collection("outbox").doc(entry!.id).get()).get("state")).toBe("sent");
  });

  it("gives the reviewers one digest per window for 200 requests at once, naming each waiting person once", async () => {
    const reviewers = [`${unique("rev")}@example.test`, `${unique("rev")}@example.test`];
    // Every stranger's code is the same six digits (a code is per address): the sends can go side
    // by side, as the budgets' sharded tallies let them, rather than one at a time to learn each.
    const CODE = 424242;
    const random = {
      ...cryptoRandom,
      int: (min: number, max: number) => (max === 1_000_000 ? CODE : cryptoRandom.int(min, max)),
    };
    const window = 15 * MINUTE;
    const d = worldDeps(
      { random, config: testConfig({ review: { digestWindowMs: window, reviewers, notifyRejected: false } }) },
      { digests: true },
    );
    // Past any digest this file's other tests caused.
    d.clock.advance(2 * window);
    // Two hundred checks at once queue at the emulator far past the 8 s request deadline on a
    // busy machine: the deadline is not what this proves, so the app waits as long as they take.
    const app = appFor(otp, d, { deadlineMs: 120_000 });
    const strangers = Array.from({ length: 200 }, () => `${unique("burst")}@example.test`);
    for (let i = 0; i < strangers.length; i += 20) {
      const sent = await Promise.all(
        strangers
          .slice(i, i + 20)
          .map((email) => request(app).post("/auth/otp/send").send({ email, purpose: "request-access" })),
      );
      expect(sent.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    }
    await allTasksIdle();
    const answers = await Promise.all(
      strangers.map((email, i) =>
        request(app)
          .post("/auth/otp/verify")
          .send({ email, otp: String(CODE), purpose: "request-access", name: `Burst ${i}` }),
      ),
    );
    expect(answers.map((a) => [a.status, a.text]).filter(([s]) => s !== 200)).toEqual([]);
    await allTasksIdle();
    for (const reviewer of reviewers) expect(await settledCount(reviewer)).toBe(1);

    // Within the window, more wakes send nothing more; once it has passed, one more digest names the rest.
    await Promise.all(Array.from({ length: 5 }, () => mailRound(d)));
    for (const reviewer of reviewers) expect(await settledCount(reviewer)).toBe(1);
    for (let round = 0; round < 10 && (await people.awaitingNotice(db, 1)).length > 0; round++) {
      d.clock.advance(window);
      await mailRound(d);
    }
    await allTasksIdle();
    const named = new Map<string, number>();
    for (const mail of await mailTo(reviewers[0]!)) {
      for (const m of mail.text.matchAll(/^- Burst (\d+) /gm)) named.set(m[1]!, (named.get(m[1]!) ?? 0) + 1);
      expect(mail.text).toContain(`${ID_URL}/review`);
    }
    expect(named.size).toBe(200);
    expect([...named.values()].every((n) => n === 1)).toBe(true);
    expect((await mailTo(reviewers[1]!)).length).toBe((await mailTo(reviewers[0]!)).length);
  }, 180_000);

  it("tells every approved administrator by default, and nobody else", async () => {
    const random = recordingRandom();
    const d = worldDeps({ random }, { digests: true });
    d.clock.advance(24 * 60 * MINUTE);
    const { person: reviewer } = await adminSession(d);
    const stranger = `${unique("dflt")}@example.test`;
    const outsider = await personFor(
      { uid: unique("u"), email: `${unique("user")}@example.test` },
      {},
      db,
      unique("o"),
    );
    expect((await requestAccess(appFor(otp, d), random, stranger, { name: "Default Path" })).status).toBe(200);
    await allTasksIdle();
    const [digest] = await waitForMail(reviewer.emails[0]!);
    expect(digest!.text).toContain(`- Default Path (${stranger})`);
    expect(await settledCount(outsider.emails[0]!)).toBe(0);
  });

  it("writes what anyone typed into a digest as text, never as HTML", () => {
    const person = {
      id: "x",
      name: '<img src=x onerror="alert(1)">',
      emails: ["evil@example.test"],
      origin: { via: "email" as const, address: "evil@example.test" },
    } as Person;
    const mail = digestMail("rev@example.test", [person], 1, ID_URL);
    expect(mail.html).not.toContain("<img");
    expect(mail.html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
  });
});
