/**
 * Tokens for one site (RFC 8707 resource indicators, RFC 9068 access tokens), through a relying
 * party and a resource server built on oauth4webapi: a sign-in that names a registered resource
 * is given a JWT access token whose audience is that resource alone, which the resource verifies
 * with the provider's keys and every other resource refuses; userinfo takes none of them, nor the
 * bare `jti` inside one, and introspection calls it inactive; a resource that is not registered
 * for the client, or another at the token endpoint or at a refresh, is `invalid_target`; a
 * resource's project gates it as a client's does; a removed or closed resource gives and
 * refreshes nothing more. Also the OAuth 2.0 server metadata (RFC 8414), and the resource's
 * registration rules.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import * as oauth from "oauth4webapi";
import request from "supertest";
import { decodeProtectedHeader, SignJWT } from "jose";
import { registerClient } from "../../src/core/oidc/clients";
import { allowClient, findResource, registerResource, removeResource } from "../../src/core/oidc/resources";
import * as accessTokens from "../../src/store/oidc-tokens";
import { sha256 } from "../../src/core/secrets";
import { ACCESS_TOKEN_FOR_RESOURCE_LIFETIME_MS } from "../../src/core/oidc/access-tokens";
import * as oidc from "../../src/routes/oidc/oidc";
import { appFor, firestore, SERVICE_URL, testDeps, unique } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";

const REDIRECT = "https://app.example.test/callback";
const insecure = { [oauth.allowInsecureRequests]: true };

describe("tokens for one resource", () => {
  const deps = testDeps();
  const app = appFor(oidc, deps);
  let server: Server;
  let as: oauth.AuthorizationServer;
  let local: string;
  let c: { client: oauth.Client; secret: string };
  /** A second client, registered as well, which no resource names. */
  let stranger: { client: oauth.Client; secret: string };
  /** Two resources of the family, each with a scope of its own; this file's own URLs. */
  const notes = `https://notes.example.test/${unique("mcp")}`;
  const calendar = `https://calendar.example.test/${unique("api")}`;

  beforeAll(async () => {
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    as = {
      issuer: SERVICE_URL,
      token_endpoint: `${local}/auth/oidc/token`,
      revocation_endpoint: `${local}/auth/oidc/revoke`,
      introspection_endpoint: `${local}/auth/oidc/introspect`,
      userinfo_endpoint: `${local}/auth/oidc/userinfo`,
      jwks_uri: `${local}/auth/oidc/jwks`,
    };
    const registered = async (name: string) => {
      const secret = randomBytes(32).toString("base64url");
      const clientId = unique("agent");
      await registerClient(deps, {
        clientId,
        clientSecret: secret,
        name,
        redirectUris: [REDIRECT],
        grantTypes: ["authorization_code", "refresh_token"],
      });
      return { client: { client_id: clientId }, secret };
    };
    c = await registered("Notes assistant");
    stranger = await registered("Some other app");
    const clients = [c.client.client_id];
    await registerResource(deps, { url: notes, name: "Notes", scopes: ["notes:read", "notes:write"], clients });
    await registerResource(deps, { url: calendar, name: "Calendar", scopes: ["calendar:read"], clients });
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const auth = () => oauth.ClientSecretBasic(c.secret);

  /** A resource of this file's own for one test, open to the file's client. */
  async function ownResource(fields: { scopes?: string[]; project?: string } = {}) {
    const url = `https://tasks.example.test/${unique("api")}`;
    const { scopes = ["tasks:read"], project = null } = fields;
    await registerResource(deps, { url, name: "Tasks", scopes, clients: [c.client.client_id], project });
    return url;
  }

  /** The authorise step for a signed-in person, with `extra` parameters; where it sends the browser. */
  async function authorized(params: Record<string, string>, projects: string[] = [], client = c) {
    const { account, person } = await accountWithPerson({ name: "Ada", projects });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const verifier = oauth.generateRandomCodeVerifier();
    const query = new URLSearchParams({
      client_id: client.client.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      state: "s1",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      ...params,
    });
    const res = await request(app).get(`/auth/oidc/authorize?${query}`).set("Cookie", cookie);
    expect(res.status).toBe(302);
    return { location: new URL(res.headers.location as string), verifier, person };
  }

  /** A sign-in for `resource` through to its tokens, `resourceAtToken` sent again at the token endpoint. */
  async function signIn(
    resource: string | null,
    scope = "openid notes:read offline_access",
    resourceAtToken = resource,
  ) {
    const { location, verifier, person } = await authorized({ scope, ...(resource ? { resource } : {}) });
    const params = oauth.validateAuthResponse(as, c.client, location, "s1");
    const response = await oauth.authorizationCodeGrantRequest(as, c.client, auth(), params, REDIRECT, verifier, {
      ...insecure,
      ...(resourceAtToken ? { additionalParameters: { resource: resourceAtToken } } : {}),
    });
    const tokens = await oauth.processAuthorizationCodeResponse(as, c.client, response, { requireIdToken: true });
    return { tokens, person };
  }

  /** How the token endpoint answers the redemption of the code at `location`, as status and OAuth error. */
  async function redemptionRefusal(location: URL, verifier: string) {
    const params = oauth.validateAuthResponse(as, c.client, location, "s1");
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      c.client,
      auth(),
      params,
      REDIRECT,
      verifier,
      insecure,
    );
    return { status: response.status, error: ((await response.json()) as { error?: string }).error };
  }

  /** What a resource server at `audience`, verifying offline with the provider's keys, makes of `token`. */
  const verifiedBy = (audience: string, token: string) =>
    oauth.validateJwtAccessToken(
      as,
      new Request(`${audience}/tools`, { headers: { authorization: `Bearer ${token}` } }),
      audience,
      insecure,
    );

  const userinfoStatus = async (token: string) =>
    (await request(app).get("/auth/oidc/userinfo").set("Authorization", `Bearer ${token}`)).status;

  async function introspected(token: string) {
    const response = await oauth.introspectionRequest(as, c.client, auth(), token, insecure);
    return oauth.processIntrospectionResponse(as, c.client, response);
  }

  /** The token endpoint's OAuth error for a refresh of `token` with `parameters`; null when it issues. */
  async function refreshRefusal(token: string, parameters?: Record<string, string>): Promise<string | null> {
    try {
      const response = await oauth.refreshTokenGrantRequest(as, c.client, auth(), token, {
        ...insecure,
        ...(parameters ? { additionalParameters: parameters } : {}),
      });
      await oauth.processRefreshTokenResponse(as, c.client, response);
      return null;
    } catch (err) {
      if (err instanceof oauth.ResponseBodyError) return err.error;
      throw err;
    }
  }

  it("publishes the OAuth 2.0 server metadata, the discovery document's own", async () => {
    const [metadata, openid] = await Promise.all([
      // An agent's page or tool on any origin may read it, without credentials.
      request(app).get("/.well-known/oauth-authorization-server").set("Origin", "https://agent.example.test"),
      request(app).get("/.well-known/openid-configuration"),
    ]);
    expect(metadata.status).toBe(200);
    expect(metadata.headers["access-control-allow-origin"]).toBe("*");
    expect(metadata.body).toEqual(openid.body);
    expect(metadata.body).toMatchObject({
      issuer: SERVICE_URL,
      token_endpoint: `${SERVICE_URL}/auth/oidc/token`,
      code_challenge_methods_supported: ["S256"],
    });
  });

  it("gives a sign-in for a resource a JWT for that resource alone, with the scopes it defines", async () => {
    const { tokens, person } = await signIn(notes, "openid notes:read calendar:read made:up offline_access");
    expect(tokens.expires_in).toBe(ACCESS_TOKEN_FOR_RESOURCE_LIFETIME_MS / 1000);
    // The scopes of another resource, and made-up ones, are passed over as unknown scopes are.
    expect(tokens.scope).toBe("openid notes:read offline_access");
    const claims = await verifiedBy(notes, tokens.access_token);
    expect(claims).toMatchObject({
      iss: SERVICE_URL,
      aud: notes,
      sub: person.id,
      client_id: c.client.client_id,
      scope: "openid notes:read offline_access",
    });
    expect(claims.exp - claims.iat).toBe(ACCESS_TOKEN_FOR_RESOURCE_LIFETIME_MS / 1000);
    // Every other resource refuses it: its audience is not theirs.
    await expect(verifiedBy(calendar, tokens.access_token)).rejects.toThrow();
  });

  it("keeps a token for a resource from userinfo, and the jti inside it from passing as a token", async () => {
    const { tokens } = await signIn(notes);
    expect(await userinfoStatus(tokens.access_token)).toBe(401);
    const { jti } = await verifiedBy(notes, tokens.access_token);
    expect(await userinfoStatus(jti as string)).toBe(401);
    expect(await introspected(jti as string)).toEqual({ active: false });
    // Nor is the client's own API, introspecting it, told that another site's token is good.
    expect(await introspected(tokens.access_token)).toEqual({ active: false });
    // A sign-in that named no resource still gets the provider's own token, which userinfo takes.
    const own = await signIn(null, "openid email");
    expect(own.tokens.access_token.split(".")).toHaveLength(1);
    expect(await userinfoStatus(own.tokens.access_token)).toBe(200);
  });

  it("knows no JWT it did not sign, however its claims are made", async () => {
    const { tokens } = await signIn(notes);
    const claims = await verifiedBy(notes, tokens.access_token);
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const header = decodeProtectedHeader(tokens.access_token);
    const forged = await new SignJWT({ ...claims })
      .setProtectedHeader({ ...header, alg: "RS256", typ: "at+jwt" })
      .sign(privateKey);
    expect(await introspected(forged)).toEqual({ active: false });
    expect(await userinfoStatus(forged)).toBe(401);
  });

  it("refuses a resource not registered, not exactly, or not for this client, and issues no code", async () => {
    for (const resource of [`${notes}/elsewhere`, `${notes}/`, notes.toUpperCase(), ""]) {
      const refused = await authorized({ scope: "openid", resource });
      expect([resource, refused.location.searchParams.get("error")]).toEqual([resource, "invalid_target"]);
      expect(refused.location.searchParams.get("code")).toBeNull();
    }
    const other = await authorized({ scope: "openid", resource: notes }, [], stranger);
    expect(other.location.searchParams.get("error")).toBe("invalid_target");
    const query = new URLSearchParams({ client_id: c.client.client_id, redirect_uri: REDIRECT, response_type: "code" });
    query.append("resource", notes);
    query.append("resource", calendar);
    const twice = await request(app).get(`/auth/oidc/authorize?${query}`);
    expect(twice.status).toBe(302);
    expect(new URL(twice.headers.location as string).searchParams.get("error")).toBe("invalid_request");
  });

  it("refuses another resource at the token endpoint, without spending the code", async () => {
    const { location, verifier } = await authorized({ scope: "openid notes:read", resource: notes });
    const params = oauth.validateAuthResponse(as, c.client, location, "s1");
    const redeem = (resource: string) =>
      oauth.authorizationCodeGrantRequest(as, c.client, auth(), params, REDIRECT, verifier, {
        ...insecure,
        additionalParameters: { resource },
      });
    const other = await redeem(calendar);
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: string }).error).toBe("invalid_target");
    const tokens = await oauth.processAuthorizationCodeResponse(as, c.client, await redeem(notes));
    expect((await verifiedBy(notes, tokens.access_token)).aud).toBe(notes);
  });

  it("lets in only a person who holds the resource's project", async () => {
    const url = await ownResource({ project: "tasks" });
    const without = await authorized({ scope: "openid tasks:read", resource: url });
    expect(without.location.searchParams.get("error")).toBe("access_denied");
    const granted = await authorized({ scope: "openid tasks:read", resource: url }, ["tasks"]);
    expect(granted.location.searchParams.get("code")).toEqual(expect.any(String));
  });

  it("gives nothing for a resource removed, or closed to the client, between the sign-in and the code's redemption", async () => {
    for (const close of [
      (url: string) => removeResource(deps, url),
      (url: string) => allowClient(deps, url, c.client.client_id, false),
    ]) {
      const url = await ownResource();
      const { location, verifier } = await authorized({ scope: "openid tasks:read", resource: url });
      await close(url);
      expect(await redemptionRefusal(location, verifier)).toEqual({ status: 400, error: "invalid_target" });
    }
  });

  it("gives no resource's scopes to a sign-in that named no resource", async () => {
    const { tokens } = await signIn(null, "openid notes:read");
    expect(tokens.scope).toBe("openid");
  });

  it("refreshes a grant for its resource only, within its scopes, and a removed resource's not at all", async () => {
    const url = await ownResource({ scopes: ["tasks:read", "tasks:write"] });
    const { tokens } = await signIn(url, "openid tasks:read offline_access");
    const first = tokens.refresh_token as string;
    expect(await refreshRefusal(first, { resource: notes })).toBe("invalid_target");
    expect(await refreshRefusal(first, { scope: "openid tasks:write" })).toBe("invalid_scope");
    const response = await oauth.refreshTokenGrantRequest(as, c.client, auth(), first, insecure);
    const refreshed = await oauth.processRefreshTokenResponse(as, c.client, response);
    expect(await verifiedBy(url, refreshed.access_token)).toMatchObject({
      aud: url,
      scope: "openid tasks:read offline_access",
    });
    await removeResource(deps, url);
    expect(await findResource(deps, url)).toBeNull();
    expect(await refreshRefusal(refreshed.refresh_token as string)).toBe("invalid_target");
  });

  it("ends a grant whose resource is closed to its client, so that opening it again brings it not back", async () => {
    const url = await ownResource();
    const { tokens } = await signIn(url, "openid tasks:read offline_access");
    const token = tokens.refresh_token as string;
    await allowClient(deps, url, c.client.client_id, false);
    expect(await introspected(token)).toEqual({ active: false });
    expect(await refreshRefusal(token)).toBe("invalid_target");
    await allowClient(deps, url, c.client.client_id, true);
    expect(await refreshRefusal(token)).toBe("invalid_grant");
    expect(await introspected(token)).toEqual({ active: false });
  });

  it("ends a grant whose resource was removed and registered afresh, with fewer scopes", async () => {
    const url = await ownResource({ scopes: ["tasks:read", "tasks:write"] });
    const { tokens } = await signIn(url, "openid tasks:read tasks:write offline_access");
    await removeResource(deps, url);
    deps.clock.advance(1000);
    await registerResource(deps, { url, name: "Tasks", scopes: ["tasks:read"], clients: [c.client.client_id] });
    expect(await refreshRefusal(tokens.refresh_token as string)).toBe("invalid_target");
  });

  it("gives nothing at redemption to a person who lost the resource's project since the sign-in", async () => {
    const url = await ownResource({ project: "tasks" });
    const { location, verifier, person } = await authorized({ scope: "openid tasks:read", resource: url }, ["tasks"]);
    await firestore().doc(`people/${person.id}`).update({ projects: [] });
    deps.personCache.evict(person.id);
    expect(await redemptionRefusal(location, verifier)).toEqual({ status: 400, error: "invalid_grant" });
  });

  it("ends a grant whose rotated refresh token comes back, whatever resource it names", async () => {
    const { tokens } = await signIn(notes);
    const first = tokens.refresh_token as string;
    const response = await oauth.refreshTokenGrantRequest(as, c.client, auth(), first, insecure);
    const next = (await oauth.processRefreshTokenResponse(as, c.client, response)).refresh_token as string;
    expect(await refreshRefusal(first, { resource: calendar })).toBe("invalid_grant");
    expect(await refreshRefusal(next)).toBe("invalid_grant");
  });

  it("refreshes nothing for a person who has lost the resource's project", async () => {
    const url = await ownResource({ project: "tasks" });
    const { location, verifier, person } = await authorized(
      { scope: "openid tasks:read offline_access", resource: url },
      ["tasks"],
    );
    const params = oauth.validateAuthResponse(as, c.client, location, "s1");
    const granted = await oauth.processAuthorizationCodeResponse(
      as,
      c.client,
      await oauth.authorizationCodeGrantRequest(as, c.client, auth(), params, REDIRECT, verifier, insecure),
    );
    await firestore().doc(`people/${person.id}`).update({ projects: [] });
    deps.personCache.evict(person.id);
    expect(await refreshRefusal(granted.refresh_token as string)).toBe("invalid_grant");
  });

  it("revokes a token for a resource by the JWT, and nothing by its bare jti or another client's hand", async () => {
    const { tokens } = await signIn(notes);
    const { jti } = await verifiedBy(notes, tokens.access_token);
    const stored = () => accessTokens.findByHash(firestore(), sha256(jti as string));
    expect((await oauth.revocationRequest(as, c.client, auth(), jti as string, insecure)).status).toBe(200);
    expect(await stored()).not.toBeNull();
    const elsewhere = await oauth.revocationRequest(
      as,
      stranger.client,
      oauth.ClientSecretBasic(stranger.secret),
      tokens.access_token,
      insecure,
    );
    expect(elsewhere.status).toBe(400);
    expect(await stored()).not.toBeNull();
    expect((await oauth.revocationRequest(as, c.client, auth(), tokens.access_token, insecure)).status).toBe(200);
    expect(await stored()).toBeNull();
  });

  it("registers a resource only by an exact https URL, with scopes of its own, once", async () => {
    const url = `https://files.example.test/${unique("api")}`;
    const refusal = (input: { url: string; scopes?: string[]; clients?: string[] }) =>
      registerResource(deps, { name: "Files", scopes: [], clients: [c.client.client_id], ...input }).then(
        () => null,
        (err: { code: string }) => err.code,
      );
    expect(await refusal({ url: `http://files.example.test/${unique("api")}` })).toBe("resource_url_invalid");
    expect(await refusal({ url: `${url}#top` })).toBe("resource_url_invalid");
    expect(await refusal({ url: `${url}?x=1` })).toBe("resource_url_invalid");
    expect(await refusal({ url: "files" })).toBe("resource_url_invalid");
    expect(await refusal({ url, scopes: ["openid"] })).toBe("resource_scope_invalid");
    expect(await refusal({ url, scopes: ['say"hi'] })).toBe("resource_scope_invalid");
    expect(await refusal({ url, clients: [unique("nobody")] })).toBe("client_not_found");
    expect(await refusal({ url, scopes: ["files:read"] })).toBeNull();
    expect(await refusal({ url, scopes: ["files:read"] })).toBe("resource_exists");
    // Exactly as registered: no normalisation makes another string name it.
    expect(await findResource(deps, `${url}/`)).toBeNull();
    expect(await findResource(deps, url.toUpperCase())).toBeNull();
  });
});
