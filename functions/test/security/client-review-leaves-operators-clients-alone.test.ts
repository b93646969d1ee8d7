/**
 * Only an app that registered itself is reviewed: an administrator's approval or block through
 * the API refuses one of the operator's own clients on its row, and changes nothing of it, even
 * one stored as waiting with people who tried it (no one is told anything of it either).
 */
import request from "supertest";
import * as peopleRoutes from "../../src/routes/people/people";
import { registerClient } from "../../src/core/oidc/clients";
import type { OidcClient } from "../../src/core/model/oidc-client";
import * as clients from "../../src/store/oidc-clients";
import { transactionRunner } from "../../src/store/db";
import { signedUp } from "../support/auth";
import { appFor, testDeps, unique } from "../support/deps";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";

const { db } = freshProject();
const deps = testDeps({ store: db, transaction: transactionRunner(db) });
const app = appFor(peopleRoutes, deps);

describe("the operator's own clients", () => {
  it("are refused approval and blocking, row by row, and stay as they were", async () => {
    const account = await signedUp();
    const admin = await personFor(account, { role: "admin", projects: ["*"] }, db);
    const cookie = await sessionCookieFor(deps, account.uid, admin.id);
    const clientId = unique("ours");
    await registerClient(deps, {
      clientId,
      clientSecret: "s".repeat(43),
      name: "Ours",
      redirectUris: ["https://ours.example.test/cb"],
    });
    // Even one somehow stored as waiting, with someone who tried it.
    const stored = (await clients.findById(db, clientId)) as OidcClient;
    await clients.save(db, { ...stored, review: "waiting", triedBy: [admin.id] });
    const queue = await request(app).get("/auth/clients/queue").set("Cookie", cookie);
    expect(queue.body.clients.map((c: { clientId: string }) => c.clientId)).not.toContain(clientId);
    for (const status of ["approved", "blocked"]) {
      const res = await request(app)
        .post("/auth/clients/review")
        .set("Cookie", cookie)
        .send({ clientIds: [clientId], status });
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([{ clientId, error: expect.any(String), reason: "client_not_self_registered" }]);
    }
    expect(await clients.findById(db, clientId)).toMatchObject({
      registeredBy: "operator",
      review: "waiting",
      triedBy: [admin.id],
    });
    expect((await db.collection("outbox").where("kind", "==", "client-review").get()).size).toBe(0);
  });
});
