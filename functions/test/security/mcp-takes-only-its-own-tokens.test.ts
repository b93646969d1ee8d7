/**
 * The MCP server's gate (http/gate requireResourceToken, core/oidc/resource-tokens) takes one
 * credential only: the provider's `at+jwt` for the server's own resource, whose record still
 * stands, held for a person who still may have the start page. Every other credential a caller
 * may hold (a token for another resource, the provider's opaque token, an ID token, a session
 * cookie) is refused, and so is a good token once it expires, is revoked, or its person loses
 * their standing. Each refusal is the MCP authorization spec's: a 401 with a challenge naming the
 * resource's metadata, which names the issuer.
 */
import request from "supertest";
import { randomBytes } from "node:crypto";
import { changePerson } from "../../src/core/people/change-person";
import { registerResource, removeResource } from "../../src/core/oidc/resources";
import { ACCESS_TOKEN_FOR_RESOURCE_LIFETIME_MS } from "../../src/core/oidc/access-tokens";
import { SERVICE_URL, unique } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { codeFlowTokens } from "../support/code-flow";
import { mcpWorld, signedInAgent, type McpWorld } from "../support/mcp";

const OPERATOR = { kind: "operator" as const, name: "test operator" };
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list" };

let world: McpWorld;
let base: string;
beforeAll(async () => {
  world = await mcpWorld();
  base = world.url.replace(/\/mcp$/, "");
});
afterAll(() => world.close());

/** A tools/list as an MCP client sends it, with `headers`. */
const listWith = (headers: Record<string, string>) =>
  request(base).post("/mcp").set("Accept", "application/json, text/event-stream").set(headers).send(LIST);

const bearer = (token: string) => listWith({ Authorization: `Bearer ${token}` });

/** The refusal of a token that does not do: 401, `invalid_token`, and where to find the metadata. */
function expectInvalidToken(res: request.Response) {
  expect(res.status).toBe(401);
  expect(res.headers["www-authenticate"]).toBe(
    `Bearer error="invalid_token", resource_metadata="${new URL(world.resource).origin}/.well-known/oauth-protected-resource/mcp"`,
  );
  expect(res.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 }, id: null });
}

describe("POST /mcp without a token", () => {
  it("is 401 with a challenge whose metadata names the issuer", async () => {
    const res = await listWith({});
    expect(res.status).toBe(401);
    const challenge = res.headers["www-authenticate"] as string;
    const metadata = /^Bearer resource_metadata="([^"]+)"$/.exec(challenge)?.[1];
    expect(metadata).toBe(`${new URL(world.resource).origin}/.well-known/oauth-protected-resource/mcp`);
    // The document at that path (on the server's host) sends the agent to the provider.
    const doc = await request(base).get(new URL(metadata as string).pathname);
    expect(doc.body).toMatchObject({ resource: world.resource, authorization_servers: [SERVICE_URL] });
  });

  it("takes no session cookie in its place", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const cookie = await sessionCookieFor(world.deps, account.uid, person.id);
    const res = await listWith({ Cookie: cookie });
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer resource_metadata=/);
  });
});

describe("POST /mcp with a token that is not for it", () => {
  it("takes the provider's at+jwt for its own resource", async () => {
    const { token } = await signedInAgent(world);
    expect((await bearer(token)).status).toBe(200);
  });

  it("refuses a token for another resource of the family", async () => {
    const other = `https://${unique("notes")}.example.test/api`;
    await registerResource(world.deps, {
      url: other,
      name: "Notes",
      scopes: ["notifications:read"],
      clients: [world.client.clientId],
    });
    const { token } = await signedInAgent(world, { resource: other, scope: "openid notifications:read" });
    expectInvalidToken(await bearer(token));
  });

  it("refuses the provider's own opaque access token, and an ID token", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const cookie = await sessionCookieFor(world.deps, account.uid, person.id);
    const tokens = await codeFlowTokens(world.oidcApp, cookie, world.client, {
      scope: "openid",
      redirectUri: "https://agent.example.test/callback",
    });
    expectInvalidToken(await bearer(tokens.access_token));
    expectInvalidToken(await bearer(tokens.id_token));
  });

  it("refuses a token of the right shape signed by any other key", async () => {
    const { token } = await signedInAgent(world);
    const [header, payload] = token.split(".");
    expectInvalidToken(await bearer(`${header}.${payload}.${randomBytes(256).toString("base64url")}`));
  });
});

describe("POST /mcp with a token that no longer stands", () => {
  it("refuses it from the moment it expires, not a second before", async () => {
    const { token } = await signedInAgent(world);
    world.deps.clock.advance(ACCESS_TOKEN_FOR_RESOURCE_LIFETIME_MS - 1000);
    expect((await bearer(token)).status).toBe(200);
    world.deps.clock.advance(1000);
    expectInvalidToken(await bearer(token));
  });

  it("refuses a revoked one", async () => {
    const { token } = await signedInAgent(world);
    const revoked = await request(world.oidcApp)
      .post("/auth/oidc/revoke")
      .type("form")
      .auth(world.client.clientId, world.client.clientSecret)
      .send({ token });
    expect(revoked.status).toBe(200);
    expectInvalidToken(await bearer(token));
  });

  it("refuses a person set back from approved", async () => {
    const { person, token } = await signedInAgent(world);
    await changePerson(world.deps, person.id, { status: "rejected" }, { operator: OPERATOR });
    expectInvalidToken(await bearer(token));
  });

  it("refuses a person who lost the start page, as the start page does", async () => {
    const { person, token } = await signedInAgent(world, { person: { projects: ["startpage", "status"] } });
    expect((await bearer(token)).status).toBe(200);
    await changePerson(world.deps, person.id, { projects: ["status"] }, { operator: OPERATOR });
    const res = await bearer(token);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { message: "Forbidden" } });
  });

  it("refuses every token once the operator removes the resource", async () => {
    const { token } = await signedInAgent(world);
    await removeResource(world.deps, world.resource);
    try {
      expectInvalidToken(await bearer(token));
    } finally {
      await registerResource(world.deps, {
        url: world.resource,
        name: "Start page",
        scopes: ["notifications:read", "notifications:write", "calendar:read"],
        clients: [world.client.clientId],
      });
    }
  });
});
