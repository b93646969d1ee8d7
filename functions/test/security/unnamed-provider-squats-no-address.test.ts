/**
 * Proves: a provider the operator does not name (ARRIVAL_PROVIDERS) vouches for an address nobody
 * holds yet no more than for one someone holds. docs/security.md: such a provider "cannot vouch
 * for an address". Yet a sign-in through it with an address still free makes a waiting person who
 * holds the address: its owner is then refused by code as "pending", cannot be invited ("already
 * on a person: change their access instead"), and an administrator who follows that advice and
 * approves the waiting person lets the unnamed provider's account in as the owner.
 */
import request from "supertest";
import { transactionRunner } from "../../src/store/db";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import * as people from "../../src/store/people";
import { signedInWithGoogle, signedUp } from "../support/auth";
import { appFor, testDeps, unique, type TestDeps } from "../support/deps";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";
import { allTasksIdle } from "../support/task-queue";

const { db } = freshProject();
const deps: TestDeps = testDeps({ store: db, transaction: transactionRunner(db) });
const sessionsApp = appFor(sessionRoutes, deps);
const verify = (idToken: string) => request(sessionsApp).post("/auth/verify").send({ idToken, project: "startpage" });

afterEach(() => allTasksIdle());

describe("a provider the operator does not name, with an address nobody holds yet", () => {
  it("takes the address for nobody: the owner can still be invited", async () => {
    const account = await signedUp();
    const admin = await personFor(account, { role: "admin", projects: ["*"] }, db);
    const cookie = await sessionCookieFor(deps, account.uid, admin.id);
    const owners = `${unique("alice")}@example.test`;

    // Someone signs in through an unnamed provider whose account says it is the owner's address.
    const squatter = await signedInWithGoogle(owners, unique("gh"), "github.com");
    expect((await verify(squatter.idToken)).body).toMatchObject({ approved: false, reason: "pending" });

    // The administrator invites the owner.
    const invited = await request(appFor(peopleRoutes, deps))
      .post("/auth/invitations")
      .set("Cookie", cookie)
      .send({ address: owners, projects: ["startpage"] });
    expect(invited.status).toBe(201);
    // The waiting newcomer holds none of it.
    expect(await people.findByEmail(db, owners)).toBeNull();
  });
});
