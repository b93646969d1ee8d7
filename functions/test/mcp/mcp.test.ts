/**
 * The family's MCP server (routes/mcp): an agent given a token for the server's resource through
 * the provider's code flow talks to it with the MCP SDK's own client, lists its tools and calls
 * each, and sees the person's own notifications and calendar, as the start page does; the
 * protected resource metadata tells it where to sign in.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import request from "supertest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { notify } from "../../src/core/startpage/notifications";
import * as notifications from "../../src/store/notifications";
import { SERVICE_URL } from "../support/deps";
import { icsCalendar as ics } from "../support/ics";
import { connected, mcpWorld, signedInAgent, type McpWorld } from "../support/mcp";

/** A calendar feed on loopback with one event tomorrow and one in five weeks. */
async function feed(): Promise<{ url: string; server: Server; setBody(body: string): void }> {
  let body = "";
  const server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/calendar" }).end(body));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/family.ics`;
  return { url, server, setBody: (b) => void (body = b) };
}

const stamp = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}Z$/, "Z");

/** A tool's structured answer. */
async function called(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, value: result.structuredContent as Record<string, unknown>, result };
}

describe("POST /mcp", () => {
  let world: McpWorld;
  let calendar: Awaited<ReturnType<typeof feed>>;

  beforeAll(async () => {
    calendar = await feed();
    world = await mcpWorld({ calendarUrl: calendar.url });
  });
  afterAll(async () => {
    await world.close();
    await new Promise((resolve) => calendar.server.close(resolve));
  });

  it("lists its three tools, each with an input schema and a description", async () => {
    const { token } = await signedInAgent(world);
    const client = await connected(world, token);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["list_notifications", "mark_notification_read", "next_events"]);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(20);
      expect(tool.inputSchema.type).toBe("object");
    }
    await client.close();
  });

  it("lists the person's own notifications, newest first, and marks one read", async () => {
    const { person, token } = await signedInAgent(world);
    const { person: other } = await signedInAgent(world);
    const deps = world.deps;
    const older = await notify(deps, { title: "Older", body: "b", link: null, level: "info", personIds: [person.id] });
    deps.clock.advance(1000);
    const theirs = await notify(deps, { title: "Theirs", body: "b", link: null, level: "info", personIds: [other.id] });
    deps.clock.advance(1000);
    const newer = await notify(deps, {
      title: "Newer",
      body: "b",
      link: null,
      level: "warning",
      personIds: [person.id],
    });
    const client = await connected(world, token);

    const listed = await called(client, "list_notifications", { limit: 50 });
    expect(listed.isError).toBe(false);
    const ids = (listed.value.notifications as Array<{ id: string; read: boolean }>).map((n) => n.id);
    // Newest first; another person's notice is not among them.
    expect(ids.indexOf(newer)).toBeLessThan(ids.indexOf(older));
    expect(ids).toContain(older);
    expect(ids).not.toContain(theirs);

    const marked = await called(client, "mark_notification_read", { id: older });
    expect(marked).toMatchObject({ isError: false, value: { ok: true, id: older } });
    expect((await notifications.readState(deps.store, person.id)).readIds).toEqual([older]);
    const after = await called(client, "list_notifications", { limit: 2 });
    expect(after.value.notifications).toEqual([
      expect.objectContaining({ id: newer, read: false, level: "warning" }),
      expect.objectContaining({ id: older, read: true }),
    ]);
    await client.close();
  });

  it("gives the shared calendar's next events, bounded", async () => {
    const now = world.deps.clock.now();
    const inHours = (h: number) => stamp(new Date(now.getTime() + h * 3_600_000));
    calendar.setBody(
      ics(
        `UID:a\nSUMMARY:Dinner\nDTSTART:${inHours(24)}\nDTEND:${inHours(26)}`,
        `UID:b\nSUMMARY:Trip\nLOCATION:Lisbon\nDTSTART:${inHours(48)}\nDTEND:${inHours(50)}`,
        `UID:c\nSUMMARY:Far away\nDTSTART:${inHours(24 * 35)}\nDTEND:${inHours(24 * 35 + 1)}`,
      ),
    );
    const { token } = await signedInAgent(world);
    const client = await connected(world, token);
    const next = await called(client, "next_events", { limit: 5 });
    expect(next.value.available).toBe(true);
    expect((next.value.events as Array<{ title: string }>).map((e) => e.title)).toEqual(["Dinner", "Trip"]);
    const one = await called(client, "next_events", { limit: 1 });
    expect((one.value.events as unknown[]).length).toBe(1);
    // Its bounds are the schema's: more than 50 is refused before the tool runs.
    expect((await called(client, "next_events", { limit: 500 })).isError).toBe(true);
    await client.close();
  });

  it("holds nothing between requests: a second client with the same token needs no session", async () => {
    const { token } = await signedInAgent(world);
    const res = await request(world.url.replace(/\/mcp$/, ""))
      .post("/mcp")
      .set("Authorization", `Bearer ${token}`)
      .set("Accept", "application/json, text/event-stream")
      .send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(res.status).toBe(200);
    expect(res.headers["mcp-session-id"]).toBeUndefined();
    expect((res.body as { result: { tools: unknown[] } }).result.tools).toHaveLength(3);
  });
});

describe("GET /.well-known/oauth-protected-resource/mcp", () => {
  let world: McpWorld;
  beforeAll(async () => {
    world = await mcpWorld();
  });
  afterAll(() => world.close());

  it("says what the resource is, and that the provider is where to sign in for it", async () => {
    const res = await request(world.url.replace(/\/mcp$/, ""))
      .get("/.well-known/oauth-protected-resource/mcp")
      .set("Origin", "https://agent.example.test");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      resource: world.resource,
      authorization_servers: [SERVICE_URL],
      scopes_supported: ["notifications:read", "notifications:write", "calendar:read"],
      bearer_methods_supported: ["header"],
      resource_name: expect.any(String),
    });
    expect(res.headers["cache-control"]).toBe("public, max-age=3600");
    // A public document, like the provider's own discovery: any origin reads it, without credentials.
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(res.headers["access-control-allow-credentials"]).toBeUndefined();
  });
});
