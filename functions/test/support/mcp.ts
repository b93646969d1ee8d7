/**
 * An agent of the family's MCP server (routes/mcp), as one is set up and signs in: the operator
 * registers its client and the server's resource; a person signs in through the provider's code
 * flow and the agent is given an `at+jwt` for the resource; it talks to the server, listening on
 * loopback, through the MCP SDK's own client.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import type { Express } from "express";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { registerClient } from "../../src/core/oidc/clients";
import { registerResource } from "../../src/core/oidc/resources";
import * as mcp from "../../src/routes/mcp/mcp";
import * as oidc from "../../src/routes/oidc/oidc";
import { codeFlowTokens, type FlowClient } from "./code-flow";
import { appFor, testConfig, testDeps, unique, type TestDeps } from "./deps";
import { accountWithPerson, sessionCookieFor } from "./people";
import type { NewPerson, Person } from "../../src/core/model/person";

export const MCP_SCOPES = "notifications:read notifications:write calendar:read";
const REDIRECT = "https://agent.example.test/callback";

export interface McpWorld {
  deps: TestDeps;
  /** The server's resource URL: this file's own, so its registration is the file's alone. */
  resource: string;
  /** Where the server listens, on loopback. */
  url: string;
  oidcApp: Express;
  client: FlowClient;
  close(): Promise<void>;
}

async function listening(app: Express): Promise<{ server: Server; local: string }> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return { server, local: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The server listening, its resource registered for one client with `scopes`, as the operator does. */
export async function mcpWorld({
  scopes = MCP_SCOPES.split(" "),
  calendarUrl = null,
}: { scopes?: string[]; calendarUrl?: string | null } = {}): Promise<McpWorld> {
  const resource = `https://${unique("family")}.example.test/mcp`;
  const deps = testDeps({ config: testConfig({ mcpResourceUrl: resource, calendarUrl }) });
  const client = { clientId: unique("agent"), clientSecret: randomBytes(32).toString("base64url") };
  await registerClient(deps, {
    ...client,
    name: "Family agent",
    redirectUris: [REDIRECT],
    grantTypes: ["authorization_code", "refresh_token"],
  });
  await registerResource(deps, { url: resource, name: "Start page", scopes, clients: [client.clientId] });
  const { server, local } = await listening(appFor(mcp, deps));
  return {
    deps,
    resource,
    url: `${local}/mcp`,
    oidcApp: appFor(oidc, deps),
    client,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A person (approved, with the start page by default) and the access token an agent is given for them. */
export async function signedInAgent(
  world: McpWorld,
  options: { scope?: string; person?: Partial<NewPerson>; resource?: string } = {},
): Promise<{ person: Person; token: string }> {
  const { scope = `openid ${MCP_SCOPES}`, resource = world.resource } = options;
  const { account, person } = await accountWithPerson(options.person ?? { projects: ["startpage"] });
  const cookie = await sessionCookieFor(world.deps, account.uid, person.id);
  const tokens = await codeFlowTokens(world.oidcApp, cookie, world.client, { scope, redirectUri: REDIRECT, resource });
  return { person, token: tokens.access_token };
}

/** The SDK's client, connected to the server with `token` as its bearer. */
export async function connected(world: McpWorld, token: string): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(world.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}
