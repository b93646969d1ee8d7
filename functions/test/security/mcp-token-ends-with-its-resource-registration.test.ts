/**
 * The MCP server reads the resource's registration on every request (core/oidc/resource-tokens),
 * so it can hold an access token to the registration it was issued under, as the provider holds
 * a grant to it (core/oidc/resources `grantStillOpen`, `resourceSince`): a token minted before the
 * operator removed the resource is not served again because a resource of the same URL was
 * registered afresh (docs/endpoints/mcp.md: "once the operator removes it, no token is served"),
 * nor for a client the new registration does not name, nor with scopes it no longer defines; and a
 * client the operator has closed the resource to is served no more, though its token is young.
 */
import request from "supertest";
import { allowClient, registerResource, removeResource } from "../../src/core/oidc/resources";
import { notify } from "../../src/core/startpage/notifications";
import * as notifications from "../../src/store/notifications";
import { MCP_SCOPES, mcpWorld, signedInAgent, type McpWorld } from "../support/mcp";

const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list" };

let world: McpWorld;
let base: string;
beforeAll(async () => {
  world = await mcpWorld();
  base = world.url.replace(/\/mcp$/, "");
});
afterAll(() => world.close());

const post = (token: string) =>
  request(base)
    .post("/mcp")
    .set("Authorization", `Bearer ${token}`)
    .set("Accept", "application/json, text/event-stream");

/** The operator removes the resource and, a moment later, registers the same URL afresh. */
async function registeredAfresh(input: { scopes?: string[]; clients?: string[] } = {}) {
  await removeResource(world.deps, world.resource);
  world.deps.clock.advance(1000);
  await registerResource(world.deps, {
    url: world.resource,
    name: "Start page",
    scopes: input.scopes ?? MCP_SCOPES.split(" "),
    clients: input.clients ?? [world.client.clientId],
  });
}

describe("an access token for the MCP server, once the operator changed the resource", () => {
  it("is not served again when the resource is removed and registered afresh", async () => {
    const { token } = await signedInAgent(world);
    expect((await post(token).send(LIST)).status).toBe(200);
    await registeredAfresh();
    const res = await post(token).send(LIST);
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer error="invalid_token", resource_metadata=/);
    // A token the new registration issues is served, as before.
    const { token: fresh } = await signedInAgent(world);
    expect((await post(fresh).send(LIST)).status).toBe(200);
  });

  it("is not served for a client the registration made afresh does not name", async () => {
    const { token } = await signedInAgent(world);
    await registeredAfresh({ clients: [] });
    try {
      expect((await post(token).send(LIST)).status).toBe(401);
    } finally {
      await registeredAfresh();
    }
  });

  it("gives no scope the registration made afresh no longer defines", async () => {
    const { person, token } = await signedInAgent(world);
    const mine = await notify(world.deps, { title: "t", body: "b", link: null, level: "info", personIds: [person.id] });
    await registeredAfresh({ scopes: ["notifications:read", "calendar:read"] });
    try {
      const res = await post(token).send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "mark_notification_read", arguments: { id: mine } },
      });
      expect(res.status).not.toBe(200);
      expect(await notifications.readState(world.deps.store, person.id)).toEqual({ readIds: [], allReadAt: null });
    } finally {
      await registeredAfresh();
    }
  });

  it("is not served once the operator closes the resource to its client", async () => {
    const { token } = await signedInAgent(world);
    expect((await post(token).send(LIST)).status).toBe(200);
    await allowClient(world.deps, world.resource, world.client.clientId, false);
    try {
      expect((await post(token).send(LIST)).status).toBe(401);
    } finally {
      await allowClient(world.deps, world.resource, world.client.clientId, true);
    }
  });
});
