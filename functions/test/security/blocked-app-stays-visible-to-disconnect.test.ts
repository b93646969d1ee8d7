/**
 * A person let a self-registered app act while they are away (a consent with offline_access and a
 * refresh token); the operator blocks it, and may approve it again ("approve undoes it"). While it
 * is blocked, "Apps you've let in" still lists it, so the person can see and disconnect the grant
 * that `clients approve` would bring back to life.
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import * as oidc from "../../src/routes/oidc/oidc";
import { appsOf } from "../../src/core/oidc/apps";
import { reviewClient } from "../../src/core/oidc/client-review";
import { appFor, registrationSettings, testConfig, testDeps } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { authorizedWithConsent, registeredPublicClient } from "../support/consent";

/** Who reviews here: the operator, as `clients approve` and `clients block` do. */
const OPERATOR = { kind: "operator", name: "test" } as const;

const REVIEWED = registrationSettings("reviewed", { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 1000 });
const REDIRECT = "https://notes.example.test/callback";

describe("a blocked app's standing grant", () => {
  const deps = testDeps({ config: testConfig({ oidcRegistration: REVIEWED }) });
  const app = appFor(oidc, deps);

  it("is still listed to the person, who may disconnect it before a re-approval revives it", async () => {
    const clientId = await registeredPublicClient(app, REDIRECT);
    await reviewClient(deps, clientId, "approved", OPERATOR);
    const { account, person } = await accountWithPerson({ name: "Ada" });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const verifier = randomBytes(32).toString("base64url");
    const q = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid offline_access",
      state: "s",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    });
    const to = await authorizedWithConsent(app, cookie, q);
    const code = to.searchParams.get("code") as string;
    expect(code).toBeTruthy();
    const tokens = await request(app).post("/auth/oidc/token").type("form").send({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.body.refresh_token).toBeTruthy();
    expect((await appsOf(deps, person.id)).map((a) => a.clientId)).toContain(clientId);

    await reviewClient(deps, clientId, "blocked", OPERATOR);
    expect((await appsOf(deps, person.id)).map((a) => a.clientId)).toContain(clientId);
  });
});
