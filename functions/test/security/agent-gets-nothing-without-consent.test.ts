/**
 * A resource open to agents (core/oidc/resources `agents`) is given to a client that registered
 * itself only once the person said yes on its consent page (core/oidc/consents): "a code only once
 * the person let it in on its consent page" (docs/endpoints/oidc.md). A plain OAuth request
 * (no `openid`, a `resource`) that asks for no scope the resource defines, or for none at all, is
 * no way around that page: without the person's yes, a silent request (`prompt=none`) from an app
 * the person never met gets no code, and so no token that names the person to the resource.
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import { openToAgents, registerResource } from "../../src/core/oidc/resources";
import * as clients from "../../src/store/oidc-clients";
import * as consents from "../../src/store/oidc-consents";
import { unique } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { ID_HOST } from "../support/consent";
import { mcpWorld, type McpWorld } from "../support/mcp";

const REDIRECT = "https://agent.attacker.example.test/callback";
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list" };

let world: McpWorld;
let agent: string;
beforeAll(async () => {
  world = await mcpWorld();
  await openToAgents(world.deps, world.resource, true);
  agent = unique("dyn");
  const now = world.deps.clock.now();
  // A public client that registered itself (RFC 7591), approved: any stranger's, under `open`.
  await clients.save(world.deps.store, {
    clientId: agent,
    name: "Helpful agent",
    secrets: [],
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [],
    backchannelLogoutUri: null,
    pkce: "required",
    refreshTokens: false,
    project: null,
    disabled: false,
    registeredBy: "self",
    tokenAuth: "none",
    triedBy: [],
    document: null,
    review: "approved",
    clientUri: null,
    logoUri: null,
    createdAt: now,
  });
});
afterAll(() => world.close());

/** The silent authorise request the agent's page sends a signed-in person's browser to. */
async function silently(cookie: string, resource: string, scope: string | null) {
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    client_id: agent,
    redirect_uri: REDIRECT,
    response_type: "code",
    ...(scope === null ? {} : { scope }),
    resource,
    prompt: "none",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  });
  const res = await request(world.oidcApp)
    .get(`/auth/oidc/authorize?${query}`)
    .set("Cookie", cookie)
    .set("X-Forwarded-Host", ID_HOST);
  const location = (res.headers.location as string | undefined) ?? "";
  const code = location === "" ? null : new URL(location).searchParams.get("code");
  return { res, code, verifier };
}

async function person() {
  const { account, person: p } = await accountWithPerson({ projects: ["startpage"] });
  return { person: p, cookie: await sessionCookieFor(world.deps, account.uid, p.id) };
}

describe("an agent a person never let in, asking for a resource open to agents", () => {
  it("gets no code asking for no scope at all", async () => {
    const { person: p, cookie } = await person();
    const { res, code, verifier } = await silently(cookie, world.resource, null);
    expect(await consents.ofPerson(world.deps.store, p.id)).toEqual([]);
    if (code !== null) {
      // What the code is worth: an at+jwt naming the person, which the MCP server takes.
      const token = await request(world.oidcApp).post("/auth/oidc/token").type("form").send({
        grant_type: "authorization_code",
        client_id: agent,
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      });
      const listed = await request(world.url.replace(/\/mcp$/, ""))
        .post("/mcp")
        .set("Accept", "application/json, text/event-stream")
        .set("Authorization", `Bearer ${token.body.access_token as string}`)
        .send(LIST);
      const sub = JSON.parse(
        Buffer.from((token.body.access_token as string).split(".")[1] as string, "base64url").toString(),
      ).sub;
      throw new Error(
        `a code with no consent: token ${token.status}, sub ${sub === p.id ? "is the person" : sub}, tools/list ${listed.status}`,
      );
    }
    // Refused on a page of the identity host (the app was never let in), or at its redirect URI.
    expect(res.headers.location ?? "").not.toContain("code=");
  });

  it("gets no code asking only for scopes the resource does not define", async () => {
    const { cookie } = await person();
    const { code } = await silently(cookie, world.resource, "nothing:here");
    expect(code).toBeNull();
  });

  it("finds no resource open to agents with no scopes of its own: the operator cannot register one", async () => {
    const bare = `https://${unique("bare")}.example.test/api`;
    await expect(
      registerResource(world.deps, { url: bare, name: "Bare", scopes: [], clients: [], agents: true }),
    ).rejects.toMatchObject({ code: "resource_scope_invalid" });
    await registerResource(world.deps, { url: bare, name: "Bare", scopes: [], clients: [] });
    await expect(openToAgents(world.deps, bare, true)).rejects.toMatchObject({ code: "resource_scope_invalid" });
    const { cookie } = await person();
    const { code } = await silently(cookie, bare, null);
    expect(code).toBeNull();
  });
});
