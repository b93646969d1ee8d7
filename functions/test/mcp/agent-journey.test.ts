/**
 * An agent the family has never seen, as an MCP client built on the registry's SDK finds its way
 * in by itself: a call without a token is answered 401 with the resource's metadata (RFC 9728),
 * which names the provider; the provider's metadata (RFC 8414) names its registration endpoint,
 * where the agent registers itself as a public client (RFC 7591); it sends the person to authorise
 * with PKCE, for the resource alone (RFC 8707, plain OAuth: no `openid`), the person lets it in on
 * the consent page, and the SDK redeems the code and calls a tool with the resource's token. An
 * agent with a metadata document (Client ID Metadata Documents) skips registration: its id is
 * the document's URL, which the provider reads when the person arrives. The
 * operator's part is the policy (open) and the resource, open to agents. No step is the test's own
 * but the person's browser.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import request from "supertest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { openToAgents, registerResource } from "../../src/core/oidc/resources";
import { notify } from "../../src/core/startpage/notifications";
import * as consents from "../../src/store/oidc-consents";
import * as mcp from "../../src/routes/mcp/mcp";
import * as oidc from "../../src/routes/oidc/oidc";
import { appFor, SERVICE_URL, testConfig, testDeps, unique, registrationSettings } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { authorizedWithConsent, ID_HOST } from "../support/consent";
import { MCP_SCOPES } from "../support/mcp";
import { documentServer, type DocumentServer } from "../support/document-server";
import { documentFetch } from "../../src/adapters/document-fetch";
import { DOCUMENT_MAX_BYTES, DOCUMENT_TIMEOUT_MS } from "../../src/core/oidc/metadata-documents";
import type { DocumentFetch } from "../../src/core/ports";
import { AgentMemory, agentMetadata, DocumentAgent } from "../support/agent";

const LOTS = { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 1000 };
/** Where the agent listens for the person's browser to come back: loopback, on a port of its own (RFC 8252). */
const AGENT_REDIRECT = "http://127.0.0.1:43117/callback";

async function listening(app: Express): Promise<{ server: Server; local: string }> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return { server, local: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe("an agent that signs itself in to the family's MCP server", () => {
  const resource = `https://${unique("family")}.example.test/mcp`;
  /** Where agents keep their metadata documents: an https server of the test's, which the provider is told to trust. */
  let documents: DocumentServer;
  let readDocument: DocumentFetch;
  const deps = testDeps({
    config: testConfig({ mcpResourceUrl: resource, oidcRegistration: registrationSettings("open", LOTS) }),
    // The provider's own guarded fetch, made once the documents' server listens.
    documents: (url) => readDocument(url),
  });
  const oidcApp = appFor(oidc, deps);
  let servers: Server[] = [];
  /** The network as the agent sees it: the provider's and the resource's https origins, reached on loopback. */
  let fetchFn: (url: string | URL, init?: RequestInit) => Promise<Response>;

  beforeAll(async () => {
    documents = await documentServer();
    readDocument = documentFetch({
      timeoutMs: DOCUMENT_TIMEOUT_MS,
      maxBytes: DOCUMENT_MAX_BYTES,
      devOrigins: [documents.origin],
      ca: documents.ca,
    });
    await registerResource(deps, { url: resource, name: "Start page", scopes: MCP_SCOPES.split(" "), clients: [] });
    await openToAgents(deps, resource, true);
    const provider = await listening(oidcApp);
    const server = await listening(appFor(mcp, deps));
    servers = [provider.server, server.server];
    const hosts = new Map([
      [new URL(SERVICE_URL).origin, provider.local],
      [new URL(resource).origin, server.local],
    ]);
    fetchFn = (url, init) => {
      const target = new URL(url);
      const local = hosts.get(target.origin);
      if (local === undefined) throw new Error(`the agent reached for ${target.origin}, which is not the family's`);
      return fetch(`${local}${target.pathname}${target.search}`, init);
    };
  });
  afterAll(async () => {
    await documents.close();
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  });

  it("finds the provider, registers, is let in by the person, and calls a tool for them", async () => {
    const { account, person } = await accountWithPerson({ name: "Ada", projects: ["startpage"] });
    await notify(deps, {
      title: "Your parcel is here",
      body: "At the front desk",
      link: null,
      level: "info",
      personIds: [person.id],
    });
    const agent = new AgentMemory(AGENT_REDIRECT);

    // Unauthorised, the SDK reads the challenge, the metadata, registers, and sends the person off.
    expect(await auth(agent, { serverUrl: resource, fetchFn })).toBe("REDIRECT");
    expect(agent.registered?.client_id).toMatch(/^dyn_/);
    expect(agent.registered?.client_secret).toBeUndefined();
    const sentTo = agent.sentTo as URL;
    expect(`${sentTo.origin}${sentTo.pathname}`).toBe(`${SERVICE_URL}/auth/oidc/authorize`);
    expect(sentTo.searchParams.get("resource")).toBe(resource);
    expect(sentTo.searchParams.get("code_challenge_method")).toBe("S256");
    expect(sentTo.searchParams.get("scope")?.split(" ")).not.toContain("openid");

    // The person's browser: signed in, it is asked, says yes, and comes back to the agent with a code.
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const back = await authorizedWithConsent(oidcApp, cookie, sentTo.searchParams);
    expect(`${back.origin}${back.pathname}`).toBe(AGENT_REDIRECT);
    const code = back.searchParams.get("code") as string;

    expect(await auth(agent, { serverUrl: resource, authorizationCode: code, fetchFn })).toBe("AUTHORIZED");
    expect(agent.saved?.id_token).toBeUndefined();
    expect(agent.saved?.refresh_token).toBeUndefined();

    const client = new Client({ name: "desk-assistant", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: agent, fetch: fetchFn }));
    const listed = await client.callTool({ name: "list_notifications", arguments: {} });
    expect(listed.isError).not.toBe(true);
    expect(JSON.stringify(listed.structuredContent)).toContain("Your parcel is here");
    await client.close();
  });

  it("makes itself known by its metadata document instead of registering, and is let in the same way", async () => {
    const { account, person } = await accountWithPerson({ name: "Ada", projects: ["startpage"] });
    const url = documents.serve(
      `/${unique("assistant")}/oauth-client.json`,
      agentMetadata("Document assistant", AGENT_REDIRECT),
    );
    const agent = new DocumentAgent(url, AGENT_REDIRECT);

    expect(await auth(agent, { serverUrl: resource, fetchFn })).toBe("REDIRECT");
    // No registration: its id is its document's URL, which the provider reads when the person arrives.
    expect(agent.registered?.client_id).toBe(url);
    const sentTo = agent.sentTo as URL;
    expect(sentTo.searchParams.get("client_id")).toBe(url);
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const back = await authorizedWithConsent(oidcApp, cookie, sentTo.searchParams);
    expect(`${back.origin}${back.pathname}`).toBe(AGENT_REDIRECT);
    const code = back.searchParams.get("code") as string;
    expect(await auth(agent, { serverUrl: resource, authorizationCode: code, fetchFn })).toBe("AUTHORIZED");

    const client = new Client({ name: "document-assistant", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: agent, fetch: fetchFn }));
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("list_notifications");
    await client.close();
    expect(documents.hits(new URL(url).pathname)).toBe(1);
  });

  it("refreshes while the resource is open to agents, and its grant ends once the operator closes it", async () => {
    const { account, person } = await accountWithPerson({ name: "Ada", projects: ["startpage"] });
    const agent = new AgentMemory(AGENT_REDIRECT);
    const scope = "notifications:read offline_access";
    expect(await auth(agent, { serverUrl: resource, scope, fetchFn })).toBe("REDIRECT");
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const back = await authorizedWithConsent(oidcApp, cookie, (agent.sentTo as URL).searchParams);
    const code = back.searchParams.get("code") as string;
    expect(await auth(agent, { serverUrl: resource, authorizationCode: code, fetchFn })).toBe("AUTHORIZED");
    const first = agent.saved?.refresh_token;
    expect(first).toEqual(expect.any(String));
    // The SDK refreshes by itself, and the token rotates.
    expect(await auth(agent, { serverUrl: resource, fetchFn })).toBe("AUTHORIZED");
    expect(agent.saved?.refresh_token).not.toBe(first);

    await openToAgents(deps, resource, false);
    await expect(auth(agent, { serverUrl: resource, fetchFn })).rejects.toThrow(/no longer open/);
    // What the person let agents do there is forgotten: opened again, it is asked afresh.
    expect((await consents.ofPerson(deps.store, person.id)).filter((c) => c.resource === resource)).toEqual([]);
    await openToAgents(deps, resource, true);
  });

  it("gets nothing for a resource the operator did not open to agents", async () => {
    const closed = `https://${unique("closed")}.example.test/mcp`;
    await registerResource(deps, { url: closed, name: "Closed", scopes: ["notes:read"], clients: [] });
    const agent = new AgentMemory(AGENT_REDIRECT);
    expect(await auth(agent, { serverUrl: resource, fetchFn })).toBe("REDIRECT");
    const { account, person } = await accountWithPerson({ name: "Ada", projects: ["startpage"] });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const asked = new URLSearchParams((agent.sentTo as URL).searchParams);
    asked.set("resource", closed);
    asked.set("scope", "notes:read");
    // Never let in, the agent's refusal is a page of the identity host, never a trip to its address.
    const res = await authorizedRefusal(oidcApp, cookie, asked);
    expect(res).toContain("invalid_target");
  });
});

/** The identity host's answer to an authorise request that is refused: the page's text. */
async function authorizedRefusal(app: Express, cookie: string, query: URLSearchParams): Promise<string> {
  const res = await request(app)
    .get(`/auth/oidc/authorize?${query}`)
    .set("Cookie", cookie)
    .set("X-Forwarded-Host", ID_HOST);
  expect(res.status).toBe(200);
  expect(res.headers.location).toBeUndefined();
  return res.text;
}
