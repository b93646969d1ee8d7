/**
 * Under OIDC_REGISTRATION=reviewed a client that registered itself gets nothing until the operator
 * approves it: the authorise endpoint says so on a page and sends nothing to its redirect URI, and
 * the token endpoint knows it no more than an id nobody registered.
 * Blocked, it ends as a disabled client does: its refresh tokens and access tokens stop working.
 * Only clients that registered themselves are reviewed: the operator's own are refused.
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import { SECOND } from "../../src/clock";
import { AppError } from "../../src/core/errors";
import { CLIENT_CACHE_TTL_MS, registerClient } from "../../src/core/oidc/clients";
import { reviewClient } from "../../src/core/oidc/client-review";
import * as oidc from "../../src/routes/oidc/oidc";
import { WAITING_CLIENT_KEPT_MS } from "../../src/store/oidc-clients";
import { appFor, firestore, testConfig, testDeps, unique, registrationSettings } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { authorizedWithConsent, registeredPublicClient } from "../support/consent";

/** Who reviews here: the operator, as `clients approve` and `clients block` do. */
const OPERATOR = { kind: "operator", name: "test" } as const;

const LOTS = { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 1000 };
const REDIRECT = "https://notes.example.test/callback";

describe("a self-registered client under review", () => {
  const deps = testDeps({ config: testConfig({ oidcRegistration: registrationSettings("reviewed", LOTS) }) });
  const app = appFor(oidc, deps);
  /** Past every instance's cache of the client, as the CLI's note says. */
  const pastCache = () => deps.clock.advance(CLIENT_CACHE_TTL_MS + SECOND);

  async function registered() {
    return registeredPublicClient(app, REDIRECT);
  }

  const authorizeQuery = (clientId: string, verifier: string) =>
    new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid offline_access",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    });

  async function authorise(clientId: string) {
    const { account, person } = await accountWithPerson({ name: "Ada" });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const verifier = randomBytes(32).toString("base64url");
    const res = await request(app)
      .get(`/auth/oidc/authorize?${authorizeQuery(clientId, verifier)}`)
      .set("Cookie", cookie);
    return { res, verifier };
  }

  const token = (form: Record<string, string>) => request(app).post("/auth/oidc/token").type("form").send(form);

  /** Signed in through the client: the person lets it in on its consent page, and it redeems the code. */
  async function signedIn(clientId: string) {
    const { account, person } = await accountWithPerson({ name: "Ada" });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const verifier = randomBytes(32).toString("base64url");
    const location = await authorizedWithConsent(app, cookie, authorizeQuery(clientId, verifier));
    const code = location.searchParams.get("code") as string;
    const tokens = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(tokens.status).toBe(200);
    return tokens.body as { access_token: string; refresh_token: string };
  }

  it("waits: a page at authorise, never its redirect URI, and invalid_client at the token endpoint", async () => {
    const clientId = await registered();
    const stored = (await firestore().collection("oidcClients").doc(clientId).get()).data();
    expect(stored?.review).toBe("waiting");
    // Unreviewed, it is forgotten in 30 days; a decision keeps it.
    expect(stored?.forgetAfter.toDate().getTime() - stored?.createdAt.toDate().getTime()).toBe(WAITING_CLIENT_KEPT_MS);
    const waiting = await authorise(clientId);
    expect(waiting.res.status).toBe(200);
    expect(waiting.res.headers.location).toBeUndefined();
    expect(waiting.res.text).toContain("Notes is waiting for review");
    expect(waiting.res.text).not.toContain(REDIRECT);
    const asked = await token({ grant_type: "refresh_token", refresh_token: "x", client_id: clientId });
    expect(asked.status).toBe(401);
    expect(asked.body.error).toBe("invalid_client");
    const revoke = await request(app).post("/auth/oidc/revoke").type("form").send({ token: "x", client_id: clientId });
    expect(revoke.status).toBe(401);

    await reviewClient(deps, clientId, "approved", OPERATOR);
    expect((await firestore().collection("oidcClients").doc(clientId).get()).get("forgetAfter")).toBeUndefined();
    pastCache();
    await signedIn(clientId);
  });

  it("blocked: its refresh tokens and access tokens stop, as a disabled client's do", async () => {
    const clientId = await registered();
    await reviewClient(deps, clientId, "approved", OPERATOR);
    pastCache();
    const tokens = await signedIn(clientId);
    const userinfo = () =>
      request(app).get("/auth/oidc/userinfo").set("Authorization", `Bearer ${tokens.access_token}`);
    expect((await userinfo()).status).toBe(200);

    await reviewClient(deps, clientId, "blocked", OPERATOR);
    pastCache();
    const refreshed = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(401);
    expect(refreshed.body.error).toBe("invalid_client");
    expect((await userinfo()).status).toBe(401);
    expect((await authorise(clientId)).res.status).toBe(400);
  });

  it("refuses to review the operator's own clients", async () => {
    const clientId = unique("operators");
    await registerClient(deps, { clientId, clientSecret: "s".repeat(43), name: "Ours", redirectUris: [REDIRECT] });
    await expect(reviewClient(deps, clientId, "blocked", OPERATOR)).rejects.toThrow(AppError);
    const stored = (await firestore().collection("oidcClients").doc(clientId).get()).data();
    expect(stored?.review).toBe("approved");
  });
});
