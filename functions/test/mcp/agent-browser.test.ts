/**
 * An agent's whole sign-in on the local stack, its person's part in a real browser: the registry's
 * MCP SDK client, pointed at the family's MCP server on the start page's host
 * (https://startpage.example.test/mcp, through the stack's https front), reads the 401's resource
 * metadata and the provider's metadata, registers itself (RFC 7591) or names its metadata
 * document, and sends the person to authorise. In Chromium the person signs in by an emailed code
 * and lets the agent in on the consent page; the agent's loopback address gets the code, the SDK
 * redeems it for a token of that resource, and a tool answers with the person's own notification.
 * With the keyboard alone and on a phone's screen, checked by axe-core.
 *
 * @stack-project a browser and an agent reach the stack's functions, and the stack's resource is registered
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { findResource, openToAgents, registerResource } from "../../src/core/oidc/resources";
import { notify } from "../../src/core/startpage/notifications";
import { useBrowserWorld } from "../support/browser";
import { testDeps, unique } from "../support/deps";
import { MCP_SCOPES } from "../support/mcp";
import { personFor } from "../support/people";
import { useRelyingParty } from "../support/relying-party";
import { MODES, signInByCode, useJourneys, type Journey } from "../support/visitor";
import { AgentMemory, agentMetadata, DocumentAgent, throughFront } from "../support/agent";

/** The stack's MCP server: MCP_RESOURCE_URL left blank, the start page's host's `/mcp`. */
const RESOURCE = "https://startpage.example.test/mcp";

const world = useBrowserWorld();
/** The agent's loopback listener, where the person's browser brings the code back. */
const agentHome = useRelyingParty();
const deps = testDeps();
const fetchFn = throughFront();

/**
 * Where the agents keep their metadata documents: the one loopback origin the test stack's
 * functions may read them from (OIDC_METADATA_DEV_ORIGINS), with the https front's certificate,
 * whose authority they trust for it (OIDC_METADATA_DEV_CA).
 */
const TLS = join(__dirname, "..", "..", "..", ".stack", "tls");
const documents = new Map<string, string>();
let documentServer: Server;
const documentsOrigin = () => process.env.STACK_DOCUMENTS_ORIGIN as string;

beforeAll(async () => {
  // The operator's part: the start page's MCP server registered as a resource and opened to agents.
  if ((await findResource(deps, RESOURCE)) === null)
    await registerResource(deps, { url: RESOURCE, name: "Start page", scopes: MCP_SCOPES.split(" "), clients: [] });
  await openToAgents(deps, RESOURCE, true);
  const tls = { key: readFileSync(join(TLS, "key.pem")), cert: readFileSync(join(TLS, "cert.pem")) };
  documentServer = createServer(tls, (req, res) => {
    const body = documents.get(req.url ?? "/");
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  const port = Number(new URL(documentsOrigin()).port);
  await new Promise<void>((resolve) => documentServer.listen(port, "127.0.0.1", resolve));
});
afterAll(async () => {
  documentServer.closeAllConnections();
  await new Promise((resolve) => documentServer.close(resolve));
});

/** A person of the start page's project, with a notification of their own waiting. */
async function personWithNotification(title: string): Promise<string> {
  const email = `${unique("agent-owner")}@example.test`;
  const person = await personFor({ uid: unique("uid"), email }, { name: "Agent Owner", projects: ["startpage"] });
  await notify(deps, { title, body: "At the front desk", link: null, level: "info", personIds: [person.id] });
  return email;
}

/**
 * The person's part: the browser opens where the agent sent it, signs in by code, is asked on the
 * consent page, and lets the agent in; the agent's loopback address receives the code.
 */
async function letInByPerson(
  t: Journey,
  agent: AgentMemory,
  email: string,
  how: string | RegExp,
  shot: string,
): Promise<string> {
  await t.page.goto((agent.sentTo as URL).href);
  await signInByCode(t.visitor, email);
  await t.visitor.reaches(`Let ${agent.name} use your account?`);
  // The app is named as it named itself, marked as no app of the service's, with how it came;
  // the site it will reach is named.
  const said = (await t.page.locator("main").textContent()) ?? "";
  expect(said).toContain(`${agent.name} is not one of this service's own apps.`);
  expect(said).toMatch(how);
  expect(said).toContain(`It asks for access to Start page (${RESOURCE}).`);
  await t.visitor.screenshot(shot);
  await t.visitor.press(`Let ${agent.name} in`);
  const back = await agentHome.arrivalAt("/callback");
  expect(back.searchParams.get("error")).toBeNull();
  return back.searchParams.get("code") as string;
}

/** The SDK's client, with the agent's token, calling a tool on the start page's MCP server. */
async function notificationsSeenBy(agent: AgentMemory): Promise<string> {
  const client = new Client({ name: "desk-assistant", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(RESOURCE), { authProvider: agent, fetch: fetchFn }));
  const listed = await client.callTool({ name: "list_notifications", arguments: {} });
  await client.close();
  expect(listed.isError).not.toBe(true);
  return JSON.stringify(listed.structuredContent);
}

describe.each(MODES)("an agent signing a person in on the local stack, %s", (mode) => {
  const t = useJourneys(world, mode);

  it("registers itself, is let in by the person after an email-code sign-in, and reads their notifications", async () => {
    t.name = "agent-registered";
    const title = `Parcel ${unique("n")}`;
    const email = await personWithNotification(title);
    const agent = new AgentMemory(`${agentHome.url()}/callback`);

    // The SDK by itself: the 401, the resource's metadata, the provider's, a registration, the person sent off.
    expect(await auth(agent, { serverUrl: RESOURCE, fetchFn })).toBe("REDIRECT");
    expect(agent.registered?.client_id).toMatch(/^dyn_/);
    expect(agent.sentTo?.searchParams.get("resource")).toBe(RESOURCE);

    const code = await letInByPerson(t, agent, email, /It registered itself/, "agent-registered-consent");
    expect(await auth(agent, { serverUrl: RESOURCE, authorizationCode: code, fetchFn })).toBe("AUTHORIZED");
    expect(await notificationsSeenBy(agent)).toContain(title);
  }, 180_000);

  it("is known by its metadata document, is let in the same way, and reads their notifications", async () => {
    t.name = "agent-document";
    const title = `Letter ${unique("n")}`;
    const email = await personWithNotification(title);
    const path = `/${unique("assistant")}/oauth-client.json`;
    const url = `${documentsOrigin()}${path}`;
    const redirect = `${agentHome.url()}/callback`;
    documents.set(path, JSON.stringify({ client_id: url, ...agentMetadata("Document assistant", redirect) }));
    const agent = new DocumentAgent(url, redirect, "Document assistant");

    expect(await auth(agent, { serverUrl: RESOURCE, fetchFn })).toBe("REDIRECT");
    // No registration: its id is its document's URL, read by the provider when the person arrives.
    expect(agent.sentTo?.searchParams.get("client_id")).toBe(url);

    const code = await letInByPerson(t, agent, email, /by a document on 127\.0\.0\.1:\d+/, "agent-document-consent");
    expect(await auth(agent, { serverUrl: RESOURCE, authorizationCode: code, fetchFn })).toBe("AUTHORIZED");
    expect(await notificationsSeenBy(agent)).toContain(title);
  }, 180_000);
});
