/**
 * The operator removes a client that registered itself (`clients remove`): it is unknown to every
 * endpoint, and nothing it held is left: the consents people gave it, its grants with their
 * refresh tokens, its access tokens and codes. A client that registers again under the same id (a
 * metadata document's URL can) inherits none of it. The operator's own clients are refused: they
 * are disabled instead.
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import { SECOND } from "../../src/clock";
import { AppError } from "../../src/core/errors";
import { removeClient, reviewClient } from "../../src/core/oidc/client-review";
import { CLIENT_CACHE_TTL_MS, registerClient } from "../../src/core/oidc/clients";
import * as oidc from "../../src/routes/oidc/oidc";
import * as clients from "../../src/store/oidc-clients";
import { appFor, firestore, testConfig, testDeps, unique, registrationSettings } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { authorizedWithConsent, registeredPublicClient } from "../support/consent";

const OPERATOR = { kind: "operator", name: "test" } as const;
const REVIEWED = registrationSettings("reviewed", { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 1000 });
const REDIRECT = "https://notes.example.test/callback";
const HELD = ["oidcConsents", "oidcGrants", "oidcRefreshTokens", "oidcAccessTokens", "oidcCodes", "oidcSignIns"];

describe("a removed self-registered client", () => {
  const deps = testDeps({ config: testConfig({ oidcRegistration: REVIEWED }) });
  const app = appFor(oidc, deps);
  const pastCache = () => deps.clock.advance(CLIENT_CACHE_TTL_MS + SECOND);
  const token = (form: Record<string, string>) => request(app).post("/auth/oidc/token").type("form").send(form);
  const held = async (clientId: string) =>
    Promise.all(HELD.map(async (c) => (await firestore().collection(c).where("clientId", "==", clientId).get()).size));

  /** Registered, approved, and signed in to by a person who let it act while away: its tokens. */
  async function inUse() {
    const clientId = await registeredPublicClient(app, REDIRECT);
    await reviewClient(deps, clientId, "approved", OPERATOR);
    pastCache();
    const { account, person } = await accountWithPerson({ name: "Ada" });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const verifier = randomBytes(32).toString("base64url");
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid offline_access",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    });
    const code = (await authorizedWithConsent(app, cookie, query)).searchParams.get("code") as string;
    const tokens = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(tokens.status).toBe(200);
    return { clientId, tokens: tokens.body as { access_token: string; refresh_token: string } };
  }

  it("is unknown everywhere, and leaves no consent, grant, token or code behind", async () => {
    const { clientId, tokens } = await inUse();
    expect((await held(clientId)).every((n, i) => n > 0 || HELD[i] === "oidcCodes")).toBe(true);

    const { removed } = await removeClient(deps, clientId);
    expect(removed).toMatchObject({ consents: 1, grants: 1, refreshTokens: 1, accessTokens: 1 });
    expect(await clients.findById(firestore(), clientId)).toBeNull();
    expect(await held(clientId)).toEqual(HELD.map(() => 0));
    pastCache();
    const refreshed = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(401);
    const userinfo = await request(app)
      .get("/auth/oidc/userinfo")
      .set("Authorization", `Bearer ${tokens.access_token}`);
    expect(userinfo.status).toBe(401);
  });

  it("leaves a client registered again under its id nothing of the one removed", async () => {
    const { clientId, tokens } = await inUse();
    const before = (await clients.findById(firestore(), clientId)) as NonNullable<
      Awaited<ReturnType<typeof clients.findById>>
    >;
    await removeClient(deps, clientId);
    // The same id again, approved at once (a metadata document's URL comes back as itself).
    await clients.create(firestore(), { ...before, createdAt: deps.clock.now() });
    pastCache();
    const refreshed = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe("invalid_grant");
  });

  it("is refused for the operator's own client, which stays as it was", async () => {
    const clientId = unique("operators");
    await registerClient(deps, { clientId, clientSecret: "s".repeat(43), name: "Ours", redirectUris: [REDIRECT] });
    const refused = removeClient(deps, clientId);
    await expect(refused).rejects.toThrow(AppError);
    await expect(refused).rejects.toMatchObject({ code: "client_not_self_registered" });
    await expect(refused).rejects.toThrow(/disable it instead/);
    expect(await clients.findById(firestore(), clientId)).not.toBeNull();
  });
});
