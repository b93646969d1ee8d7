/** The OpenID Connect provider under /auth/oidc/: authorization code with PKCE, token, userinfo. */
import { createHash, randomBytes } from "node:crypto";
import { createLocalJWKSet, jwtVerify } from "jose";
import request from "supertest";
import { HOUR, SECOND } from "../../src/clock";
import { AUTHORIZATION_CODE_LIFETIME_MS } from "../../src/core/oidc/authorize";
import { ACCESS_TOKEN_LIFETIME_MS } from "../../src/core/oidc/access-tokens";
import { disableClient, registerClient, rotateSecret } from "../../src/core/oidc/clients";
import { PERSON_CACHE_TTL_MS } from "../../src/core/people/person-cache";
import { sha256 } from "../../src/core/secrets";
import * as oidc from "../../src/routes/oidc/oidc";
import { APP_ORIGIN, appFor, firestore, ID_URL, SERVICE_URL, testDeps, unique } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { expectRaced } from "../support/race";

const db = firestore();
const REDIRECT = "https://app.example.test/callback";

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

describe("the OpenID Connect provider", () => {
  const deps = testDeps();
  const app = appFor(oidc, deps);
  let client: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    client = { clientId: unique("client"), clientSecret: randomBytes(32).toString("base64url") };
    await registerClient(deps, { ...client, name: "Test app", redirectUris: [REDIRECT] });
  });

  const basic = (id = client.clientId, secret = client.clientSecret) =>
    `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

  function authorizeQuery(overrides: Record<string, string | undefined> = {}, challenge = pkce().challenge) {
    const params: Record<string, string | undefined> = {
      client_id: client.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid email profile",
      state: "state-1",
      nonce: "nonce-1",
      code_challenge: challenge,
      code_challenge_method: "S256",
      ...overrides,
    };
    return new URLSearchParams(
      Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined),
    ).toString();
  }

  async function signedIn(fields: Parameters<typeof accountWithPerson>[0] = { name: "Ada" }) {
    const { account, person } = await accountWithPerson(fields);
    return { account, person, cookie: await sessionCookieFor(deps, account.uid, person.id) };
  }

  /** Runs the authorise step for a signed-in person; returns the code the client would receive. */
  async function codeFor(cookie: string, verifierPair = pkce(), overrides: Record<string, string | undefined> = {}) {
    const res = await request(app)
      .get(`/auth/oidc/authorize?${authorizeQuery(overrides, verifierPair.challenge)}`)
      .set("Cookie", cookie);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location as string);
    return { code: location.searchParams.get("code") as string, location, verifier: verifierPair.verifier };
  }

  const token = (form: Record<string, string>, auth: string | null = basic()) => {
    const req = request(app).post("/auth/oidc/token").type("form").send(form);
    return auth === null ? req : req.set("Authorization", auth);
  };
  const redeem = (code: string, verifier: string, extra: Record<string, string> = {}) =>
    token({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier, ...extra });

  describe("GET /.well-known/openid-configuration and the keys", () => {
    it("describes the provider, and its keys verify the ID tokens it issues", async () => {
      const res = await request(app).get("/.well-known/openid-configuration");
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        issuer: SERVICE_URL,
        authorization_endpoint: `${SERVICE_URL}/auth/oidc/authorize`,
        token_endpoint: `${SERVICE_URL}/auth/oidc/token`,
        userinfo_endpoint: `${SERVICE_URL}/auth/oidc/userinfo`,
        jwks_uri: `${SERVICE_URL}/auth/oidc/jwks`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        prompt_values_supported: ["none", "login", "consent", "select_account"],
        acr_values_supported: ["phr"],
        request_parameter_supported: false,
        request_uri_parameter_supported: false,
      });
      expect(res.body.claims_supported).toEqual(expect.arrayContaining(["auth_time", "amr", "acr"]));
      const jwks = await request(app).get("/auth/oidc/jwks");
      expect(jwks.body.keys).toHaveLength(1);
      expect(jwks.body.keys[0]).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig", kid: "test-1" });
      expect(JSON.stringify(jwks.body)).not.toMatch(/"d":|"p":|"q":/);
    });

    it("answers any origin, without credentials", async () => {
      const res = await request(app)
        .get("/.well-known/openid-configuration")
        .set("Origin", "https://rp.elsewhere.test");
      expect(res.headers["access-control-allow-origin"]).toBe("*");
      expect(res.headers["access-control-allow-credentials"]).toBeUndefined();
    });
  });

  describe("the authorization code flow", () => {
    it("signs a person in to a client: code, tokens, ID token, userinfo", async () => {
      const { account, person, cookie } = await signedIn();
      const authenticatedAt = Math.floor(deps.clock.now().getTime() / 1000);
      const { code, location, verifier } = await codeFor(cookie);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get("state")).toBe("state-1");
      expect(location.searchParams.get("iss")).toBe(SERVICE_URL);

      const res = await redeem(code, verifier);
      expect(res.status).toBe(200);
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(res.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "openid email profile" });
      const keys = createLocalJWKSet((await request(app).get("/auth/oidc/jwks")).body);
      const { payload, protectedHeader } = await jwtVerify(res.body.id_token, keys, {
        issuer: SERVICE_URL,
        audience: client.clientId,
        currentDate: deps.clock.now(),
      });
      expect(protectedHeader).toMatchObject({ alg: "RS256", typ: "JWT" });
      expect(payload).toMatchObject({
        sub: person.id,
        nonce: "nonce-1",
        auth_time: authenticatedAt,
        email: account.email,
        email_verified: true,
        name: "Ada",
      });

      const info = await request(app)
        .get("/auth/oidc/userinfo")
        .set("Authorization", `Bearer ${res.body.access_token}`);
      expect(info.status).toBe(200);
      expect(info.body).toEqual({ sub: person.id, email: account.email, email_verified: true, name: "Ada" });
    });

    it("says in the ID token how the person signed in (amr), as their session recorded it", async () => {
      const { account, person } = await accountWithPerson({ name: "Ada" });
      const cookie = await sessionCookieFor(deps, account.uid, person.id, ["otp"]);
      const { code, verifier } = await codeFor(cookie);
      const res = await redeem(code, verifier);
      const keys = createLocalJWKSet((await request(app).get("/auth/oidc/jwks")).body);
      const { payload } = await jwtVerify(res.body.id_token, keys, { currentDate: deps.clock.now() });
      expect(payload.amr).toEqual(["otp"]);
      // A session that cannot say how it began gives an ID token without `amr`, never a guess.
      const unknown = await codeFor(await sessionCookieFor(deps, account.uid, person.id));
      const bare = await redeem(unknown.code, unknown.verifier);
      expect(
        (await jwtVerify(bare.body.id_token, keys, { currentDate: deps.clock.now() })).payload.amr,
      ).toBeUndefined();
    });

    it("stores only hashes of codes and access tokens", async () => {
      const { cookie } = await signedIn();
      const { code, verifier } = await codeFor(cookie);
      expect((await db.collection("oidcCodes").doc(sha256(code)).get()).exists).toBe(true);
      const { access_token: accessToken } = (await redeem(code, verifier)).body;
      expect((await db.collection("oidcAccessTokens").doc(sha256(accessToken)).get()).exists).toBe(true);
      expect((await db.collection("oidcAccessTokens").doc(accessToken).get()).exists).toBe(false);
    });

    it("gives only what the scopes grant", async () => {
      const { person, cookie } = await signedIn();
      const { code, verifier } = await codeFor(cookie, pkce(), { scope: "openid" });
      const res = await redeem(code, verifier);
      const info = await request(app)
        .get("/auth/oidc/userinfo")
        .set("Authorization", `Bearer ${res.body.access_token}`);
      expect(info.body).toEqual({ sub: person.id });
    });

    it("accepts the client's credentials in the body as well", async () => {
      const { cookie } = await signedIn();
      const { code, verifier } = await codeFor(cookie);
      const res = await token(
        {
          grant_type: "authorization_code",
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          client_id: client.clientId,
          client_secret: client.clientSecret,
        },
        null,
      );
      expect(res.status).toBe(200);
    });

    it("sends a person who is not signed in to the identity host, to come back to this request", async () => {
      const query = authorizeQuery();
      const res = await request(app).get(`/auth/oidc/authorize?${query}`);
      expect(res.status).toBe(302);
      const location = new URL(res.headers.location as string);
      expect(location.origin).toBe(ID_URL);
      expect(location.searchParams.get("redirect")).toBe(`${ID_URL}/auth/oidc/authorize?${query}`);
    });

    it.each(["pending", "rejected"] as const)(
      "tells the client access_denied for a %s person, and issues no code",
      async (status) => {
        const { cookie } = await signedIn({ status });
        const res = await request(app).get(`/auth/oidc/authorize?${authorizeQuery()}`).set("Cookie", cookie);
        const location = new URL(res.headers.location as string);
        expect(location.searchParams.get("error")).toBe("access_denied");
        expect(location.searchParams.get("state")).toBe("state-1");
        expect(location.searchParams.get("code")).toBeNull();
      },
    );
  });

  describe("GET /auth/oidc/authorize with prompt and max_age", () => {
    const identityHost = (res: request.Response) => {
      expect(res.status).toBe(302);
      const location = new URL(res.headers.location as string);
      expect(location.origin).toBe(ID_URL);
      return { back: location.searchParams.get("redirect"), prompt: location.searchParams.get("prompt") };
    };
    const answer = (res: request.Response) => {
      expect(res.status).toBe(302);
      const location = new URL(res.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      return location.searchParams;
    };
    const authorize = (overrides: Record<string, string | undefined>, cookie?: string) => {
      const req = request(app).get(`/auth/oidc/authorize?${authorizeQuery(overrides)}`);
      return cookie === undefined ? req : req.set("Cookie", cookie);
    };

    it("answers login_required to the client for prompt=none without a session, and shows no page", async () => {
      const params = answer(await authorize({ prompt: "none" }));
      expect(params.get("error")).toBe("login_required");
      expect(params.get("state")).toBe("state-1");
      expect(params.get("iss")).toBe(SERVICE_URL);
      expect(params.get("code")).toBeNull();
    });

    it("issues a code for prompt=none when the person is signed in", async () => {
      const { cookie } = await signedIn();
      expect(answer(await authorize({ prompt: "none" }, cookie)).get("code")).toEqual(expect.any(String));
    });

    it("still tells the client access_denied for prompt=none and a person not approved", async () => {
      const { cookie } = await signedIn({ status: "pending" });
      expect(answer(await authorize({ prompt: "none" }, cookie)).get("error")).toBe("access_denied");
    });

    it("takes a sign-in exactly max_age seconds old, and not one a second older", async () => {
      const { cookie } = await signedIn();
      const start = deps.clock.now();
      try {
        deps.clock.advance(60 * SECOND);
        expect(answer(await authorize({ prompt: "none", max_age: "60" }, cookie)).get("code")).toEqual(
          expect.any(String),
        );
        deps.clock.advance(SECOND);
        const params = answer(await authorize({ prompt: "none", max_age: "60" }, cookie));
        expect(params.get("error")).toBe("login_required");
        expect(params.get("code")).toBeNull();
      } finally {
        deps.clock.set(start);
      }
    });

    it("sends a person whose sign-in is older than max_age to sign in afresh, and back without max_age", async () => {
      const { cookie } = await signedIn();
      const start = deps.clock.now();
      try {
        deps.clock.advance(301 * SECOND);
        const { back, prompt } = identityHost(await authorize({ max_age: "300" }, cookie));
        expect(prompt).toBe("login");
        const returned = new URL(back ?? "");
        expect(`${returned.origin}${returned.pathname}`).toBe(`${ID_URL}/auth/oidc/authorize`);
        expect(returned.searchParams.has("max_age")).toBe(false);
        expect(returned.searchParams.get("nonce")).toBe("nonce-1");
      } finally {
        deps.clock.set(start);
      }
    });

    it("sends a signed-in person to sign in again for prompt=login, and back without the prompt", async () => {
      const { cookie } = await signedIn();
      const { back, prompt } = identityHost(await authorize({ prompt: "login" }, cookie));
      expect(prompt).toBe("login");
      const returned = new URL(back ?? "");
      expect(`${returned.origin}${returned.pathname}`).toBe(`${ID_URL}/auth/oidc/authorize`);
      expect(returned.searchParams.has("prompt")).toBe(false);
      expect(returned.searchParams.get("client_id")).toBe(client.clientId);
      expect(returned.searchParams.get("state")).toBe("state-1");
    });

    it("makes one trip, not two, for a person not signed in who is asked to sign in afresh", async () => {
      const { back, prompt } = identityHost(await authorize({ prompt: "login select_account", max_age: "0" }));
      expect(prompt).toBe("login select_account");
      const returned = new URL(back ?? "");
      expect(returned.searchParams.has("prompt")).toBe(false);
      expect(returned.searchParams.has("max_age")).toBe(false);
    });

    it("needs no page for prompt=consent: the operator's registration of the client stands for it", async () => {
      const { cookie } = await signedIn();
      expect(answer(await authorize({ prompt: "consent" }, cookie)).get("code")).toEqual(expect.any(String));
    });

    it("refuses a prompt given twice, at the client's redirect URI", async () => {
      const res = await request(app).get(`/auth/oidc/authorize?${authorizeQuery({ prompt: "none" })}&prompt=login`);
      expect(answer(res).get("error")).toBe("invalid_request");
    });
  });

  describe("GET /auth/oidc/authorize with acr_values=phr: a phishing-resistant sign-in", () => {
    const authorize = (overrides: Record<string, string | undefined>, cookie: string) =>
      request(app)
        .get(`/auth/oidc/authorize?${authorizeQuery(overrides)}`)
        .set("Cookie", cookie);
    const idTokenOf = async (res: request.Response, verifier: string) => {
      const code = new URL(res.headers.location as string).searchParams.get("code") as string;
      const tokens = await redeem(code, verifier);
      const keys = createLocalJWKSet((await request(app).get("/auth/oidc/jwks")).body);
      return (await jwtVerify(tokens.body.id_token, keys, { currentDate: deps.clock.now() })).payload;
    };

    it("issues a code to a session begun with a passkey, whose ID token says acr phr and the passkey's amr", async () => {
      const { account, person } = await accountWithPerson();
      const cookie = await sessionCookieFor(deps, account.uid, person.id, ["hwk", "user"]);
      const pair = pkce();
      const res = await request(app)
        .get(`/auth/oidc/authorize?${authorizeQuery({ acr_values: "urn:other phr" }, pair.challenge)}`)
        .set("Cookie", cookie);
      expect(new URL(res.headers.location as string).searchParams.get("code")).toEqual(expect.any(String));
      expect(await idTokenOf(res, pair.verifier)).toMatchObject({ acr: "phr", amr: ["hwk", "user"] });
    });

    it("sends a session begun with an email code to step up with a passkey, and back with acr_values kept", async () => {
      const { account, person } = await accountWithPerson();
      const cookie = await sessionCookieFor(deps, account.uid, person.id, ["otp"]);
      const res = await authorize({ acr_values: "phr" }, cookie);
      expect(res.status).toBe(302);
      const page = new URL(res.headers.location as string);
      expect(`${page.origin}${page.pathname}`).toBe(`${ID_URL}/`);
      expect(page.searchParams.get("require")).toBe("passkey");
      expect(page.searchParams.has("prompt")).toBe(false);
      expect(new URL(page.searchParams.get("redirect") as string).searchParams.get("acr_values")).toBe("phr");
    });

    it("tells the client login_required for prompt=none when the session was not a passkey's", async () => {
      const { account, person } = await accountWithPerson();
      const cookie = await sessionCookieFor(deps, account.uid, person.id, ["fed"]);
      const res = await authorize({ acr_values: "phr", prompt: "none" }, cookie);
      expect(new URL(res.headers.location as string).searchParams.get("error")).toBe("login_required");
    });

    it("passes over a class it does not know, and says no acr it was not asked for", async () => {
      const { account, person } = await accountWithPerson();
      const cookie = await sessionCookieFor(deps, account.uid, person.id, ["otp"]);
      const pair = pkce();
      const res = await request(app)
        .get(`/auth/oidc/authorize?${authorizeQuery({ acr_values: "urn:mace:incommon:iap:silver" }, pair.challenge)}`)
        .set("Cookie", cookie);
      expect((await idTokenOf(res, pair.verifier)).acr).toBeUndefined();
    });

    it("refuses acr_values given twice, at the client's redirect URI", async () => {
      const { cookie } = await signedIn();
      const res = await request(app)
        .get(`/auth/oidc/authorize?${authorizeQuery()}&acr_values=phr&acr_values=phr`)
        .set("Cookie", cookie);
      expect(new URL(res.headers.location as string).searchParams.get("error")).toBe("invalid_request");
    });
  });

  describe("GET /auth/oidc/authorize refusals, answered to the caller and never to the redirect URI", () => {
    it.each([
      ["no client_id", { client_id: undefined }, 400],
      ["an unknown client", { client_id: "nobody" }, 400],
      ["a redirect URI not registered", { redirect_uri: "https://evil.test/callback" }, 400],
      ["a registered redirect URI with something added", { redirect_uri: `${REDIRECT}?next=https://evil.test` }, 400],
    ])("refuses %s with an HTML page", async (_name, overrides, status) => {
      const { cookie } = await signedIn();
      const res = await request(app)
        .get(`/auth/oidc/authorize?${authorizeQuery(overrides)}`)
        .set("Cookie", cookie);
      expect(res.status).toBe(status);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.headers.location).toBeUndefined();
    });

    it("names the OAuth error on the page, escaped", async () => {
      const res = await request(app).get(`/auth/oidc/authorize?${authorizeQuery({ client_id: "<script>" })}`);
      expect(res.status).toBe(400);
      expect(res.text).toContain("Unknown client");
      expect(res.text).not.toContain("<script>");
    });

    it("answers a client_id no document can have as an unknown client, on both endpoints", async () => {
      for (const id of ["a/b", "__x__"]) {
        const page = await request(app).get(`/auth/oidc/authorize?${authorizeQuery({ client_id: id })}`);
        expect(page.status).toBe(400);
        expect(page.text).toContain("Unknown client");
        const res = await token({ grant_type: "authorization_code", code: "x", redirect_uri: REDIRECT }, basic(id));
        expect(res.status).toBe(401);
        expect(res.body.error).toBe("invalid_client");
      }
    });

    it("refuses a client_id or redirect_uri given twice with a page", async () => {
      for (const extra of [`&client_id=${client.clientId}`, `&redirect_uri=${encodeURIComponent(REDIRECT)}`]) {
        const res = await request(app).get(`/auth/oidc/authorize?${authorizeQuery()}${extra}`);
        expect(res.status).toBe(400);
        expect(res.headers.location).toBeUndefined();
      }
    });
  });

  describe("GET /auth/oidc/authorize refusals for a known client at its registered URI, sent back to it", () => {
    it.each([
      ["no response_type", { response_type: undefined }, "invalid_request"],
      ["response_type token", { response_type: "token" }, "unsupported_response_type"],
      ["no openid scope", { scope: "email" }, "invalid_request"],
      ["no scope", { scope: undefined }, "invalid_request"],
      ["a scope that is not a scope token", { scope: 'openid "email"' }, "invalid_scope"],
      ["no PKCE", { code_challenge: undefined, code_challenge_method: undefined }, "invalid_request"],
      ["PKCE plain", { code_challenge_method: "plain" }, "invalid_request"],
      ["an unknown prompt", { prompt: "bogus" }, "invalid_request"],
      ["prompt none with another value", { prompt: "none login" }, "invalid_request"],
      ["a negative max_age", { max_age: "-1" }, "invalid_request"],
      ["a max_age that is not whole seconds", { max_age: "1.5" }, "invalid_request"],
      ["a request object", { request: "eyJhbGciOiJub25lIn0.e30." }, "request_not_supported"],
      ["a request_uri", { request_uri: "https://rp.example/request.jwt" }, "request_uri_not_supported"],
    ])("answers %s with error, state and iss at the redirect URI", async (_name, overrides, error) => {
      const { cookie } = await signedIn();
      const res = await request(app)
        .get(`/auth/oidc/authorize?${authorizeQuery(overrides)}`)
        .set("Cookie", cookie);
      expect(res.status).toBe(302);
      const location = new URL(res.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get("error")).toBe(error);
      expect(location.searchParams.get("error_description")).toEqual(expect.any(String));
      expect(location.searchParams.get("state")).toBe("state-1");
      expect(location.searchParams.get("iss")).toBe(SERVICE_URL);
      expect(location.searchParams.get("code")).toBeNull();
    });

    it("answers a repeated parameter with invalid_request, and a repeated state is not echoed", async () => {
      const twice = await request(app).get(`/auth/oidc/authorize?${authorizeQuery()}&nonce=again`);
      const location = new URL(twice.headers.location as string);
      expect(location.searchParams.get("error")).toBe("invalid_request");
      expect(location.searchParams.get("state")).toBe("state-1");
      const states = await request(app).get(`/auth/oidc/authorize?${authorizeQuery()}&state=again`);
      const back = new URL(states.headers.location as string);
      expect(back.searchParams.get("error")).toBe("invalid_request");
      expect(back.searchParams.has("state")).toBe(false);
    });
  });

  describe("POST /auth/oidc/authorize (form)", () => {
    const post = (form: string, cookie?: string) => {
      const req = request(app)
        .post("/auth/oidc/authorize")
        .set("Origin", "https://rp.elsewhere.test")
        .type("form")
        .send(form);
      return cookie === undefined ? req : req.set("Cookie", cookie);
    };

    it("issues a code to a signed-in person, as GET does, whatever page posted it", async () => {
      const { cookie } = await signedIn();
      const pair = pkce();
      const res = await post(authorizeQuery({}, pair.challenge), cookie);
      expect(res.status).toBe(302);
      const location = new URL(res.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get("state")).toBe("state-1");
      const tokens = await redeem(location.searchParams.get("code") as string, pair.verifier);
      expect(tokens.status).toBe(200);
    });

    it("sends a person not signed in to the identity host, to come back by GET with the same parameters", async () => {
      const query = authorizeQuery();
      const res = await post(query);
      const location = new URL(res.headers.location as string);
      expect(location.origin).toBe(ID_URL);
      expect(location.searchParams.get("redirect")).toBe(`${ID_URL}/auth/oidc/authorize?${query}`);
    });

    it("answers errors as GET does: a page for an unknown client, the client's URI for the rest", async () => {
      const page = await post(authorizeQuery({ client_id: "nobody" }));
      expect(page.status).toBe(400);
      expect(page.headers["content-type"]).toMatch(/^text\/html/);
      const back = await post(authorizeQuery({ response_type: "token" }));
      expect(new URL(back.headers.location as string).searchParams.get("error")).toBe("unsupported_response_type");
    });
  });

  describe("cross-origin reads", () => {
    it("gives the authorise endpoint no CORS at all, while token, userinfo, keys and discovery stay open", async () => {
      for (const origin of ["https://rp.elsewhere.test", APP_ORIGIN]) {
        const authorize = await request(app).get(`/auth/oidc/authorize?${authorizeQuery()}`).set("Origin", origin);
        expect(authorize.headers["access-control-allow-origin"]).toBeUndefined();
        const preflight = await request(app)
          .options("/auth/oidc/authorize")
          .set("Origin", origin)
          .set("Access-Control-Request-Method", "POST");
        expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
      }
      for (const path of ["/auth/oidc/jwks", "/.well-known/openid-configuration", "/auth/oidc/userinfo"]) {
        const res = await request(app).get(path).set("Origin", "https://rp.elsewhere.test");
        expect(res.headers["access-control-allow-origin"]).toBe("*");
      }
    });
  });

  describe("POST /auth/oidc/token refusals", () => {
    it("answers invalid_client for an unknown client or a wrong secret, with no-store", async () => {
      for (const auth of [basic("nobody", "x"), basic(client.clientId, "wrong-secret"), null]) {
        const res = await token(
          { grant_type: "authorization_code", code: "c", redirect_uri: REDIRECT, code_verifier: pkce().verifier },
          auth,
        );
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: "invalid_client", error_description: expect.any(String) });
        expect(res.headers["cache-control"]).toBe("no-store");
      }
    });

    it("refuses a caller's wrong secrets after ten in ten minutes, never a right one: a forged address locks no party out", async () => {
      const throttled = { clientId: unique("client"), clientSecret: randomBytes(32).toString("base64url") };
      await registerClient(deps, { ...throttled, name: "Throttled app", redirectUris: [REDIRECT] });
      const from = (caller: string, secret: string, code = "c", verifier = pkce().verifier) =>
        request(app)
          .post("/auth/oidc/token")
          .type("form")
          .set("X-Forwarded-For", caller)
          .set("Authorization", basic(throttled.clientId, secret))
          .send({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier });
      // A direct call to the function writes the address taken as its caller: here, the relying
      // party's own server's.
      const party = "203.0.113.50";
      const statuses = [];
      for (let i = 0; i < 12; i++) statuses.push((await from(party, `wrong-${i}`)).status);
      expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
      const refused = await from(party, "wrong-again");
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: "temporarily_unavailable", error_description: expect.any(String) });
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(600);
      // The party's right secret, from that same address, still gets its tokens.
      const { cookie } = await signedIn();
      const { code, verifier } = await codeFor(cookie, pkce(), { client_id: throttled.clientId });
      const tokens = await from(party, throttled.clientSecret, code, verifier);
      expect(tokens.status).toBe(200);
      expect(tokens.body.access_token).toEqual(expect.any(String));
      // Wrong ones stay refused until the ten minutes are over; attempts meanwhile did not make them longer.
      expect((await from(party, "wrong-later")).status).toBe(429);
      deps.clock.advance(10 * 60 * SECOND);
      expect((await from(party, "wrong-after")).status).toBe(401);
    });

    it("counts 30 concurrent wrong secrets from one caller exactly: never an eleventh 401, and no failure lost", async () => {
      const raced = { clientId: unique("client"), clientSecret: randomBytes(32).toString("base64url") };
      await registerClient(deps, { ...raced, name: "Raced app", redirectUris: [REDIRECT] });
      // The 30 contend for one throttle record, as in production: answered only once decided.
      const racing = appFor(oidc, deps, { deadlineMs: 30_000 });
      const attempt = (i: number) =>
        request(racing)
          .post("/auth/oidc/token")
          .type("form")
          .set("X-Forwarded-For", "198.51.100.88")
          .set("Authorization", basic(raced.clientId, `wrong-${i}`))
          .send({
            grant_type: "authorization_code",
            code: "c",
            redirect_uri: REDIRECT,
            code_verifier: pkce().verifier,
          });
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(i)));
      const failed = answers.filter((a) => a.status === 401).length;
      expect(failed).toBeGreaterThan(0);
      expect(failed).toBeLessThanOrEqual(10);
      // The rest refused: by the throttle, or told to retry where contention outlasted the
      // transaction's attempts (a failure that was then not counted, so never an eleventh 401).
      for (const a of answers.filter((a) => a.status !== 401)) {
        expect([429, 503]).toContain(a.status);
        expect(Number(a.headers["retry-after"])).toBeGreaterThan(0);
      }
      // Every 401 was counted, and nothing else was: one at a time, the caller gets exactly the
      // failures left of its ten, then the refusal.
      const after = [];
      for (let i = 0; i < 11 - failed; i++) after.push((await attempt(100 + i)).status);
      expect(after).toEqual([...Array(10 - failed).fill(401), 429]);
    }, 90_000);

    it("answers unsupported_grant_type for anything but authorization_code", async () => {
      const res = await token({ grant_type: "password", username: "a", password: "b" });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("unsupported_grant_type");
    });

    it("answers invalid_request for a missing parameter or a body that is not a form", async () => {
      const missing = await token({ grant_type: "authorization_code", code: "c", redirect_uri: REDIRECT });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toBe("invalid_request");
      const json = await request(app)
        .post("/auth/oidc/token")
        .set("Authorization", basic())
        .send({ grant_type: "authorization_code" });
      expect(json.status).toBe(415);
      expect(json.body.error).toBe("invalid_request");
    });

    it("answers invalid_grant for an unknown code, a wrong verifier, another redirect URI or another client", async () => {
      const { cookie } = await signedIn();
      const { code, verifier } = await codeFor(cookie);
      expect((await redeem("never-issued", verifier)).body.error).toBe("invalid_grant");
      expect((await redeem(code, pkce().verifier)).body.error).toBe("invalid_grant");
      expect((await redeem(code, verifier, { redirect_uri: "https://app.example.test/other" })).body.error).toBe(
        "invalid_grant",
      );
      const other = { clientId: unique("client"), clientSecret: "other-secret-of-enough-length-0123456789" };
      await registerClient(deps, { ...other, name: "Other", redirectUris: [REDIRECT] });
      expect(
        (await redeem(code, verifier, {}).set("Authorization", basic(other.clientId, other.clientSecret))).body.error,
      ).toBe("invalid_grant");
      // None of those used the code up.
      expect((await redeem(code, verifier)).status).toBe(200);
    });

    it("honours a code until its lifetime ends and not after", async () => {
      const { cookie } = await signedIn();
      const early = await codeFor(cookie);
      const late = await codeFor(cookie);
      deps.clock.advance(AUTHORIZATION_CODE_LIFETIME_MS - SECOND);
      expect((await redeem(early.code, early.verifier)).status).toBe(200);
      deps.clock.advance(SECOND);
      const res = await redeem(late.code, late.verifier);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("invalid_grant");
    });

    it("refuses a code presented again, and revokes the access token it was redeemed for", async () => {
      const { cookie } = await signedIn();
      const { code, verifier } = await codeFor(cookie);
      const first = await redeem(code, verifier);
      const bearer = `Bearer ${first.body.access_token}`;
      expect((await request(app).get("/auth/oidc/userinfo").set("Authorization", bearer)).status).toBe(200);
      // Without the verifier, presenting the used code proves nothing and revokes nothing.
      expect((await redeem(code, pkce().verifier)).body.error).toBe("invalid_grant");
      expect((await request(app).get("/auth/oidc/userinfo").set("Authorization", bearer)).status).toBe(200);
      const again = await redeem(code, verifier);
      expect(again.status).toBe(400);
      expect(again.body.error).toBe("invalid_grant");
      expect((await request(app).get("/auth/oidc/userinfo").set("Authorization", bearer)).status).toBe(401);
    });

    it("lets exactly one of 20 concurrent redemptions of a code win", async () => {
      const { cookie } = await signedIn();
      const { code, verifier } = await codeFor(cookie);
      const answers = await Promise.all(Array.from({ length: 20 }, () => redeem(code, verifier)));
      expectRaced(
        answers,
        (a) => a.status === 200,
        (a) => a.status === 400 && a.body.error === "invalid_grant",
      );
      const stored = (await db.collection("oidcCodes").doc(sha256(code)).get()).data();
      expect(stored?.usedAt).toBeDefined();
      // Every loser was decided after the winner, so each presented a used code: the winner's token is revoked.
      const tokens = await db.collection("oidcAccessTokens").where("personId", "==", stored?.personId).get();
      expect(tokens.size).toBe(0);
    });

    it("decides concurrent redemptions of different codes each on its own, refusals beside successes", async () => {
      const { cookie } = await signedIn();
      const issued = [];
      for (let i = 0; i < 10; i++) issued.push(await codeFor(cookie));
      // Each code twice, once with a wrong verifier (before or after the right one), and an unknown code, all at once.
      const attempts = issued.flatMap(({ code, verifier }, i) => {
        const right = { code, right: true, send: () => redeem(code, verifier) };
        const wrong = { code, right: false, send: () => redeem(code, pkce().verifier) };
        return i % 2 === 0 ? [right, wrong] : [wrong, right];
      });
      attempts.splice(7, 0, {
        code: "never-issued",
        right: false,
        send: () => redeem("never-issued", pkce().verifier),
      });
      const answers = await Promise.all(attempts.map((a) => a.send()));
      attempts.forEach((attempt, i) => {
        expect(answers[i]?.status).toBe(attempt.right ? 200 : 400);
        if (!attempt.right) expect(answers[i]?.body.error).toBe("invalid_grant");
      });
      // Each winner's token is the one its code records, and it works.
      for (const [i, attempt] of attempts.entries()) {
        if (!attempt.right) continue;
        const accessToken = answers[i]?.body.access_token as string;
        expect((await db.collection("oidcCodes").doc(sha256(attempt.code)).get()).get("accessTokenHash")).toBe(
          sha256(accessToken),
        );
        expect(
          (await request(app).get("/auth/oidc/userinfo").set("Authorization", `Bearer ${accessToken}`)).status,
        ).toBe(200);
      }
    });

    it("refuses a code whose person was rejected after it was issued, once the instance's cached person expires", async () => {
      const { person, cookie } = await signedIn();
      const { code, verifier } = await codeFor(cookie);
      await db.collection("people").doc(person.id).update({ status: "rejected" });
      deps.clock.advance(PERSON_CACHE_TTL_MS);
      const res = await redeem(code, verifier);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("invalid_grant");
      // The code is spent, and no access token was ever stored for the person.
      const spent = await db.collection("oidcCodes").doc(sha256(code)).get();
      expect(spent.get("usedAt")).toBeDefined();
      expect(spent.get("accessTokenHash")).toBeNull();
      expect((await db.collection("oidcAccessTokens").where("personId", "==", person.id).get()).size).toBe(0);
    });
  });

  describe("POST /auth/oidc/userinfo", () => {
    it("takes the access token from a form body as well as from the header, and refuses both at once", async () => {
      const { cookie, person } = await signedIn();
      const { code, verifier } = await codeFor(cookie);
      const accessToken = (await redeem(code, verifier)).body.access_token as string;
      const form = await request(app).post("/auth/oidc/userinfo").type("form").send({ access_token: accessToken });
      expect(form.status).toBe(200);
      expect(form.body.sub).toBe(person.id);
      const header = await request(app).post("/auth/oidc/userinfo").set("Authorization", `Bearer ${accessToken}`);
      expect(header.status).toBe(200);
      const both = await request(app)
        .post("/auth/oidc/userinfo")
        .set("Authorization", `Bearer ${accessToken}`)
        .type("form")
        .send({ access_token: accessToken });
      expect(both.status).toBe(400);
      expect(both.body.error).toBe("invalid_request");
      const wrong = await request(app).post("/auth/oidc/userinfo").type("form").send({ access_token: "nope" });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error).toBe("invalid_token");
    });
  });

  describe("GET /auth/oidc/userinfo refusals", () => {
    it("answers 401 invalid_token without a token, for an unknown one, and once it expires", async () => {
      const none = await request(app).get("/auth/oidc/userinfo");
      expect(none.status).toBe(401);
      expect(none.body.error).toBe("invalid_token");
      expect(none.headers["www-authenticate"]).toBe('Bearer error="invalid_token"');
      expect((await request(app).get("/auth/oidc/userinfo").set("Authorization", "Bearer nope")).status).toBe(401);

      const { cookie } = await signedIn();
      const { code, verifier } = await codeFor(cookie);
      const bearer = `Bearer ${(await redeem(code, verifier)).body.access_token}`;
      deps.clock.advance(ACCESS_TOKEN_LIFETIME_MS - SECOND);
      expect((await request(app).get("/auth/oidc/userinfo").set("Authorization", bearer)).status).toBe(200);
      deps.clock.advance(SECOND);
      const expired = await request(app).get("/auth/oidc/userinfo").set("Authorization", bearer);
      expect(expired.status).toBe(401);
      expect(expired.body.error).toBe("invalid_token");
    });
  });

  describe("per-client registration: PKCE policy, disabled clients, rotated secrets", () => {
    async function another(fields: { pkce?: "required" | "optional" } = {}) {
      const registered = { clientId: unique("client"), clientSecret: randomBytes(32).toString("base64url") };
      await registerClient(deps, { ...registered, name: "Another", redirectUris: [REDIRECT], ...fields });
      return { ...registered, auth: basic(registered.clientId, registered.clientSecret) };
    }
    const noPkce = { code_challenge: undefined, code_challenge_method: undefined };
    const form = (code: string, extra: Record<string, string> = {}) => ({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      ...extra,
    });

    it("still refuses a PKCE-required client that sends no challenge", async () => {
      const required = await another();
      const { cookie } = await signedIn();
      const res = await request(app)
        .get(`/auth/oidc/authorize?${authorizeQuery({ client_id: required.clientId, ...noPkce })}`)
        .set("Cookie", cookie);
      expect(new URL(res.headers.location as string).searchParams.get("error")).toBe("invalid_request");
    });

    it("completes the code flow for a PKCE-optional client that sends no challenge and no verifier", async () => {
      const optional = await another({ pkce: "optional" });
      const { cookie } = await signedIn();
      const { code } = await codeFor(cookie, pkce(), { client_id: optional.clientId, ...noPkce });
      expect(code).toEqual(expect.any(String));
      // A verifier for a code issued without a challenge is a downgrade attempt (RFC 9700 §2.1.1).
      expect((await token(form(code, { code_verifier: pkce().verifier }), optional.auth)).body.error).toBe(
        "invalid_grant",
      );
      const res = await token(form(code), optional.auth);
      expect(res.status).toBe(200);
      expect(res.body.id_token).toEqual(expect.any(String));
    });

    it("enforces a challenge a PKCE-optional client did send", async () => {
      const optional = await another({ pkce: "optional" });
      const { cookie } = await signedIn();
      const { code, verifier } = await codeFor(cookie, pkce(), { client_id: optional.clientId });
      expect((await token(form(code), optional.auth)).body.error).toBe("invalid_grant");
      expect((await token(form(code, { code_verifier: pkce().verifier }), optional.auth)).body.error).toBe(
        "invalid_grant",
      );
      expect((await token(form(code, { code_verifier: verifier }), optional.auth)).status).toBe(200);
    });

    it("treats a disabled client as unknown at authorise and at token", async () => {
      const disabled = await another();
      const { cookie } = await signedIn();
      const { code, verifier } = await codeFor(cookie, pkce(), { client_id: disabled.clientId });
      await disableClient(deps, disabled.clientId);
      deps.clients.evict(disabled.clientId);
      const page = await request(app)
        .get(`/auth/oidc/authorize?${authorizeQuery({ client_id: disabled.clientId })}`)
        .set("Cookie", cookie);
      expect(page.status).toBe(400);
      expect(page.headers.location).toBeUndefined();
      const res = await token(form(code, { code_verifier: verifier }), disabled.auth);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe("invalid_client");
    });

    it("accepts the old secret beside the new one until the rotation's overlap ends", async () => {
      const rotated = await another();
      const { clientSecret } = await rotateSecret(deps, rotated.clientId, 2 * HOUR);
      deps.clients.evict(rotated.clientId);
      const unknownCode = (auth: string) => token(form("never-issued", { code_verifier: pkce().verifier }), auth);
      // A known client with a good secret gets as far as the code: invalid_grant, not invalid_client.
      expect((await unknownCode(rotated.auth)).body.error).toBe("invalid_grant");
      expect((await unknownCode(basic(rotated.clientId, clientSecret))).body.error).toBe("invalid_grant");
      deps.clock.advance(2 * HOUR);
      deps.clients.evict(rotated.clientId);
      expect((await unknownCode(rotated.auth)).body.error).toBe("invalid_client");
      expect((await unknownCode(basic(rotated.clientId, clientSecret))).body.error).toBe("invalid_grant");
    });

    it("answers an unknown client exactly as a known one with a wrong secret", async () => {
      const known = await another();
      const attempt = (auth: string) => token(form("c", { code_verifier: pkce().verifier }), auth);
      const unknown = await attempt(basic(unique("nobody"), known.clientSecret));
      const wrong = await attempt(basic(known.clientId, randomBytes(32).toString("base64url")));
      expect(unknown.status).toBe(401);
      expect(wrong.status).toBe(unknown.status);
      expect(wrong.body).toEqual(unknown.body);
      expect(wrong.headers["www-authenticate"]).toEqual(unknown.headers["www-authenticate"]);
    });
  });
});
