/**
 * A resource open to agents (core/oidc/resources `agents`) admits clients that registered
 * themselves, approved, and no other: the operator's own clients only by name (one stored before
 * `registeredBy` existed is the operator's), a self-registered client waiting for review or
 * blocked not at all. Closing it to agents ends an agent's grant at once for introspection and at
 * its next refresh, and the MCP server, which shares the provider's store, serves the agent's
 * access token no more either (fails today: admitAccessToken checks that the resource is still
 * registered, not that it is still open to the token's client, so the token is served until it
 * expires or a refresh attempt ends the grant).
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import { FieldValue } from "firebase-admin/firestore";
import { openToAgents } from "../../src/core/oidc/resources";
import { sha256 } from "../../src/core/secrets";
import * as clients from "../../src/store/oidc-clients";
import type { OidcClient } from "../../src/core/model/oidc-client";
import { unique } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { authorizedWithConsent, ID_HOST } from "../support/consent";
import { mcpWorld, type McpWorld } from "../support/mcp";

const REDIRECT = "https://agent.example.test/callback";
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list" };

let world: McpWorld;
beforeAll(async () => {
  world = await mcpWorld();
  await openToAgents(world.deps, world.resource, true);
});
afterAll(() => world.close());

async function saveClient(overrides: Partial<OidcClient>): Promise<{ clientId: string; secret: string }> {
  const clientId = unique("c");
  const secret = randomBytes(32).toString("base64url");
  const now = world.deps.clock.now();
  await clients.save(world.deps.store, {
    clientId,
    name: "Agent",
    secrets: [{ hash: sha256(secret), createdAt: now, expiresAt: null }],
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [],
    backchannelLogoutUri: null,
    pkce: "required",
    refreshTokens: true,
    project: null,
    disabled: false,
    registeredBy: "self",
    tokenAuth: "client_secret_basic",
    triedBy: [],
    document: null,
    review: "approved",
    clientUri: null,
    logoUri: null,
    createdAt: now,
    ...overrides,
  });
  return { clientId, secret };
}

function query(clientId: string, scope: string, verifier: string) {
  return new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope,
    resource: world.resource,
    state: "s",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  });
}

async function person() {
  const { account, person: p } = await accountWithPerson({ projects: ["startpage"] });
  return { person: p, cookie: await sessionCookieFor(world.deps, account.uid, p.id) };
}

const authorize = (cookie: string, q: URLSearchParams) =>
  request(world.oidcApp).get(`/auth/oidc/authorize?${q}`).set("Cookie", cookie).set("X-Forwarded-Host", ID_HOST);

describe("who may ask for a resource open to agents", () => {
  it("not an operator's client it does not name, one stored before registeredBy among them", async () => {
    const { clientId } = await saveClient({ registeredBy: "operator" });
    await world.deps.store.collection("oidcClients").doc(clientId).update({ registeredBy: FieldValue.delete() });
    const { cookie } = await person();
    const res = await authorize(cookie, query(clientId, "notifications:read", randomBytes(32).toString("base64url")));
    expect(res.status).toBe(302);
    const back = new URL(res.headers.location as string);
    expect(back.searchParams.get("error")).toBe("invalid_target");
    expect(back.searchParams.get("code")).toBeNull();
  });

  it.each(["waiting", "blocked"] as const)("not a self-registered client %s", async (review) => {
    const { clientId } = await saveClient({ review });
    const { cookie } = await person();
    const res = await authorize(cookie, query(clientId, "notifications:read", randomBytes(32).toString("base64url")));
    expect(res.headers.location ?? "").not.toContain("code=");
  });
});

/** An agent let in by a person, with its tokens for the resource: at+jwt and refresh token. */
async function agentWithTokens() {
  const { clientId, secret } = await saveClient({});
  const { cookie } = await person();
  const verifier = randomBytes(32).toString("base64url");
  const q = query(clientId, "notifications:read offline_access", verifier);
  const back = await authorizedWithConsent(world.oidcApp, cookie, q);
  const tokens = await request(world.oidcApp)
    .post("/auth/oidc/token")
    .type("form")
    .auth(clientId, secret)
    .send({
      grant_type: "authorization_code",
      code: back.searchParams.get("code") as string,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
  expect(tokens.status).toBe(200);
  expect(tokens.body.id_token).toBeUndefined();
  const { access_token: access, refresh_token: refresh } = tokens.body as Record<string, string>;
  expect(refresh).toEqual(expect.any(String));
  return { clientId, secret, access: access as string, refresh: refresh as string };
}

const mcpWith = (access: string) =>
  request(world.url.replace(/\/mcp$/, ""))
    .post("/mcp")
    .set("Accept", "application/json, text/event-stream")
    .set("Authorization", `Bearer ${access}`)
    .send(LIST);

describe("closing a resource to agents", () => {
  afterEach(() => openToAgents(world.deps, world.resource, true));

  it("ends an agent's grant at once for introspection, and at its next refresh", async () => {
    const { clientId, secret, refresh } = await agentWithTokens();
    await openToAgents(world.deps, world.resource, false);
    const introspected = await request(world.oidcApp)
      .post("/auth/oidc/introspect")
      .type("form")
      .auth(clientId, secret)
      .send({ token: refresh });
    expect(introspected.body).toEqual({ active: false });
    const refreshed = await request(world.oidcApp)
      .post("/auth/oidc/token")
      .type("form")
      .auth(clientId, secret)
      .send({ grant_type: "refresh_token", refresh_token: refresh });
    expect(refreshed.status).toBe(400);
  });

  it("leaves the MCP server serving the agent's access token no more", async () => {
    const { access } = await agentWithTokens();
    expect((await mcpWith(access)).status).toBe(200);
    await openToAgents(world.deps, world.resource, false);
    // The MCP server reads the provider's store on every request, and serves a removed resource's
    // token no more (core/oidc/resource-tokens); a resource closed to the agent is the same refusal.
    expect((await mcpWith(access)).status).toBe(401);
  });
});
