/**
 * The apps' review queue is the administrators' alone, as the people's is: someone signed out is
 * answered 401, a person who is not an administrator 403, and neither learns of a waiting app nor
 * decides one; a page on another origin cannot drive an administrator's browser to decide one.
 */
import request from "supertest";
import * as peopleRoutes from "../../src/routes/people/people";
import * as clients from "../../src/store/oidc-clients";
import { transactionRunner } from "../../src/store/db";
import { signedUp } from "../support/auth";
import { selfRegisteredClient } from "../support/consent";
import { appFor, testDeps, unique } from "../support/deps";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";

const { db } = freshProject();
const deps = testDeps({ store: db, transaction: transactionRunner(db) });
const app = appFor(peopleRoutes, deps);

async function cookieOf(fields: Parameters<typeof personFor>[1]): Promise<string> {
  const account = await signedUp();
  const person = await personFor(account, fields, db);
  return sessionCookieFor(deps, account.uid, person.id);
}

async function waiting(): Promise<string> {
  const clientId = `dyn_${unique("c")}`;
  await selfRegisteredClient({ store: db, clock: deps.clock }, clientId, { name: "Secret Agent", review: "waiting" });
  return clientId;
}

describe("the apps' review queue", () => {
  it("tells someone signed out, or a member with every project, nothing, and lets them decide nothing", async () => {
    const clientId = await waiting();
    const member = await cookieOf({ projects: ["*"], groups: ["ops"] });
    for (const cookie of [null, member]) {
      const asked = [
        request(app).get("/auth/clients/queue"),
        request(app)
          .post("/auth/clients/review")
          .send({ clientIds: [clientId], status: "approved" }),
        request(app)
          .post("/auth/clients/review")
          .send({ clientIds: [clientId], status: "blocked" }),
      ];
      for (const req of asked) {
        const res = await (cookie === null ? req : req.set("Cookie", cookie));
        expect(res.status).toBe(cookie === null ? 401 : 403);
        expect(res.text).not.toContain("Secret Agent");
        expect(res.text).not.toContain(clientId);
      }
    }
    expect((await clients.findById(db, clientId))?.review).toBe("waiting");
  });

  it("refuses a decision an administrator's browser is made to send from another origin", async () => {
    const clientId = await waiting();
    const admin = await cookieOf({ role: "admin", projects: ["*"] });
    for (const headers of [{ Origin: "https://evil.example" }, { "Sec-Fetch-Site": "cross-site" }]) {
      const res = await request(app)
        .post("/auth/clients/review")
        .set("Cookie", admin)
        .set(headers)
        .send({ clientIds: [clientId], status: "approved" });
      expect(res.status).toBe(403);
    }
    // A form post, which a foreign page can send without asking: not JSON, not taken.
    const form = await request(app)
      .post("/auth/clients/review")
      .set("Cookie", admin)
      .type("form")
      .send({ clientIds: clientId, status: "approved" });
    expect(form.status).toBe(415);
    expect((await clients.findById(db, clientId))?.review).toBe("waiting");
  });
});
