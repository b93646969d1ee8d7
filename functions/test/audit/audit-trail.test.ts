/**
 * The audit trail (core/audit) as the administrators' API writes it: an administrator's approval
 * is one record naming them, how their session began, the person by id and what changed, and one
 * log line labelled for the sink, only once its transaction committed; an app's review the same;
 * a signed-in person refused an administrators' route is a refusal, one per minute however often
 * they ask; and nothing of a person's own (an address, a name) is in it. On a project of its own,
 * so the trail read back is this file's alone.
 */
import request from "supertest";
import { transactionRunner, type Transaction } from "../../src/store/db";
import * as peopleRoutes from "../../src/routes/people/people";
import { auditTrail, loggingAuditAfterCommit, recordAudit } from "../../src/core/audit";
import { AUDIT_KEPT_MS } from "../../src/core/model/audit";
import { recordEvent } from "../../src/core/people/history";
import { signedUp } from "../support/auth";
import { appFor, testDeps, unique } from "../support/deps";
import { freshProject } from "../support/operator-cli";
import { recordingLogger } from "../support/email-codes";
import { personFor, sessionCookieFor } from "../support/people";
import { selfRegisteredClient } from "../support/consent";
import type { Person } from "../../src/core/model/person";

const { db } = freshProject();
const log = recordingLogger();
const deps = testDeps({ store: db, transaction: transactionRunner(db), log });
const peopleApp = appFor(peopleRoutes, deps);

async function signedIn(fields: Partial<Person>): Promise<{ cookie: string; person: Person; email: string }> {
  const account = await signedUp();
  const person = await personFor(account, fields, db);
  return { cookie: await sessionCookieFor(deps, account.uid, person.id), person, email: account.email };
}

/** The log lines the trail wrote, as objects. */
const auditLines = () =>
  log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.message === "audit");

describe("the audit trail of the administrators' API", () => {
  it("records an approval once: the administrator and their sign-in, the person by id, what changed", async () => {
    const admin = await signedIn({ role: "admin", projects: ["*"], name: "Rita Reviewer" });
    const waiting = await signedIn({ status: "pending", name: "Wanda Waiting" });
    const before = auditLines().length;

    const res = await request(peopleApp)
      .post("/auth/people/review")
      .set("Cookie", admin.cookie)
      .send({ personIds: [waiting.person.id], status: "approved" });
    expect(res.status).toBe(200);

    const records = await auditTrail(deps, { subject: waiting.person.id }, 10);
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record).toMatchObject({
      actor: { kind: "admin", personId: admin.person.id, lifted: false },
      actorId: `admin:${admin.person.id}`,
      kind: "person",
      action: "person.changed",
      subjects: [waiting.person.id],
      outcome: "done",
      client: { via: "api" },
      detail: { "status.from": "pending", "status.to": "approved" },
    });
    // How their session began, as the person's history says it.
    const history = await request(peopleApp)
      .get(`/auth/people/${waiting.person.id}/history`)
      .set("Cookie", admin.cookie);
    expect(record?.actor).toMatchObject({ amr: history.body.entries[0].by.amr ?? [] });
    expect(record?.detail.fields).toContain("status");
    expect(record?.forgetAfter.getTime()).toBe((record?.at.getTime() ?? 0) + AUDIT_KEPT_MS);
    // Nothing of either person's own: no address, no name.
    const stored = JSON.stringify(record);
    for (const own of [admin.email, waiting.email, "Rita", "Wanda"]) expect(stored).not.toContain(own);

    // One log line for it, labelled for the sink, carrying the record's id.
    const lines = auditLines().slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      id: record?.id,
      action: "person.changed",
      "logging.googleapis.com/labels": { trail: "audit" },
    });
  });

  it("records an administrator's decision on an app that registered itself", async () => {
    const admin = await signedIn({ role: "admin", projects: ["*"] });
    const clientId = unique("dyn_");
    await selfRegisteredClient(deps, clientId, { review: "waiting" });
    const res = await request(peopleApp)
      .post("/auth/clients/review")
      .set("Cookie", admin.cookie)
      .send({ clientIds: [clientId], status: "blocked" });
    expect(res.status).toBe(200);
    const records = await auditTrail(deps, { subject: clientId }, 10);
    expect(records.map((r) => [r.actorId, r.kind, r.action, r.outcome])).toEqual([
      [`admin:${admin.person.id}`, "client", "client.blocked", "done"],
    ]);
  });

  it("records a person refused an administrators' route, once a minute however often they ask", async () => {
    const someone = await signedIn({ projects: ["startpage"] });
    for (let i = 0; i < 5; i++) {
      const res = await request(peopleApp).get("/auth/people").set("Cookie", someone.cookie);
      expect(res.status).toBe(403);
    }
    const refused = await auditTrail(deps, { actorId: `person:${someone.person.id}` }, 10);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      kind: "refusal",
      action: "admin-route",
      outcome: "refused",
      detail: { reason: "forbidden", method: "GET", route: "/auth/people" },
    });
    // The next minute is a record of its own.
    deps.clock.advance(60_000);
    await request(peopleApp).get("/auth/people").set("Cookie", someone.cookie);
    expect(await auditTrail(deps, { actorId: `person:${someone.person.id}` }, 10)).toHaveLength(2);
  });

  it("lists by actor, by kind and by time, newest first", async () => {
    const admin = await signedIn({ role: "admin", projects: ["*"] });
    const people = await Promise.all([1, 2, 3].map(() => signedIn({ status: "pending" })));
    for (const p of people) {
      deps.clock.advance(1000);
      const res = await request(peopleApp)
        .post("/auth/people/review")
        .set("Cookie", admin.cookie)
        .send({ personIds: [p.person.id], status: "rejected" });
      expect(res.status).toBe(200);
    }
    const byActor = await auditTrail(deps, { actorId: `admin:${admin.person.id}` }, 10);
    expect(byActor.map((r) => r.subjects[0])).toEqual(people.map((p) => p.person.id).reverse());
    const lastTwo = await auditTrail(
      deps,
      { actorId: `admin:${admin.person.id}`, since: new Date(deps.clock.now().getTime() - 1500) },
      10,
    );
    expect(lastTwo.map((r) => r.subjects[0])).toEqual(
      people
        .slice(1)
        .map((p) => p.person.id)
        .reverse(),
    );
    const refusals = await auditTrail(deps, { kind: "refusal" }, 100);
    expect(refusals.every((r) => r.outcome === "refused")).toBe(true);
  });
});

describe("invitations on the trail", () => {
  it("records what an invitation lets in, never its address, and not again when the invitee arrives", async () => {
    const admin = await signedIn({ role: "admin", projects: ["*"] });
    const address = `${unique("invitee")}@example.test`;
    const res = await request(peopleApp)
      .post("/auth/invitations")
      .set("Cookie", admin.cookie)
      .send({ address, role: "admin", projects: ["calendar"] });
    expect(res.status).toBe(201);
    const [made] = await auditTrail(deps, { actorId: `admin:${admin.person.id}`, kind: "invitation" }, 10);
    expect(made).toMatchObject({
      action: "invitation.invited-someone",
      subjects: [],
      detail: { role: "admin", projects: ["calendar"], groups: [] },
    });
    expect(JSON.stringify(made)).not.toContain(address);

    // The invitee's arrival names the inviter as who let them in, in their history: theirs, not the inviter's act.
    const arrived = unique("arrived");
    await db.runTransaction(async (tx) =>
      recordEvent(deps, tx, {
        personId: arrived,
        by: { kind: "admin", personId: admin.person.id, email: null, amr: ["otp"] },
        via: "invitation",
        event: "created",
        changes: { status: { from: null, to: "approved" } },
      }),
    );
    expect(await auditTrail(deps, { subject: arrived }, 10)).toEqual([]);
  });
});

describe("GET /auth/audit", () => {
  it("pages the trail for an administrator, as JSON or CSV, and refuses a query it cannot make", async () => {
    const admin = await signedIn({ role: "admin", projects: ["*"] });
    const people = await Promise.all([1, 2, 3].map(() => signedIn({ status: "pending" })));
    for (const p of people) {
      deps.clock.advance(1000);
      await request(peopleApp)
        .post("/auth/people/review")
        .set("Cookie", admin.cookie)
        .send({ personIds: [p.person.id], status: "approved" });
    }
    const ask = (query: string) => request(peopleApp).get(`/auth/audit?${query}`).set("Cookie", admin.cookie);
    const first = await ask(`actor=admin:${admin.person.id}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.headers["cache-control"]).toBe("no-store");
    expect(first.body.records.map((r: { subjects: string[] }) => r.subjects[0])).toEqual(
      [people[2], people[1]].map((p) => p?.person.id),
    );
    const rest = await ask(`actor=admin:${admin.person.id}&limit=2&cursor=${first.body.next as string}`);
    expect(rest.body.records.map((r: { subjects: string[] }) => r.subjects[0])).toEqual([people[0]?.person.id]);
    expect(rest.body.next).toBeNull();

    const csv = await ask(`person=${people[0]?.person.id}&format=csv`);
    expect(csv.headers["content-type"]).toMatch(/^text\/csv/);
    expect(csv.headers["content-disposition"]).toBe('attachment; filename="audit.csv"');
    expect(csv.text.split("\r\n")).toHaveLength(2);

    for (const bad of [
      "kind=everything",
      "actor=nobody",
      "since=yesterday",
      "limit=0",
      "cursor=bm90IG91cnM",
      "extra=1",
    ]) {
      const res = await ask(bad);
      expect([bad, res.status, typeof res.body.error]).toEqual([bad, 400, "string"]);
    }
  });
});

describe("a record made in a transaction Firestore runs again", () => {
  it("is logged once, for the attempt that committed", async () => {
    const lines = recordingLogger();
    const made: Transaction[] = [];
    // Firestore's retry, as it happens under contention: the work runs twice, the second commits.
    const twice = loggingAuditAfterCommit(
      async (work) => {
        await db
          .runTransaction(async (tx) => {
            made.push(tx);
            await work(tx);
            // Not retried by the client library itself: the runner's second call stands for its retry.
            throw new Error("contention");
          })
          .catch(() => undefined);
        return db.runTransaction(async (tx) => {
          made.push(tx);
          return work(tx);
        });
      },
      () => lines,
    );
    const subject = unique("subject");
    await twice(async (tx) => {
      recordAudit(deps, tx, {
        actor: { kind: "operator", name: "ops@desk" },
        kind: "operator",
        action: "cli.test",
        subjects: [subject],
        client: { via: "cli", from: null },
      });
    });
    expect(made).toHaveLength(2);
    expect(lines.lines).toHaveLength(1);
    const stored = await auditTrail(deps, { subject }, 10);
    expect(stored).toHaveLength(1);
    expect(JSON.parse(lines.lines[0] as string)).toMatchObject({ id: stored[0]?.id });
  });
});
