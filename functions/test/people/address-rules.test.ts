/**
 * The operator's rules by mail domain (ADDRESS_RULES), over HTTP on a project of this file's own:
 * off by default; a proven address at a domain that approves arrives approved with the rule's
 * grants (by a request for access, a code at the sign-in page, a provider's verified sign-in),
 * its history naming the rule; one that suggests waits for review with the suggestion shown; an
 * invitation of the address comes before the rule.
 */
import request from "supertest";
import { MINUTE } from "../../src/clock";
import { transactionRunner } from "../../src/store/db";
import * as otp from "../../src/routes/otp/otp";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import * as people from "../../src/store/people";
import type { AddressRule } from "../../src/core/settings";
import { signedUp } from "../support/auth";
import { appFor, testConfig, testDeps, unique } from "../support/deps";
import { codeFor, mailTo, waitForMail } from "../support/inbox";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";
import type { Person } from "../../src/core/model/person";

const { db } = freshProject();
const RULES: AddressRule[] = [
  { domain: "school.example", then: "approve", projects: ["calendar"], groups: ["pupils"] },
  { domain: "partner.example", then: "suggest", projects: ["location"], groups: [] },
];

function world(addressRules: AddressRule[] = RULES) {
  const deps = testDeps({ store: db, transaction: transactionRunner(db), config: testConfig({ addressRules }) });
  return { deps, otp: appFor(otp, deps), people: appFor(peopleRoutes, deps), sessions: appFor(sessionRoutes, deps) };
}

async function adminCookie(deps: ReturnType<typeof world>["deps"]): Promise<string> {
  const account = await signedUp();
  const admin = await personFor(account, { role: "admin", projects: ["*"] }, db);
  return sessionCookieFor(deps, account.uid, admin.id);
}

/** A request for access confirmed with its code, as the request page sends it. */
async function askFor(app: ReturnType<typeof world>["otp"], email: string, nth = 1) {
  expect((await request(app).post("/auth/otp/send").send({ email, purpose: "request-access" })).status).toBe(200);
  const res = await request(app)
    .post("/auth/otp/verify")
    .send({ email, otp: await codeFor(email, nth), purpose: "request-access" });
  expect(res.status).toBe(200);
  return (await people.findByEmail(db, email)) as Person;
}

describe("ADDRESS_RULES", () => {
  it("is off by default: a proven address at any domain waits for review", async () => {
    const { otp: app } = world([]);
    const person = await askFor(app, `${unique("off")}@school.example`);
    expect(person).toMatchObject({ status: "pending", projects: [], awaitingNotice: true });
    expect(person.suggestion).toBeUndefined();
  });

  it("approves a proven address at a domain whose rule approves, with its grants, and says so in the history", async () => {
    const w = world();
    const person = await askFor(w.otp, `${unique("pupil")}@school.example`);
    expect(person).toMatchObject({ status: "approved", projects: ["calendar"], groups: ["pupils"], role: "user" });
    expect(person.awaitingNotice).toBeUndefined();
    const cookie = await adminCookie(w.deps);
    const history = await request(w.people).get(`/auth/people/${person.id}/history`).set("Cookie", cookie);
    expect(history.body.entries).toEqual([
      expect.objectContaining({
        event: "created",
        by: { kind: "service" },
        via: "rule",
        changes: expect.objectContaining({ rule: { from: null, to: "school.example" } }),
      }),
    ]);
    // A subdomain is a domain of its own, with no rule.
    expect(await askFor(w.otp, `${unique("sub")}@staff.school.example`)).toMatchObject({ status: "pending" });
  });

  it("lets a code at the sign-in page make the approved person, and a provider's verified sign-in too", async () => {
    const w = world();
    const email = `${unique("code")}@school.example`;
    expect((await request(w.otp).post("/auth/otp/send").send({ email })).status).toBe(200);
    const signedIn = await request(w.otp)
      .post("/auth/otp/sign-in")
      .send({ email, otp: await codeFor(email) });
    expect(signedIn.status).toBe(200);
    expect(await people.findByEmail(db, email)).toMatchObject({ status: "approved", projects: ["calendar"] });

    const account = await signedUp({ email: `${unique("prov")}@school.example`, verified: true });
    const verified = await request(w.sessions)
      .post("/auth/verify")
      .send({ idToken: account.idToken, project: "calendar" });
    expect(verified.body).toMatchObject({ approved: true, projects: ["calendar"], groups: ["pupils"] });
  });

  it("leaves a domain whose rule suggests to the reviewer, with the suggestion shown, and sends it no sign-in code", async () => {
    const w = world();
    const email = `${unique("partner")}@partner.example`;
    expect((await request(w.otp).post("/auth/otp/send").send({ email })).status).toBe(200);
    w.deps.clock.advance(MINUTE);
    const person = await askFor(w.otp, email);
    // The sign-in code was never sent: the only mail is the request's.
    expect(await mailTo(email)).toHaveLength(1);
    expect(person).toMatchObject({
      status: "pending",
      projects: [],
      suggestion: { rule: "partner.example", projects: ["location"], groups: [] },
    });
    const cookie = await adminCookie(w.deps);
    const shown = await request(w.people).get(`/auth/people/${person.id}`).set("Cookie", cookie);
    expect(shown.body.suggestion).toEqual({ rule: "partner.example", projects: ["location"], groups: [] });
    const approved = await request(w.people)
      .patch(`/auth/people/${person.id}`)
      .set("Cookie", cookie)
      .send({ status: "approved", projects: ["location"] });
    expect(approved.body).toMatchObject({ status: "approved", projects: ["location"], suggestion: null });
  });

  it("puts an invitation of the address before the rule of its domain", async () => {
    const w = world();
    const cookie = await adminCookie(w.deps);
    const email = `${unique("invited")}@school.example`;
    const invited = await request(w.people)
      .post("/auth/invitations")
      .set("Cookie", cookie)
      .send({ address: email, projects: ["startpage"], role: "admin" });
    expect(invited.status).toBe(201);
    await waitForMail(email);
    // The second mail is the code: the first is the invitation's.
    const person = await askFor(w.otp, email, 2);
    expect(person).toMatchObject({ status: "approved", projects: ["startpage"], groups: [], role: "admin" });
  });
});
