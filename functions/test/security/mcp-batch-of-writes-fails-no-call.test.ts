/**
 * A batch is one request to the MCP server. An agent that marks a page of notifications read in
 * one batch, as the start page marks several in one request (POST /startpage/notifications/read),
 * sees each marked: the calls of a request run one after another, rather than racing each other
 * over the person's one read state (side by side, their transactions timed out on its lock, and
 * each refused call logged the "unhandled error" the operator's alert counts). A batch holds at
 * most BATCH_MAX messages, so that one request's calls end inside its time; a larger one is
 * refused before any call runs.
 */
import request from "supertest";
import { notify } from "../../src/core/startpage/notifications";
import * as notifications from "../../src/store/notifications";
import { recordingLogger } from "../support/email-codes";
import { mcpWorld, signedInAgent, type McpWorld } from "../support/mcp";
import { BATCH_MAX } from "../../src/routes/mcp/mcp";

let world: McpWorld;
let base: string;
const log = recordingLogger();
beforeAll(async () => {
  world = await mcpWorld();
  // The tools log through the deps they were built with, read when they run.
  Object.assign(world.deps, { log });
  base = world.url.replace(/\/mcp$/, "");
});
afterAll(() => world.close());

const batchOf = (ids: string[]) =>
  ids.map((id, i) => ({
    jsonrpc: "2.0",
    id: i + 1,
    method: "tools/call",
    params: { name: "mark_notification_read", arguments: { id } },
  }));

async function notificationsOf(personId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++)
    ids.push(await notify(world.deps, { title: `n${i}`, body: "b", link: null, level: "info", personIds: [personId] }));
  return ids;
}

const sent = (token: string, body: unknown) =>
  request(base)
    .post("/mcp")
    .set("Authorization", `Bearer ${token}`)
    .set("Accept", "application/json, text/event-stream")
    .send(body as object);

it(`marks each of a batch's ${BATCH_MAX} notifications read, and logs no unhandled error`, async () => {
  const { person, token } = await signedInAgent(world);
  const ids = await notificationsOf(person.id, BATCH_MAX);
  const res = await sent(token, batchOf(ids));
  const answers = res.body as Array<{ result?: { isError?: boolean } }>;
  expect({
    status: res.status,
    answered: answers.length,
    callsRefused: answers.filter((a) => a.result?.isError === true).length,
    unhandledErrorsLogged: log.lines.filter((l) => l.includes("unhandled error")).length,
    marked: (await notifications.readState(world.deps.store, person.id)).readIds.length,
  }).toEqual({ status: 200, answered: BATCH_MAX, callsRefused: 0, unhandledErrorsLogged: 0, marked: BATCH_MAX });
}, 60_000);

it(`refuses a batch of more than ${BATCH_MAX} messages before any call runs`, async () => {
  const { person, token } = await signedInAgent(world);
  const ids = await notificationsOf(person.id, BATCH_MAX + 1);
  const res = await sent(token, batchOf(ids));
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: -32600 });
  expect((await notifications.readState(world.deps.store, person.id)).readIds).toEqual([]);
}, 60_000);
