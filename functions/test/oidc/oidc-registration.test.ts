/**
 * POST /auth/oidc/register (RFC 7591), behind the operator's OIDC_REGISTRATION: closed refuses
 * and discovery names no registration endpoint; open registers a client that then signs people in
 * through the code flow, as a public client by its client_id alone (PKCE binding its code) or as a
 * confidential one with a secret that expires; metadata this provider does not take is refused in
 * RFC 7591's words; a self-registered client's loopback redirect URI matches on any port, and
 * nothing else does.
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import { SECOND } from "../../src/clock";
import { registerClient } from "../../src/core/oidc/clients";
import { SELF_SECRET_LIFETIME_MS } from "../../src/core/oidc/registration";
import * as oidc from "../../src/routes/oidc/oidc";
import { appFor, firestore, testConfig, testDeps, unique, registrationSettings } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { authorizedWithConsent } from "../support/consent";
import { recordingLogger } from "../support/email-codes";

const LOTS = { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 1000 };
const REDIRECT = "https://notes.example.test/callback";
const LOOPBACK = "http://127.0.0.1/callback";

describe("POST /auth/oidc/register", () => {
  const deps = testDeps({ config: testConfig({ oidcRegistration: registrationSettings("open", LOTS) }) });
  const app = appFor(oidc, deps);
  const closedApp = appFor(oidc, testDeps());

  const register = (body: unknown, to = app) =>
    request(to)
      .post("/auth/oidc/register")
      .set("Content-Type", "application/json")
      .send(typeof body === "string" ? body : JSON.stringify(body));

  async function registered(body: Record<string, unknown> = {}) {
    const res = await register({ client_name: "Notes", redirect_uris: [REDIRECT, LOOPBACK], ...body });
    expect(res.status).toBe(201);
    return res.body as { client_id: string; client_secret?: string; client_secret_expires_at?: number };
  }

  const authorizeQuery = (clientId: string, redirectUri: string, scope: string, verifier: string) =>
    new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: "code",
      scope,
      state: "s1",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    });

  /** The authorise step for a fresh signed-in person: the answer, and the verifier of its challenge. */
  async function authorise(clientId: string, redirectUri: string, scope = "openid") {
    const { account, person } = await accountWithPerson({ name: "Ada" });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const verifier = randomBytes(32).toString("base64url");
    const query = authorizeQuery(clientId, redirectUri, scope, verifier);
    const res = await request(app).get(`/auth/oidc/authorize?${query}`).set("Cookie", cookie);
    return { res, verifier };
  }

  /** A code for a fresh signed-in person, who lets the client in on its consent page. */
  async function codeFor(clientId: string, redirectUri = REDIRECT, scope = "openid") {
    const { account, person } = await accountWithPerson({ name: "Ada" });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const verifier = randomBytes(32).toString("base64url");
    const location = await authorizedWithConsent(app, cookie, authorizeQuery(clientId, redirectUri, scope, verifier));
    return { code: location.searchParams.get("code") as string, verifier, location };
  }

  const token = (form: Record<string, string>) => request(app).post("/auth/oidc/token").type("form").send(form);

  describe("closed, the default", () => {
    it("refuses every registration with access_denied, before reading the body", async () => {
      for (const body of [{ client_name: "Notes", redirect_uris: [REDIRECT] }, "{not json"]) {
        const res = await register(body, closedApp);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: "access_denied", error_description: expect.any(String) });
        expect(res.headers["cache-control"]).toBe("no-store");
      }
      const stored = await firestore().collection("oidcClients").where("registeredBy", "==", "self").get();
      expect(stored.size).toBe(0);
    });

    it.each(["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"])(
      "%s names no registration endpoint and no public clients",
      async (path) => {
        const res = await request(closedApp).get(path);
        expect(res.body.registration_endpoint).toBeUndefined();
        expect(res.body.token_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post"]);
        expect(res.body.revocation_endpoint_auth_methods_supported).not.toContain("none");
      },
    );
  });

  describe("open", () => {
    it.each(["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"])(
      "%s names the registration endpoint and public clients",
      async (path) => {
        const res = await request(app).get(path);
        expect(res.body.registration_endpoint).toBe("https://example.test/auth/oidc/register");
        expect(res.body.token_endpoint_auth_methods_supported).toEqual([
          "client_secret_basic",
          "client_secret_post",
          "none",
        ]);
        expect(res.body.introspection_endpoint_auth_methods_supported).not.toContain("none");
      },
    );

    it("writes each registration where the operator reads the logs, with no secret", async () => {
      const log = recordingLogger();
      const logged = appFor(oidc, { ...deps, log });
      const res = await register({ client_name: "Logged", redirect_uris: [REDIRECT, LOOPBACK] }, logged);
      expect(res.status).toBe(201);
      expect(log.lines.map((l) => JSON.parse(l))).toContainEqual({
        message: "client registered itself",
        clientId: res.body.client_id,
        review: "approved",
        tokenAuth: "client_secret_basic",
        redirectHosts: ["notes.example.test", "127.0.0.1"],
      });
      expect(log.lines.join("\n")).not.toContain(res.body.client_secret);
    });

    it("registers a public client, answering RFC 7591 §3.2.1 once and storing it as its own word", async () => {
      const res = await register({
        client_name: "Notes",
        redirect_uris: [LOOPBACK],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        client_uri: "https://notes.example.test/",
        software_statement: "ignored",
      });
      expect(res.status).toBe(201);
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(res.body).toEqual({
        client_id: expect.stringMatching(/^dyn_[A-Za-z0-9_-]{20}$/),
        client_id_issued_at: Math.floor(deps.clock.now().getTime() / 1000),
        client_name: "Notes",
        redirect_uris: [LOOPBACK],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        client_uri: "https://notes.example.test/",
      });
      const stored = (await firestore().collection("oidcClients").doc(res.body.client_id).get()).data();
      expect(stored).toMatchObject({
        registeredBy: "self",
        review: "approved",
        pkce: "required",
        refreshTokens: true,
        project: null,
        backchannelLogoutUri: null,
        tokenAuth: "none",
        secrets: [],
      });
    });

    it("a public client signs a person in by its client_id alone, and its refresh token rotates", async () => {
      const c = await registered({
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
      });
      const { code, verifier } = await codeFor(c.client_id, REDIRECT, "openid offline_access");
      const first = await token({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: c.client_id,
      });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ id_token: expect.any(String), refresh_token: expect.any(String) });
      const second = await token({
        grant_type: "refresh_token",
        refresh_token: first.body.refresh_token,
        client_id: c.client_id,
      });
      expect(second.status).toBe(200);
      expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
      const replayed = await token({
        grant_type: "refresh_token",
        refresh_token: first.body.refresh_token,
        client_id: c.client_id,
      });
      expect(replayed.status).toBe(400);
      // Revocation by client_id alone too; the revoked token then refreshes nothing.
      const revoked = await request(app)
        .post("/auth/oidc/revoke")
        .type("form")
        .send({ token: second.body.refresh_token, client_id: c.client_id });
      expect(revoked.status).toBe(200);
      const after = await token({
        grant_type: "refresh_token",
        refresh_token: second.body.refresh_token,
        client_id: c.client_id,
      });
      expect(after.body.error).toBe("invalid_grant");
    });

    it("a public client's code is not redeemed without its verifier, nor with a wrong one", async () => {
      const c = await registered({ token_endpoint_auth_method: "none" });
      const { code, verifier } = await codeFor(c.client_id);
      const base = { grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: c.client_id };
      const without = await token(base);
      expect(without.status).toBe(400);
      const wrong = await token({ ...base, code_verifier: randomBytes(32).toString("base64url") });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe("invalid_grant");
      expect(verifier).toBeTruthy();
    });

    it("a public client that presents a secret is invalid_client, as is its id at introspection", async () => {
      const c = await registered({ token_endpoint_auth_method: "none" });
      const basic = await request(app)
        .post("/auth/oidc/token")
        .type("form")
        .auth(c.client_id, "made-up")
        .send({ grant_type: "authorization_code", code: "x", redirect_uri: REDIRECT });
      expect(basic.status).toBe(401);
      expect(basic.body.error).toBe("invalid_client");
      const post = await token({
        grant_type: "authorization_code",
        code: "x",
        client_id: c.client_id,
        client_secret: "made-up",
      });
      expect(post.status).toBe(401);
      const introspect = await request(app)
        .post("/auth/oidc/introspect")
        .type("form")
        .send({ token: "x", client_id: c.client_id });
      expect(introspect.status).toBe(401);
    });

    it("a confidential client signs a person in with its secret, and not without it", async () => {
      const c = await registered({ token_endpoint_auth_method: "client_secret_post" });
      expect(c.client_secret).toEqual(expect.any(String));
      const stored = (await firestore().collection("oidcClients").doc(c.client_id).get()).data() as {
        secrets: Array<{ hash: string }>;
      };
      // Only the digest is kept.
      expect(stored.secrets[0]?.hash).toBe(
        createHash("sha256")
          .update(c.client_secret as string)
          .digest("hex"),
      );
      const { code, verifier } = await codeFor(c.client_id);
      const form = { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier };
      const anonymous = await token({ ...form, client_id: c.client_id });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error).toBe("invalid_client");
      const good = await token({ ...form, client_id: c.client_id, client_secret: c.client_secret as string });
      expect(good.status).toBe(200);
      expect(good.body.id_token).toEqual(expect.any(String));
    });

    it("an operator's client presenting no secret stays invalid_client", async () => {
      const clientId = unique("operators");
      await registerClient(deps, { clientId, clientSecret: "s".repeat(43), name: "Ours", redirectUris: [REDIRECT] });
      const res = await token({ grant_type: "authorization_code", code: "x", client_id: clientId });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe("invalid_client");
    });

    it("a confidential client's secret expires 180 days after registration", async () => {
      const c = await registered();
      const issued = deps.clock.now().getTime();
      expect(c.client_secret_expires_at).toBe(Math.floor((issued + SELF_SECRET_LIFETIME_MS) / 1000));
      const tryIt = () =>
        request(app)
          .post("/auth/oidc/token")
          .type("form")
          .auth(c.client_id, c.client_secret as string)
          .send({
            grant_type: "authorization_code",
            code: "no-such-code",
            redirect_uri: REDIRECT,
            code_verifier: "x".repeat(43),
          });
      try {
        deps.clock.advance(SELF_SECRET_LIFETIME_MS - SECOND);
        // The secret still holds: the code is what is wrong.
        expect((await tryIt()).body.error).toBe("invalid_grant");
        deps.clock.advance(SECOND);
        const expired = await tryIt();
        expect(expired.status).toBe(401);
        expect(expired.body.error).toBe("invalid_client");
      } finally {
        deps.clock.set(new Date(issued));
      }
    });
  });

  describe("metadata", () => {
    it.each<[string, unknown]>([
      ["no redirect URIs", { client_name: "Notes" }],
      ["http off loopback", { client_name: "Notes", redirect_uris: ["http://notes.example.test/cb"] }],
      ["localhost", { client_name: "Notes", redirect_uris: ["http://localhost:8080/cb"] }],
      ["a fragment", { client_name: "Notes", redirect_uris: ["https://notes.example.test/cb#x"] }],
      ["a private-use scheme", { client_name: "Notes", redirect_uris: ["com.example.notes:/cb"] }],
    ])("refuses %s as invalid_redirect_uri", async (_, body) => {
      const res = await register(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_redirect_uri", error_description: expect.any(String) });
    });

    it.each<[string, unknown]>([
      ["no name", { redirect_uris: [REDIRECT] }],
      ["a name with a newline", { client_name: "Notes\nby the operator", redirect_uris: [REDIRECT] }],
      [
        "an auth method it lacks",
        { client_name: "Notes", redirect_uris: [REDIRECT], token_endpoint_auth_method: "private_key_jwt" },
      ],
      [
        "a grant type it lacks",
        { client_name: "Notes", redirect_uris: [REDIRECT], grant_types: ["client_credentials"] },
      ],
      ["an implicit response type", { client_name: "Notes", redirect_uris: [REDIRECT], response_types: ["token"] }],
      [
        "an http logo",
        { client_name: "Notes", redirect_uris: [REDIRECT], logo_uri: "http://notes.example.test/l.png" },
      ],
      ["malformed JSON", '{"client_name": '],
      ["a JSON array", "[]"],
    ])("refuses %s as invalid_client_metadata", async (_, body) => {
      const res = await register(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_client_metadata", error_description: expect.any(String) });
    });

    it("refuses a body past the app's cap in the OAuth shape, never a 500", async () => {
      const res = await register({ client_name: "Notes", redirect_uris: [REDIRECT], pad: "x".repeat(64 * 1024) });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ error: "invalid_request", error_description: expect.any(String) });
    });
  });

  describe("loopback redirect URIs (RFC 8252 §7.3)", () => {
    it("match a self-registered client's registration on any port", async () => {
      const c = await registered({ token_endpoint_auth_method: "none" });
      const requested = "http://127.0.0.1:53211/callback";
      const { code, verifier, location } = await codeFor(c.client_id, requested);
      expect(location.origin).toBe("http://127.0.0.1:53211");
      // The code is bound to the URI as requested, port and all.
      const elsewhere = await token({
        grant_type: "authorization_code",
        code,
        redirect_uri: LOOPBACK,
        code_verifier: verifier,
        client_id: c.client_id,
      });
      expect(elsewhere.status).toBe(400);
    });

    it.each([
      "http://localhost:53211/callback",
      "http://127.0.0.2:53211/callback",
      "http://[::1]:53211/callback",
      "http://127.0.0.1:53211/other",
      "http://127.0.0.1:53211/callback/",
      "https://notes.example.test:8443/callback",
    ])("do not make %s a redirect URI of the client", async (uri) => {
      const c = await registered({ token_endpoint_auth_method: "none" });
      const { res } = await authorise(c.client_id, uri);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
    });
  });
});
