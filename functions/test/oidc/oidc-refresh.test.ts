/**
 * Refresh tokens and revocation at the OpenID Connect provider, through a relying party built on
 * oauth4webapi: a client registered for refresh tokens gets one for a sign-in that asks for
 * offline_access, trades it for the next at each use, and loses its whole grant when a rotated
 * token comes back; revocation (RFC 7009) ends a grant or an access token; a person who may no
 * longer sign in, or a grant past its lifetime, refreshes nothing.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createHash, randomBytes } from "node:crypto";
import * as oauth from "oauth4webapi";
import request from "supertest";
import { DAY } from "../../src/clock";
import { registerClient, showClient } from "../../src/core/oidc/clients";
import { GRANT_LIFETIME_MS } from "../../src/core/oidc/grants";
import { sha256 } from "../../src/core/secrets";
import * as oidc from "../../src/routes/oidc/oidc";
import { sweepPerson } from "../../src/store/personal-data";
import { appFor, firestore, SERVICE_URL, testDeps, unique } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";

const db = firestore();
const REDIRECT = "https://app.example.test/callback";
const insecure = { [oauth.allowInsecureRequests]: true };

describe("refresh tokens and revocation", () => {
  const deps = testDeps();
  const app = appFor(oidc, deps);
  let server: Server;
  let as: oauth.AuthorizationServer;
  /** A client registered for refresh tokens, and one that is not. */
  let offline: { client: oauth.Client; secret: string };
  let online: { client: oauth.Client; secret: string };

  async function registered(refreshTokens: boolean) {
    const secret = randomBytes(32).toString("base64url");
    const clientId = unique(refreshTokens ? "offline" : "online");
    await registerClient(deps, {
      clientId,
      clientSecret: secret,
      name: "Sync app",
      redirectUris: [REDIRECT],
      grantTypes: refreshTokens ? ["authorization_code", "refresh_token"] : ["authorization_code"],
    });
    return { client: { client_id: clientId }, secret };
  }

  beforeAll(async () => {
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The issuer is the service's (what the ID tokens and the `iss` parameter say); its endpoints
    // are this test's own listener.
    as = {
      issuer: SERVICE_URL,
      token_endpoint: `${local}/auth/oidc/token`,
      revocation_endpoint: `${local}/auth/oidc/revoke`,
      introspection_endpoint: `${local}/auth/oidc/introspect`,
      userinfo_endpoint: `${local}/auth/oidc/userinfo`,
    };
    offline = await registered(true);
    online = await registered(false);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const auth = (c: { secret: string }) => oauth.ClientSecretBasic(c.secret);

  /** A person signed in, sent through the authorise step by `c`; the code flow's tokens, as the relying party keeps them. */
  async function signIn(c = offline, scope = "openid email offline_access") {
    const { account, person } = await accountWithPerson({ name: "Ada" });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const query = new URLSearchParams({
      client_id: c.client.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope,
      state: "s1",
      nonce: "n1",
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    const res = await request(app).get(`/auth/oidc/authorize?${query}`).set("Cookie", cookie);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location as string);
    const params = oauth.validateAuthResponse(as, c.client, location, "s1");
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      c.client,
      auth(c),
      params,
      REDIRECT,
      verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, c.client, response, {
      expectedNonce: "n1",
      requireIdToken: true,
    });
    return { tokens, person, account, code: location.searchParams.get("code") as string, verifier };
  }

  async function refresh(token: string, c = offline, parameters?: Record<string, string>) {
    const response = await oauth.refreshTokenGrantRequest(as, c.client, auth(c), token, {
      ...insecure,
      ...(parameters ? { additionalParameters: parameters } : {}),
    });
    return oauth.processRefreshTokenResponse(as, c.client, response);
  }

  /** What the token endpoint says to `token` now, as an OAuth error code; null when it issues tokens. */
  async function refusal(token: string, c = offline): Promise<string | null> {
    try {
      await refresh(token, c);
      return null;
    } catch (err) {
      if (err instanceof oauth.ResponseBodyError) return err.error;
      throw err;
    }
  }

  const userinfoStatus = async (accessToken: string) =>
    (await request(app).get("/auth/oidc/userinfo").set("Authorization", `Bearer ${accessToken}`)).status;

  async function revoke(token: string, c = offline) {
    const response = await oauth.revocationRequest(as, c.client, auth(c), token, insecure);
    return response;
  }

  /** What introspection (RFC 7662) tells client `c` of `token`, as the relying party reads it. */
  async function introspected(token: string, c = offline) {
    const response = await oauth.introspectionRequest(as, c.client, auth(c), token, insecure);
    expect(response.headers.get("cache-control")).toBe("no-store");
    return oauth.processIntrospectionResponse(as, c.client, response);
  }

  it("lists refresh_token, offline_access, and the revocation and introspection endpoints in discovery", async () => {
    const res = await request(app).get("/.well-known/openid-configuration");
    expect(res.body).toMatchObject({
      grant_types_supported: ["authorization_code", "refresh_token"],
      revocation_endpoint: `${SERVICE_URL}/auth/oidc/revoke`,
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      introspection_endpoint: `${SERVICE_URL}/auth/oidc/introspect`,
      introspection_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    });
    expect(res.body.scopes_supported).toContain("offline_access");
  });

  it("trades a refresh token for the next at each use, and refuses each one used", async () => {
    const { tokens, person } = await signIn();
    expect(tokens.scope).toBe("openid email offline_access");
    const first = tokens.refresh_token as string;
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const firstClaims = oauth.getValidatedIdTokenClaims(tokens) as oauth.IDToken;

    const second = await refresh(first);
    const third = await refresh(second.refresh_token as string);
    expect(new Set([first, second.refresh_token, third.refresh_token]).size).toBe(3);
    // The refreshed ID token: the same person and sign-in (auth_time), no nonce, the email still granted.
    const claims = oauth.getValidatedIdTokenClaims(third) as oauth.IDToken;
    expect(claims).toMatchObject({ sub: person.id, aud: offline.client.client_id, auth_time: firstClaims.auth_time });
    expect(claims.nonce).toBeUndefined();
    expect(claims.email).toBe(person.emails[0]);
    // Only the newest access token reads userinfo; the ones before it ended as it was issued.
    expect(await userinfoStatus(third.access_token)).toBe(200);
    expect(await userinfoStatus(second.access_token)).toBe(401);
    expect(await userinfoStatus(tokens.access_token)).toBe(401);
    // Stored keyed-hashed: nothing of the grant names the token, nor its plain digest.
    const stored = await db.collection("oidcRefreshTokens").where("personId", "==", person.id).get();
    expect(stored.size).toBe(3);
    const ids = stored.docs.map((d) => d.id);
    expect(ids).not.toContain(sha256(third.refresh_token as string));
    expect(JSON.stringify(stored.docs.map((d) => d.data()))).not.toContain(third.refresh_token as string);
  });

  it("introspects a client's own tokens: active while good, and inactive once rotated out or revoked", async () => {
    const { tokens, person } = await signIn();
    const now = Math.floor(deps.clock.now().getTime() / 1000);
    const mine = {
      client_id: offline.client.client_id,
      aud: offline.client.client_id,
      sub: person.id,
      iss: SERVICE_URL,
    };
    expect(await introspected(tokens.access_token)).toEqual({
      active: true,
      token_type: "Bearer",
      scope: "openid email offline_access",
      ...mine,
      iat: now,
      exp: now + 3600,
    });
    expect(await introspected(tokens.refresh_token as string)).toEqual({
      active: true,
      token_type: "refresh_token",
      scope: "openid email offline_access",
      ...mine,
      iat: now,
      exp: now + GRANT_LIFETIME_MS / 1000,
    });
    // Another client learns nothing of them, nor does anyone of a token that never was.
    expect(await introspected(tokens.access_token, online)).toEqual({ active: false });
    expect(await introspected(tokens.refresh_token as string, online)).toEqual({ active: false });
    expect(await introspected(randomBytes(32).toString("base64url"))).toEqual({ active: false });

    const next = await refresh(tokens.refresh_token as string);
    expect(await introspected(tokens.refresh_token as string)).toEqual({ active: false });
    expect(await introspected(tokens.access_token)).toEqual({ active: false });
    expect(await introspected(next.access_token)).toMatchObject({ active: true, sub: person.id });
    expect(await introspected(next.refresh_token as string)).toMatchObject({ active: true, sub: person.id });
    expect((await revoke(next.refresh_token as string)).status).toBe(200);
    expect(await introspected(next.refresh_token as string)).toEqual({ active: false });
    expect(await introspected(next.access_token)).toEqual({ active: false });
  });

  it("answers introspection only to an authenticated client, and only for a token given", async () => {
    const { tokens } = await signIn();
    const wrong = await request(app)
      .post("/auth/oidc/introspect")
      .type("form")
      .auth(offline.client.client_id, "not-the-secret")
      .send({ token: tokens.access_token });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: "invalid_client" });
    const none = await request(app)
      .post("/auth/oidc/introspect")
      .type("form")
      .auth(offline.client.client_id, offline.secret)
      .send({});
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ error: "invalid_request" });
  });

  it("ends the whole grant when a rotated token comes back: the newest token and access token fail too", async () => {
    const { tokens } = await signIn();
    const next = await refresh(tokens.refresh_token as string);
    expect(await refusal(tokens.refresh_token as string)).toBe("invalid_grant");
    expect(await refusal(next.refresh_token as string)).toBe("invalid_grant");
    expect(await userinfoStatus(next.access_token)).toBe(401);
  });

  it("lets one of ten refreshes with one token at once win, and decides every other as a reuse", async () => {
    const { tokens, person } = await signIn();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        request(app)
          .post("/auth/oidc/token")
          .type("form")
          .auth(offline.client.client_id, offline.secret)
          .send({ grant_type: "refresh_token", refresh_token: tokens.refresh_token as string }),
      ),
    );
    // On one instance they are decided in turn: none is told to try again.
    expect(answers.map((a) => (a.status === 200 ? "issued" : `${a.status} ${a.body.error}`)).sort()).toEqual([
      "400 invalid_grant",
      "400 invalid_grant",
      "400 invalid_grant",
      "400 invalid_grant",
      "400 invalid_grant",
      "400 invalid_grant",
      "400 invalid_grant",
      "400 invalid_grant",
      "400 invalid_grant",
      "issued",
    ]);
    const winner = answers.find((a) => a.status === 200)?.body as { refresh_token: string };
    expect(await refusal(winner.refresh_token)).toBe("invalid_grant");
    const [grant] = (await db.collection("oidcGrants").where("personId", "==", person.id).get()).docs;
    expect(grant?.get("endedBecause")).toBe("reuse");
  });

  it("revokes a refresh token's grant (RFC 7009), answers 200 for a token it does not know, and refuses another client's", async () => {
    const { tokens } = await signIn();
    const other = await signIn();
    // Another client may not end this grant: refused, and the token still works.
    const theirs = await revoke(other.tokens.refresh_token as string, online);
    expect(theirs.status).toBe(400);
    expect(await theirs.json()).toMatchObject({ error: "invalid_request" });
    const kept = await refresh(other.tokens.refresh_token as string);

    await oauth.processRevocationResponse(await revoke(tokens.refresh_token as string));
    expect(await refusal(tokens.refresh_token as string)).toBe("invalid_grant");
    expect(await userinfoStatus(tokens.access_token)).toBe(401);
    await oauth.processRevocationResponse(await revoke(tokens.refresh_token as string));
    await oauth.processRevocationResponse(await revoke(randomBytes(32).toString("base64url")));

    // An access token is revoked alone: its grant goes on.
    await oauth.processRevocationResponse(await revoke(kept.access_token));
    expect(await userinfoStatus(kept.access_token)).toBe(401);
    expect(await refusal(kept.refresh_token as string)).toBeNull();
  });

  it("refuses a revocation without client authentication, or without a token", async () => {
    const anonymous = await request(app).post("/auth/oidc/revoke").type("form").send({ token: "x" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ error: "invalid_client" });
    const empty = await request(app)
      .post("/auth/oidc/revoke")
      .type("form")
      .send({ client_id: offline.client.client_id, client_secret: offline.secret });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ error: "invalid_request" });
  });

  it("refreshes nothing once the person is rejected, and ends the grant", async () => {
    const { tokens, person } = await signIn();
    await db.collection("people").doc(person.id).update({ status: "rejected" });
    expect(await refusal(tokens.refresh_token as string)).toBe("invalid_grant");
    await db.collection("people").doc(person.id).update({ status: "approved" });
    // Approved again, the grant stays ended: the person signs in to the app afresh.
    expect(await refusal(tokens.refresh_token as string)).toBe("invalid_grant");
  });

  it("refreshes until the grant's lifetime from the sign-in ends, and not after", async () => {
    const clock = deps.clock;
    const started = clock.now();
    const { tokens } = await signIn();
    clock.advance(GRANT_LIFETIME_MS - DAY);
    const response = await oauth.refreshTokenGrantRequest(
      as,
      offline.client,
      auth(offline),
      tokens.refresh_token as string,
      insecure,
    );
    // Read raw: the ID token's iat is a month in the relying party's future.
    const body = (await response.json()) as { refresh_token: string };
    expect(response.status).toBe(200);
    clock.advance(DAY);
    expect(await refusal(body.refresh_token)).toBe("invalid_grant");
    clock.set(started);
  });

  it("narrows the scope of a refreshed access token when asked, and never widens it", async () => {
    const { tokens } = await signIn(offline, "openid offline_access");
    const narrow = await refresh(tokens.refresh_token as string, offline, { scope: "openid" });
    expect(narrow.scope).toBe("openid");
    const wide = await oauth.refreshTokenGrantRequest(
      as,
      offline.client,
      auth(offline),
      narrow.refresh_token as string,
      {
        ...insecure,
        additionalParameters: { scope: "openid email" },
      },
    );
    expect(wide.status).toBe(400);
    expect(await wide.json()).toMatchObject({ error: "invalid_scope" });
    // A refusal of the scope asked spends nothing: the token still works.
    expect(await refusal(narrow.refresh_token as string)).toBeNull();
  });

  it("ends the grant a code began when the code is presented again", async () => {
    const { tokens, code, verifier } = await signIn();
    const again = await request(app)
      .post("/auth/oidc/token")
      .type("form")
      .auth(offline.client.client_id, offline.secret)
      .send({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(again.body).toMatchObject({ error: "invalid_grant" });
    expect(await refusal(tokens.refresh_token as string)).toBe("invalid_grant");
  });

  it("refuses to register a client for a grant type the token endpoint does not take, and registers nothing", async () => {
    const clientId = unique("password");
    const registration = { clientId, clientSecret: "s".repeat(43), name: "Password app", redirectUris: [REDIRECT] };
    await expect(
      registerClient(deps, { ...registration, grantTypes: ["authorization_code", "password"] }),
    ).rejects.toMatchObject({
      code: "client_grant_type_unknown",
      detail: 'The token endpoint takes no grant type "password": it takes authorization_code and refresh_token',
    });
    expect(await showClient(deps, clientId)).toBeNull();
  });

  it("gives a client not registered for refresh tokens none: offline_access is passed over, and the grant type refused", async () => {
    const { tokens } = await signIn(online);
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.scope).toBe("openid email");
    const res = await request(app)
      .post("/auth/oidc/token")
      .type("form")
      .auth(online.client.client_id, online.secret)
      .send({ grant_type: "refresh_token", refresh_token: "anything" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: "unsupported_grant_type",
      error_description: "Only grant_type authorization_code is supported",
    });
  });

  it("refuses a refresh token to any client but its own, and leaves it working for its own", async () => {
    const { tokens } = await signIn();
    const thief = await registered(true);
    expect(await refusal(tokens.refresh_token as string, thief)).toBe("invalid_grant");
    expect(await refusal(tokens.refresh_token as string)).toBeNull();
  });

  it("keeps nothing of a person's grants once the erasure's sweep has run, and refreshes nothing", async () => {
    const { tokens, person } = await signIn();
    const latest = await refresh(tokens.refresh_token as string);
    const held = async () =>
      Promise.all(
        ["oidcGrants", "oidcRefreshTokens"].map(
          async (c) => (await db.collection(c).where("personId", "==", person.id).get()).size,
        ),
      );
    expect(await held()).toEqual([1, 2]);
    await sweepPerson(db, person.id);
    expect(await held()).toEqual([0, 0]);
    expect(await refusal(latest.refresh_token as string)).toBe("invalid_grant");
  });

  it("decides concurrent refreshes of different grants each on its own", async () => {
    const signedIn = await Promise.all(Array.from({ length: 5 }, () => signIn()));
    const refreshed = await Promise.all(signedIn.map((g) => refresh(g.tokens.refresh_token as string)));
    expect(new Set(refreshed.map((r) => r.refresh_token)).size).toBe(5);
    for (const r of refreshed) expect(await userinfoStatus(r.access_token)).toBe(200);
  });
});
