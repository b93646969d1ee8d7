/**
 * What the MCP server's tools let an agent do is the person's own, and no more than its token's
 * scopes: marking another person's notification read is "not found" and changes no one's read
 * state; a token without `notifications:write` cannot mark anything read (the MCP authorization
 * spec's 403 `insufficient_scope`, naming the scope needed), though it may still read. Bad input
 * is a clear JSON-RPC error, never a 500.
 */
import request from "supertest";
import { notify } from "../../src/core/startpage/notifications";
import * as notifications from "../../src/store/notifications";
import { connected, mcpWorld, signedInAgent, type McpWorld } from "../support/mcp";

let world: McpWorld;
let base: string;
beforeAll(async () => {
  world = await mcpWorld();
  base = world.url.replace(/\/mcp$/, "");
});
afterAll(() => world.close());

const noticeFor = (personId: string) =>
  notify(world.deps, { title: "Yours", body: "b", link: null, level: "info", personIds: [personId] });

const post = (token: string) =>
  request(base)
    .post("/mcp")
    .set("Authorization", `Bearer ${token}`)
    .set("Accept", "application/json, text/event-stream");

const markRead = (id: string) => ({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name: "mark_notification_read", arguments: { id } },
});

describe("mark_notification_read", () => {
  it("finds no notification of another person's, and leaves every read state as it was", async () => {
    const { person: owner } = await signedInAgent(world);
    const { person: caller, token } = await signedInAgent(world);
    const theirs = await noticeFor(owner.id);
    const client = await connected(world, token);
    const result = await client.callTool({ name: "mark_notification_read", arguments: { id: theirs } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("No such notification");
    // Not found either way: the same answer as for an id that names nothing.
    const none = await client.callTool({
      name: "mark_notification_read",
      arguments: { id: `${theirs.slice(0, 14)}x` },
    });
    expect(none.content).toEqual(result.content);
    expect(await notifications.readState(world.deps.store, caller.id)).toEqual({ readIds: [], allReadAt: null });
    expect(await notifications.readState(world.deps.store, owner.id)).toEqual({ readIds: [], allReadAt: null });
    await client.close();
  });

  it("cannot be called with a token that lacks notifications:write, which may still read", async () => {
    const { person, token } = await signedInAgent(world, { scope: "openid notifications:read" });
    const mine = await noticeFor(person.id);
    const res = await post(token).send(markRead(mine));
    expect(res.status).toBe(403);
    expect(res.headers["www-authenticate"]).toBe(
      `Bearer error="insufficient_scope", scope="notifications:write", resource_metadata="${new URL(world.resource).origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(await notifications.readState(world.deps.store, person.id)).toEqual({ readIds: [], allReadAt: null });
    const listed = await post(token).send({
      jsonrpc: "2.0",
      id: 8,
      method: "tools/call",
      params: { name: "list_notifications", arguments: {} },
    });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain(mine);
  });

  it("nor inside a batch that hides the call among others", async () => {
    const { person, token } = await signedInAgent(world, { scope: "openid notifications:read" });
    const mine = await noticeFor(person.id);
    const res = await post(token).send([{ jsonrpc: "2.0", id: 1, method: "tools/list" }, markRead(mine)]);
    expect(res.status).toBe(403);
    expect(await notifications.readState(world.deps.store, person.id)).toEqual({ readIds: [], allReadAt: null });
  });
});

describe("POST /mcp with bad input", () => {
  it("answers malformed JSON with a JSON-RPC parse error", async () => {
    const { token } = await signedInAgent(world);
    const res = await post(token).set("Content-Type", "application/json").send('{"jsonrpc": "2.0", "id": 1,');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: expect.any(String) }, id: null });
  });

  it("answers a message that is not JSON-RPC with a 400, not a 500", async () => {
    const { token } = await signedInAgent(world);
    for (const body of [{ hello: "world" }, [], { jsonrpc: "2.0", id: 1, method: "tools/call", params: "x" }]) {
      const res = await post(token).send(body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.body).toMatchObject({ jsonrpc: "2.0", error: { code: expect.any(Number) } });
    }
  });

  it("refuses a huge body before reading it", async () => {
    const { token } = await signedInAgent(world);
    const res = await post(token).send({ ...markRead("x"), padding: "x".repeat(200_000) });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
  });

  it("answers another method than POST with 405", async () => {
    const { token } = await signedInAgent(world);
    for (const method of ["get", "delete"] as const) {
      const res = await request(base)[method]("/mcp").set("Authorization", `Bearer ${token}`);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe("POST");
    }
  });
});
