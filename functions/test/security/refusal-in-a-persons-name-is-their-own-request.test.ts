/**
 * A refusal on the audit trail names a person as having asked an administrators' route: that has
 * to be their own doing. The session cookie is SameSite=Lax, so any site the member visits can
 * send their browser to `/auth/people`, `/auth/audit`, `/auth/health`… as a top-level navigation
 * (a link, `location =`, a chain of redirects), and the browser sends their cookie with it. A
 * stranger must not be able to write "person:<them> refused GET /auth/audit" into the trail an
 * administrator reads when deciding whom to trust: a request the browser marks as sent from another
 * site (Fetch Metadata `Sec-Fetch-Site: cross-site`) is refused, and is no refusal in their name.
 */
import request from "supertest";
import { transactionRunner } from "../../src/store/db";
import * as peopleRoutes from "../../src/routes/people/people";
import { auditTrail } from "../../src/core/audit";
import { signedUp } from "../support/auth";
import { appFor, testDeps } from "../support/deps";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";

const { db } = freshProject();
const deps = testDeps({ store: db, transaction: transactionRunner(db) });
const app = appFor(peopleRoutes, deps);

/** What a browser sends when another site navigates it to the address. */
const NAVIGATED_FROM_ELSEWHERE = {
  "Sec-Fetch-Site": "cross-site",
  "Sec-Fetch-Mode": "navigate",
  "Sec-Fetch-Dest": "document",
  "Sec-Fetch-User": "?1",
};

describe("an administrators' route another site sends a member's browser to", () => {
  it("is refused, and writes no refusal in the member's name", async () => {
    const account = await signedUp();
    const person = await personFor(account, { projects: ["startpage"] }, db);
    const cookie = await sessionCookieFor(deps, account.uid, person.id);

    for (const path of ["/auth/people", "/auth/audit", "/auth/health", "/auth/invitations"]) {
      const res = await request(app).get(path).set("Cookie", cookie).set(NAVIGATED_FROM_ELSEWHERE);
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
    }
    expect(await auditTrail(deps, { actorId: `person:${person.id}` }, 10)).toEqual([]);
  });
});
