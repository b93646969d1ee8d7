/**
 * The review of apps that registered themselves, over HTTP: the queue of waiting apps with the
 * people who tried them, deciding several at once with what became of each, the mail each person
 * who tried one is sent, and recording who tried one while many try at once. On a project of its
 * own: an empty database, whose queue is this file's alone.
 */
import request from "supertest";
import { MINUTE } from "../../src/clock";
import { TRIED_BY_MAX, type OidcClient } from "../../src/core/model/oidc-client";
import { recordTry } from "../../src/core/oidc/client-review";
import { registerClient } from "../../src/core/oidc/clients";
import * as peopleRoutes from "../../src/routes/people/people";
import * as clients from "../../src/store/oidc-clients";
import { transactionRunner } from "../../src/store/db";
import { sweepPerson } from "../../src/store/personal-data";
import type { Deps } from "../../src/deps";
import { signedUp } from "../support/auth";
import { selfRegisteredClient } from "../support/consent";
import { appFor, testDeps, unique, type TestDeps } from "../support/deps";
import { mailTo, settledCount, waitForMail } from "../support/inbox";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";
import type { Person } from "../../src/core/model/person";

const { db } = freshProject();

function worldDeps(overrides: Partial<Deps> = {}): TestDeps {
  return testDeps({ store: db, transaction: transactionRunner(db), ...overrides });
}

const deps = worldDeps();
const app = appFor(peopleRoutes, deps);

async function session(fields: Partial<Person> = {}, d: TestDeps = deps): Promise<{ cookie: string; person: Person }> {
  const account = await signedUp();
  const person = await personFor(account, { name: "Reviewer", ...fields }, db);
  return { cookie: await sessionCookieFor(d, account.uid, person.id), person };
}
const admin = (d: TestDeps = deps) => session({ role: "admin", projects: ["*"] }, d);

/** A person who may try apps: approved, with an address of this run's own. */
async function someone(name: string, fields: Partial<Person> = {}): Promise<Person> {
  return personFor({ uid: unique("u"), email: `${unique("tried")}@example.test` }, { name, ...fields }, db);
}

/** A client stored as one that registered itself is, `ms` after the last one made here. */
let made = deps.clock.now().getTime() - 60 * MINUTE;
async function selfClient(fields: Partial<OidcClient> = {}, clientId = `dyn_${unique("c")}`): Promise<string> {
  made += 1000;
  await selfRegisteredClient({ store: db, clock: deps.clock }, clientId, {
    name: "Notes",
    review: "waiting",
    createdAt: new Date(made),
    ...fields,
  });
  return clientId;
}

const queue = (cookie: string, query: Record<string, string | number> = {}) =>
  request(app).get("/auth/clients/queue").query(query).set("Cookie", cookie);
const review = (cookie: string, clientIds: string[], status: string) =>
  request(app).post("/auth/clients/review").set("Cookie", cookie).send({ clientIds, status });

interface Listed {
  clientId: string;
  name: string;
  registeredBy: string;
  documentOrigin: string | null;
  redirectUris: string[];
  clientUri: string | null;
  createdAt: string;
  triedBy: Array<{ personId: string; name: string; email: string | null }>;
}

/** Every page of the queue, in order. */
async function wholeQueue(cookie: string, limit = 2): Promise<{ listed: Listed[]; waiting: number[] }> {
  const listed: Listed[] = [];
  const waiting: number[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const page = await queue(cookie, { limit, ...(cursor === undefined ? {} : { cursor }) });
    expect(page.status).toBe(200);
    expect(page.body.clients.length).toBeLessThanOrEqual(limit);
    listed.push(...page.body.clients);
    waiting.push(page.body.waiting);
    cursor = page.body.next ?? undefined;
    if (cursor === undefined) break;
  }
  return { listed, waiting };
}

/** Leaves the queue empty, as after a day's reviewing: what a test lists is its own. */
async function emptied(cookie: string): Promise<void> {
  const { listed } = await wholeQueue(cookie, 100);
  if (listed.length > 0)
    await review(
      cookie,
      listed.map((c) => c.clientId),
      "blocked",
    );
}

describe("GET /auth/clients/queue", () => {
  it("lists the waiting apps that registered themselves, oldest first, with who tried each", async () => {
    const { cookie } = await admin();
    await emptied(cookie);
    const ada = await someone("Ada Tried");
    const gone = await someone("Gone Soon");
    const first = await selfClient({
      name: "Notes",
      redirectUris: ["https://notes.example.test/cb", "http://127.0.0.1/cb"],
      clientUri: "https://notes.example.test/",
      triedBy: [ada.id, gone.id],
    });
    const byDocument = await selfClient(
      { name: "Agent", registeredBy: "document" },
      `https://agent.example.test/${unique("c")}/client.json`,
    );
    const third = await selfClient({ name: "Third" });
    // Not waiting: decided already, or the operator's own.
    await selfClient({ review: "approved" });
    await selfClient({ review: "blocked" });
    const operators = unique("ops");
    await registerClient(
      { store: db, clock: deps.clock },
      {
        clientId: operators,
        clientSecret: "s".repeat(43),
        name: "Ours",
        redirectUris: ["https://ours.example.test/cb"],
      },
    );
    // Erased since it tried: left out of the list, and of its mail.
    await db.collection("people").doc(gone.id).delete();

    const { listed, waiting } = await wholeQueue(cookie);
    expect(listed.map((c) => c.clientId)).toEqual([first, byDocument, third]);
    expect(new Set(waiting)).toEqual(new Set([3]));
    expect(listed[0]).toMatchObject({
      name: "Notes",
      registeredBy: "self",
      documentOrigin: null,
      redirectUris: ["https://notes.example.test/cb", "http://127.0.0.1/cb"],
      clientUri: "https://notes.example.test/",
      triedBy: [{ personId: ada.id, name: "Ada Tried", email: ada.emails[0] }],
    });
    expect(listed[1]).toMatchObject({ registeredBy: "document", documentOrigin: "https://agent.example.test" });
    expect(Date.parse(listed[0]?.createdAt ?? "")).toBeLessThan(Date.parse(listed[1]?.createdAt ?? ""));
  });

  it("refuses a cursor it did not give, or one of the people's queue", async () => {
    const { cookie } = await admin();
    const people = await request(app).get("/auth/people/queue").query({ limit: 1 }).set("Cookie", cookie);
    for (const cursor of ["bogus", Buffer.from(JSON.stringify({ k: "x", o: "queue" })).toString("base64url")]) {
      const res = await queue(cookie, { cursor });
      expect(res.status).toBe(400);
    }
    expect(people.status).toBe(200);
  });
});

describe("POST /auth/clients/review", () => {
  it("approves and blocks apps, each row saying what became of it, and refuses the operator's and unknown ones", async () => {
    const { cookie } = await admin();
    const [a, b, c] = [await selfClient(), await selfClient(), await selfClient()];
    const operators = unique("ops");
    await registerClient(
      { store: db, clock: deps.clock },
      {
        clientId: operators,
        clientSecret: "s".repeat(43),
        name: "Ours",
        redirectUris: ["https://ours.example.test/cb"],
      },
    );
    const approved = await review(cookie, [a, b, operators, "dyn_nobody"], "approved");
    expect(approved.status).toBe(200);
    expect(approved.body.results).toEqual([
      { clientId: a, client: { name: "Notes", review: "approved" }, told: 0 },
      { clientId: b, client: { name: "Notes", review: "approved" }, told: 0 },
      {
        clientId: operators,
        error: expect.stringMatching(/registered by the operator/),
        reason: "client_not_self_registered",
      },
      { clientId: "dyn_nobody", error: expect.any(String), reason: "client_not_found" },
    ]);
    const blocked = await review(cookie, [c, b], "blocked");
    expect(blocked.body.results.map((r: { client: { review: string } }) => r.client.review)).toEqual([
      "blocked",
      "blocked",
    ]);
    const stored = await Promise.all([a, b, c, operators].map((id) => clients.findById(db, id)));
    expect(stored.map((s) => s?.review)).toEqual(["approved", "blocked", "blocked", "approved"]);
    expect(stored[3]?.registeredBy).toBe("operator");
  });

  it("takes an https client id in the body, where a path could not carry it", async () => {
    const { cookie } = await admin();
    const url = `https://agent.example.test/${unique("c")}/client.json`;
    await selfClient({ registeredBy: "document" }, url);
    const res = await review(cookie, [url], "approved");
    expect(res.body.results).toEqual([{ clientId: url, client: { name: "Notes", review: "approved" }, told: 0 }]);
    expect((await clients.findById(db, url))?.review).toBe("approved");
  });

  it("refuses a malformed body whole: no ids, too many, or another status", async () => {
    const { cookie } = await admin();
    const id = await selfClient();
    for (const body of [
      { clientIds: [], status: "approved" },
      { clientIds: Array.from({ length: 101 }, (_, i) => `dyn_${i}`), status: "approved" },
      { clientIds: [id], status: "waiting" },
      { clientIds: [id], status: "approved", extra: 1 },
    ]) {
      const res = await request(app).post("/auth/clients/review").set("Cookie", cookie).send(body);
      expect(res.status).toBe(400);
    }
    expect((await clients.findById(db, id))?.review).toBe("waiting");
  });

  it("asks a reviewer signed in over 5 minutes ago to sign in again to let an app in, never to block one", async () => {
    const d = worldDeps();
    const stale = appFor(peopleRoutes, d);
    const { cookie } = await admin(d);
    const id = await selfClient();
    d.clock.advance(5 * MINUTE + 1000);
    const held = await request(stale)
      .post("/auth/clients/review")
      .set("Cookie", cookie)
      .send({
        clientIds: [id],
        status: "approved",
      });
    expect(held.body.results).toEqual([{ clientId: id, error: expect.any(String), reason: "step_up_required" }]);
    expect((await clients.findById(db, id))?.review).toBe("waiting");
    const blocked = await request(stale)
      .post("/auth/clients/review")
      .set("Cookie", cookie)
      .send({
        clientIds: [id],
        status: "blocked",
      });
    expect(blocked.body.results[0].client.review).toBe("blocked");
  });

  it("tells each person who tried the app once, in a mail of their own naming it; a second decision tells nobody", async () => {
    const { cookie } = await admin();
    const tried = await Promise.all(["Ann", "Ben", "Cat"].map((n) => someone(`${n} ${unique("T")}`)));
    const setBack = await someone("Pending Again", { status: "pending" });
    const name = `Field Notes ${unique("n")}`;
    const id = await selfClient({ name, triedBy: [...tried.map((p) => p.id), setBack.id] });
    const res = await review(cookie, [id], "approved");
    expect(res.body.results[0]).toMatchObject({ clientId: id, told: 3 });
    expect((await clients.findById(db, id))?.triedBy).toEqual([]);
    for (const person of tried) {
      const address = person.emails[0] as string;
      const [mail] = await waitForMail(address);
      expect(mail?.subject).toBe("An app you tried can be used now");
      expect(mail?.text).toContain(`an app that calls itself “${name}”`);
      expect(mail?.text).toContain("Go back to it and sign in again.");
      // One recipient, whoever else tried it.
      expect(mail?.envelope.to.map((t) => t.address)).toEqual([address]);
      expect(mail?.to.map((t) => t.address)).toEqual([address]);
      expect(mail?.html).not.toMatch(/href=/);
    }
    // A second decision, and a third: nobody is told again.
    await review(cookie, [id], "blocked");
    await review(cookie, [id], "approved");
    for (const person of tried) expect(await settledCount(person.emails[0] as string)).toBe(1);
    // No longer approved themself: not told.
    expect(await settledCount(setBack.emails[0] as string)).toBe(0);
  });

  it("tells them it was not let in when it is blocked", async () => {
    const { cookie } = await admin();
    const ann = await someone("Ann Blocked");
    const id = await selfClient({ name: "Shady <b>Notes</b>", triedBy: [ann.id] });
    await review(cookie, [id], "blocked");
    const [mail] = await waitForMail(ann.emails[0] as string);
    expect(mail?.subject).toBe("An app you tried was not let in");
    expect(mail?.text).toContain("“Shady <b>Notes</b>”");
    // Its name is text in the HTML part too.
    expect(mail?.html).toContain("Shady &lt;b&gt;Notes&lt;/b&gt;");
    expect((await mailTo(ann.emails[0] as string)).length).toBe(1);
  });
});

describe("the administrators' gate", () => {
  it("gives someone signed out, or signed in and not an administrator, nothing, and changes nothing", async () => {
    const id = await selfClient();
    const signedOut = [await request(app).get("/auth/clients/queue"), await review("", [id], "approved")];
    expect(signedOut.map((r) => r.status)).toEqual([401, 401]);
    const { cookie } = await session({ projects: ["*"] });
    for (const res of [await queue(cookie), await review(cookie, [id], "approved")]) {
      expect(res.status).toBe(403);
      expect(Object.keys(res.body)).toEqual(["error"]);
    }
    expect((await clients.findById(db, id))?.review).toBe("waiting");
  });
});

describe("recordTry", () => {
  it("records the first TRIED_BY_MAX of 25 people trying at once, each once", async () => {
    const id = await selfClient();
    const ids = Array.from({ length: 25 }, () => unique("p"));
    await Promise.all(ids.map((personId) => recordTry(deps, id, personId)));
    const triedBy = (await clients.findById(db, id))?.triedBy ?? [];
    expect(triedBy).toHaveLength(TRIED_BY_MAX);
    expect(new Set(triedBy).size).toBe(TRIED_BY_MAX);
    expect(triedBy.every((p) => ids.includes(p))).toBe(true);
  });

  it("records one person trying ten times at once once", async () => {
    const id = await selfClient();
    const personId = unique("p");
    await Promise.all(Array.from({ length: 10 }, () => recordTry(deps, id, personId)));
    expect((await clients.findById(db, id))?.triedBy).toEqual([personId]);
  });

  it("records nobody for a client decided already, the operator's own, or one nobody registered", async () => {
    const approved = await selfClient({ review: "approved" });
    const operators = unique("ops");
    await registerClient(
      { store: db, clock: deps.clock },
      {
        clientId: operators,
        clientSecret: "s".repeat(43),
        name: "Ours",
        redirectUris: ["https://ours.example.test/cb"],
      },
    );
    await clients.save(db, { ...((await clients.findById(db, operators)) as OidcClient), review: "waiting" });
    for (const id of [approved, operators, "dyn_nobody"]) await recordTry(deps, id, unique("p"));
    expect((await clients.findById(db, approved))?.triedBy).toEqual([]);
    expect((await clients.findById(db, operators))?.triedBy).toEqual([]);
    expect(await clients.findById(db, "dyn_nobody")).toBeNull();
  });
});

describe("an erased person", () => {
  it("leaves the waiting clients they tried: their id is not kept to tell them anything", async () => {
    const [ann, ben] = [await someone("Ann Erased"), await someone("Ben Kept")];
    const id = await selfClient({ triedBy: [ann.id, ben.id] });
    await sweepPerson(db, ann.id);
    expect((await clients.findById(db, id))?.triedBy).toEqual([ben.id]);
  });
});
