/**
 * The passkey rule on every administrators' route: an administrator whose session began with an
 * email code (or a password, a bridge, a text message) is refused each of them with 403
 * `passkey_required`, whatever it would have done; the same administrator signed in with a
 * passkey is not; and with the rule off (the local stack's default) nothing changes. The routes
 * are read from the router itself, so one added later without the rule fails here.
 */
import request from "supertest";
import * as peopleGroup from "../../src/routes/people/people";
import * as signInRules from "../../src/store/sign-in-rules";
import { adminRoutes, filled } from "../support/admin-routes";
import { appFor, testConfig, testDeps } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { recordingLogger } from "../support/email-codes";

const log = recordingLogger();
const deps = testDeps({ config: testConfig({ passkeyRoles: ["admin"] }), log });
const app = appFor(peopleGroup, deps);
const routes = adminRoutes(deps);

async function world() {
  const { account, person: admin } = await accountWithPerson({ role: "admin", projects: ["*"] }, deps.store);
  const { person: other } = await accountWithPerson({ projects: ["status"] }, deps.store);
  const cookie = (amr: string[]) => sessionCookieFor(deps, account.uid, admin.id, amr);
  return { admin, other, cookie };
}

function ask(method: string, path: string, cookie: string) {
  const call = request(app)[method.toLowerCase() as "get" | "post" | "patch" | "delete"](path).set("Cookie", cookie);
  return method === "GET" || method === "DELETE" ? call : call.send({});
}

describe("the administrators' routes under the passkey rule", () => {
  it("are all found: the list is the router's own", () => {
    const names = routes.map((r) => `${r.method} ${r.path}`);
    for (const known of [
      "GET /auth/people",
      "GET /auth/people/queue",
      "POST /auth/people/review",
      "PATCH /auth/people/:personId",
      "DELETE /auth/people/:personId",
      "GET /auth/people/:personId/data",
      "DELETE /auth/people/:personId/sessions",
      "DELETE /auth/people/:personId/passkeys",
      "POST /auth/invitations",
      "POST /auth/invitations/file",
    ])
      expect(names).toContain(known);
    expect(names.length).toBeGreaterThanOrEqual(20);
  });

  it.each([["otp"], ["pwd"], ["fed"], ["sms"], ["rec"]])(
    "refuses each of them, 403 passkey_required, to an administrator signed in by %s",
    async (method) => {
      const w = await world();
      const cookie = await w.cookie([method]);
      for (const route of routes) {
        const res = await ask(route.method, filled(route, { personId: w.other.id }), cookie);
        expect({ route: `${route.method} ${route.path}`, status: res.status, reason: res.body.reason }).toEqual({
          route: `${route.method} ${route.path}`,
          status: 403,
          reason: "passkey_required",
        });
      }
    },
  );

  it("answers each of them otherwise to the same administrator signed in with a passkey", async () => {
    const w = await world();
    const cookie = await w.cookie(["hwk", "user"]);
    for (const route of routes) {
      const res = await ask(route.method, filled(route, { personId: w.other.id }), cookie);
      expect({ route: `${route.method} ${route.path}`, reason: res.body.reason }).not.toEqual({
        route: `${route.method} ${route.path}`,
        reason: "passkey_required",
      });
    }
  });

  it("logs each privileged request with how its session began", async () => {
    const w = await world();
    const cookie = await w.cookie(["swk", "user"]);
    expect((await request(app).get("/auth/people").query({ limit: 1 }).set("Cookie", cookie)).status).toBe(200);
    const lines = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual({
      message: "privileged request",
      personId: w.admin.id,
      method: "GET",
      path: "/auth/people",
      amr: ["swk", "user"],
      standing: "passkey",
    });
  });

  it("holds nobody when the operator turns it off, and holds again when they turn it on", async () => {
    const w = await world();
    const cookie = await w.cookie(["otp"]);
    const list = () => request(app).get("/auth/people").query({ limit: 1 }).set("Cookie", cookie);
    await deps.transaction(async (tx) => signInRules.setRoles(deps.store, tx, []));
    expect((await list()).status).toBe(200);
    await deps.transaction(async (tx) => signInRules.setRoles(deps.store, tx, ["admin"]));
    expect((await list()).body.reason).toBe("passkey_required");
    await deps.transaction(async (tx) => signInRules.setRoles(deps.store, tx, null));
    expect((await list()).body.reason).toBe("passkey_required");
  });
});
