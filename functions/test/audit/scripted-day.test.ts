/**
 * A day of a deployment, scripted on a project of its own, then read back from the audit trail:
 * administrators review, change, erase and invite through the API; an operator grants, reads and
 * is refused on the command line; a member, a person still waiting and a stranger knock on the
 * administrators' routes; people change their own accounts. The trail, read by the operator's
 * `audit` command and by the administrators' API alike, holds each privileged act exactly once,
 * with who did it, and nothing else: no read, no one's own change, no knock from someone without a
 * session or still waiting. Its CSV parses as the same columns on every row, whatever a cell holds.
 */
import request from "supertest";
import { transactionRunner } from "../../src/store/db";
import * as peopleRoutes from "../../src/routes/people/people";
import { signedUp } from "../support/auth";
import { appFor, firestore, testDeps, unique } from "../support/deps";
import { operator, operatorJson, freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";
import type { Person } from "../../src/core/model/person";
// The CSV reader the service reads spreadsheets' files with (RFC 4180: quoted commas, quotes, line breaks).
import { csvRecords } from "../../src/core/invitations/invitation-file";

// The suite's own project is the default app (its accounts): made before the fresh one's.
firestore();
const { db, env } = freshProject();
const deps = testDeps({ store: db, transaction: transactionRunner(db) });
const app = appFor(peopleRoutes, deps);
const ID_URL = deps.config.idUrl;
const cli = (args: string[]) => operator(args, env);
const cliJson = <T>(args: string[]) => operatorJson<T>(args, env);
// The CLI starts a node process per command (2 to 5 s here, more while the suite's other files run).
jest.setTimeout(180_000);

type Row = { id: string; actorId: string; action: string; subjects: string[]; outcome: string };

async function someone(fields: Partial<Person>): Promise<{ person: Person; cookie: string; email: string }> {
  const account = await signedUp();
  const person = await personFor(account, fields, db);
  return { person, cookie: await sessionCookieFor(deps, account.uid, person.id), email: account.email };
}

describe("a scripted day, read back from the audit trail", () => {
  it("holds each privileged act once, with its actor, and nothing else; as JSON, from the API, and as CSV", async () => {
    // The API's clock at the real time, as the CLI's is.
    // eslint-disable-next-line no-restricted-syntax -- the CLI runs on the real clock
    deps.clock.set(new Date());
    const ava = await someone({ role: "admin", projects: ["*"] });
    const ben = await someone({ role: "admin", projects: ["*"] });
    const [pia, pete, pat] = await Promise.all([1, 2, 3].map(() => someone({ status: "pending", projects: [] })));
    const member = await someone({ projects: ["startpage"] });
    const waiting = await someone({ status: "pending", projects: [] });
    if (pia === undefined || pete === undefined || pat === undefined) throw new Error("three people");

    // Morning: the queue. Ava approves two at once; Ben turns one away.
    const reviewed = await request(app)
      .post("/auth/people/review")
      .set("Cookie", ava.cookie)
      .send({ personIds: [pia.person.id, pete.person.id], status: "approved" });
    expect(reviewed.status).toBe(200);
    const rejected = await request(app)
      .patch(`/auth/people/${pat.person.id}`)
      .set("Origin", ID_URL)
      .set("Cookie", ben.cookie)
      .send({ status: "rejected" });
    expect(rejected.status).toBe(200);

    // What is no privileged act: reads, a person's own change, the member's own account.
    expect((await request(app).get("/auth/people").set("Cookie", ava.cookie)).status).toBe(200);
    expect((await request(app).get(`/auth/people/${pia.person.id}/history`).set("Cookie", ava.cookie)).status).toBe(
      200,
    );
    const renamed = await request(app)
      .patch("/auth/account")
      .set("Origin", ID_URL)
      .set("Cookie", member.cookie)
      .send({ name: 'Mo, "the member"' });
    expect(renamed.status).toBe(200);

    // Knocks on the administrators' routes: the member's, twice on each of two routes (one record a
    // route a minute); a person still waiting and a stranger are answered and leave nothing.
    for (const path of ["/auth/people", "/auth/audit", "/auth/people", "/auth/audit"])
      expect((await request(app).get(path).set("Cookie", member.cookie)).status).toBe(403);
    expect((await request(app).get("/auth/people").set("Cookie", waiting.cookie)).status).toBe(403);
    expect((await request(app).get("/auth/people")).status).toBe(401);

    // Afternoon: Ava grants a project and a group, ends Pia's sessions, erases Pete, invites someone.
    const granted = await request(app)
      .patch(`/auth/people/${pia.person.id}`)
      .set("Origin", ID_URL)
      .set("Cookie", ava.cookie)
      .send({ projects: ["alpha"], groups: ["ops"] });
    expect(granted.status).toBe(200);
    const ended = await request(app)
      .delete(`/auth/people/${pia.person.id}/sessions`)
      .set("Origin", ID_URL)
      .set("Cookie", ava.cookie);
    expect(ended.status).toBe(200);
    const erased = await request(app)
      .delete(`/auth/people/${pete.person.id}`)
      .set("Origin", ID_URL)
      .set("Cookie", ava.cookie);
    expect(erased.body).toMatchObject({ erased: true });
    const invitee = `${unique("invitee")}@example.test`;
    const invited = await request(app)
      .post("/auth/invitations")
      .set("Cookie", ava.cookie)
      .send({ address: invitee, projects: ["beta"] });
    expect(invited.status).toBe(201);

    // Evening, on the command line: a grant, a read, and a refusal (nobody has that address).
    expect((await cli(["people", "grant", pia.email, "beta", "--force"])).code).toBe(0);
    expect((await cli(["people", "show", pia.person.id])).code).toBe(0);
    const nobody = `${unique("nobody")}@example.test`;
    expect((await cli(["people", "approve", nobody])).code).toBe(1);

    const rows = await cliJson<Row[]>(["audit", "--limit", "1000"]);
    const operatorId = rows.find((r) => r.actorId.startsWith("operator:"))?.actorId;
    expect(operatorId).toMatch(/^operator:.+@.+/);
    const told = rows.map((r) => [r.actorId, r.action, r.outcome, [...r.subjects].sort().join(" ")].join(" | "));
    const expected = [
      [`admin:${ava.person.id}`, "person.changed", "done", pia.person.id],
      [`admin:${ava.person.id}`, "person.changed", "done", pete.person.id],
      [`admin:${ben.person.id}`, "person.changed", "done", pat.person.id],
      [`person:${member.person.id}`, "admin-route", "refused", ""],
      [`person:${member.person.id}`, "admin-route", "refused", ""],
      [`admin:${ava.person.id}`, "person.changed", "done", pia.person.id],
      [`admin:${ava.person.id}`, "person.sessions-ended", "done", pia.person.id],
      [`admin:${ava.person.id}`, "person.erased", "done", pete.person.id],
      [`admin:${ava.person.id}`, "invitation.invited-someone", "done", ""],
      [operatorId, "cli.people.grant", "done", ["[address]", "beta", pia.person.id].sort().join(" ")],
      [operatorId, "cli.people.approve", "refused", "[address]"],
    ].map((r) => r.join(" | "));
    expect([...told].sort()).toEqual([...expected].sort());
    // Newest first, and nothing of anyone's own: no address, no name.
    expect(rows[0]?.action).toBe("cli.people.approve");
    const stored = JSON.stringify(rows);
    for (const own of [pia.email, pete.email, member.email, invitee, nobody, "the member"])
      expect(stored).not.toContain(own);

    // The administrators' API reads the same trail, page by page.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: request.Response = await request(app)
        .get(`/auth/audit?limit=4${cursor === null ? "" : `&cursor=${cursor}`}`)
        .set("Cookie", ava.cookie);
      expect(page.status).toBe(200);
      seen.push(...page.body.records.map((r: Row) => r.id));
      cursor = page.body.next as string | null;
    } while (cursor !== null);
    expect(seen).toEqual(rows.map((r) => r.id));

    // As CSV, from either: a header and a row a record, each of the same nine columns.
    const fromCli = await cli(["audit", "--limit", "1000", "--format", "csv"]);
    const fromApi = await request(app).get("/auth/audit?format=csv&limit=500").set("Cookie", ava.cookie);
    for (const text of [fromCli.stdout, fromApi.text]) {
      const { records, problem } = csvRecords(text);
      expect(problem).toBeUndefined();
      const table = records.map((r) => r.fields);
      expect(table[0]).toEqual(["at", "actor", "action", "subjects", "outcome", "via", "detail", "trace", "id"]);
      expect(table).toHaveLength(rows.length + 1);
      expect(table.every((r) => r.length === 9)).toBe(true);
      expect(table.slice(1).map((r) => r[8])).toEqual(rows.map((r) => r.id));
    }
  });
});
