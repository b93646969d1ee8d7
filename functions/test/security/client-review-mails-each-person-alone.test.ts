/**
 * The decision on an app reaches each person who tried it once, in a mail of their own: never
 * several people who do not know each other in one To:, and never twice, however many reviewers
 * decide it at once or again afterwards (whom to tell is read, and cleared, in the decision's
 * transaction).
 */
import request from "supertest";
import * as peopleRoutes from "../../src/routes/people/people";
import * as clients from "../../src/store/oidc-clients";
import { transactionRunner } from "../../src/store/db";
import { signedUp } from "../support/auth";
import { selfRegisteredClient } from "../support/consent";
import { appFor, testDeps, unique } from "../support/deps";
import { mailTo, settledCount, waitForMail } from "../support/inbox";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";

const { db } = freshProject();
const deps = testDeps({ store: db, transaction: transactionRunner(db) });
const app = appFor(peopleRoutes, deps);

describe("the mail of an app's review", () => {
  it("goes to each person who tried it alone, once, when several reviewers decide it at once", async () => {
    const reviewers = await Promise.all(
      [1, 2, 3].map(async () => {
        const account = await signedUp();
        const admin = await personFor(account, { role: "admin", projects: ["*"] }, db);
        return sessionCookieFor(deps, account.uid, admin.id);
      }),
    );
    const tried = await Promise.all(
      Array.from({ length: 6 }, () =>
        personFor({ uid: unique("u"), email: `${unique("alone")}@example.test` }, { name: "Tried It" }, db),
      ),
    );
    const clientId = `dyn_${unique("c")}`;
    await selfRegisteredClient({ store: db, clock: deps.clock }, clientId, {
      name: "Crowded",
      review: "waiting",
      triedBy: tried.map((p) => p.id),
    });
    const answers = await Promise.all(
      reviewers.map((cookie) =>
        request(app)
          .post("/auth/clients/review")
          .set("Cookie", cookie)
          .send({ clientIds: [clientId], status: "approved" }),
      ),
    );
    // Contention may hold a decision back (503 on its row's transaction); one goes through.
    const told = answers.flatMap((a) =>
      a.status === 200 ? a.body.results.map((r: { told?: number }) => r.told ?? 0) : [],
    );
    expect(told.reduce((a: number, b: number) => a + b, 0)).toBe(tried.length);
    for (const person of tried) {
      const address = person.emails[0] as string;
      const [mail] = await waitForMail(address);
      expect(mail?.envelope.to.map((t) => t.address)).toEqual([address]);
      expect(mail?.to.map((t) => t.address)).toEqual([address]);
    }
    for (const person of tried) expect(await settledCount(person.emails[0] as string)).toBe(1);
    expect((await clients.findById(db, clientId))?.triedBy).toEqual([]);
    // Nobody else heard of it: no mail names two of them.
    const all = (await Promise.all(tried.map((p) => mailTo(p.emails[0] as string)))).flat();
    expect(all.every((m) => m.envelope.to.length === 1)).toBe(true);
  });
});
