/**
 * The audit trail (`GET /auth/audit`) and the service's health (`GET /auth/health`) are ours, not
 * the contract's, and read by the identity host's `/audit` and `/health` pages alone, as the
 * invitations are by `/invite`: only that origin is answered with credentials. A script injected
 * into an app host of the family, riding an administrator's cookie (sent to every host under the
 * parent domain), reads neither who did what to whom nor the service's state.
 */
import request from "supertest";
import { transactionRunner } from "../../src/store/db";
import * as peopleRoutes from "../../src/routes/people/people";
import { signedUp } from "../support/auth";
import { APP_ORIGIN, appFor, ID_URL, testDeps } from "../support/deps";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";

const { db } = freshProject();
const deps = testDeps({ store: db, transaction: transactionRunner(db) });
const app = appFor(peopleRoutes, deps);

/** Every origin of the family but the identity host: the apex, `www` and the four app hosts. */
const OTHER_ORIGINS = deps.config.allowedOrigins.filter((o) => o !== ID_URL);

async function administrator(): Promise<string> {
  const account = await signedUp();
  const person = await personFor(account, { role: "admin", projects: ["*"] }, db);
  return sessionCookieFor(deps, account.uid, person.id);
}

describe("/auth/audit and /auth/health from an origin other than the identity host", () => {
  it("names the app hosts among the other origins", () => {
    expect(OTHER_ORIGINS).toContain(APP_ORIGIN);
  });

  it.each(OTHER_ORIGINS)("gives %s no allow-origin header with an administrator's cookie", async (origin) => {
    const cookie = await administrator();
    for (const path of ["/auth/audit", "/auth/audit?format=csv", "/auth/health", "/auth/health?window=7d"]) {
      const res = await request(app).get(path).set("Origin", origin).set("Cookie", cookie);
      expect({ path, allow: res.headers["access-control-allow-origin"] }).toEqual({ path, allow: undefined });
      expect(res.headers["access-control-allow-credentials"]).toBeUndefined();
    }
  });
});

describe("/auth/audit and /auth/health from the identity host", () => {
  it("answers with credentials, as the /audit and /health pages need", async () => {
    const cookie = await administrator();
    for (const path of ["/auth/audit", "/auth/health"]) {
      const res = await request(app).get(path).set("Origin", ID_URL).set("Cookie", cookie);
      expect(res.status).toBe(200);
      expect(res.headers["access-control-allow-origin"]).toBe(ID_URL);
    }
  });
});
