/**
 * A batch is one request to the MCP server, but each `tools/call` in it runs at once, side by
 * side (the SDK hands every message of a batch to the server before any answers). An agent that
 * marks a page of notifications read in one batch, as the start page marks several in one request
 * (POST /startpage/notifications/read), must see each marked, not some refused as "Internal
 * error" because the calls raced one another over the person's one read state; and nothing it
 * sends makes the server log an "unhandled error", the line the operator's alert counts. Today the
 * 100 transactions on one document time out on their locks: the request is answered 503 at the
 * request deadline, a few notifications are marked, and each other call logs "unhandled error".
 */
import request from "supertest";
import { notify } from "../../src/core/startpage/notifications";
import * as notifications from "../../src/store/notifications";
import { recordingLogger } from "../support/email-codes";
import { mcpWorld, signedInAgent, type McpWorld } from "../support/mcp";

const CALLS = 100;

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

it(`marks each of ${CALLS} notifications read in one batch, and logs no unhandled error`, async () => {
  const { person, token } = await signedInAgent(world);
  const ids: string[] = [];
  for (let i = 0; i < CALLS; i++)
    ids.push(
      await notify(world.deps, { title: `n${i}`, body: "b", link: null, level: "info", personIds: [person.id] }),
    );
  const batch = ids.map((id, i) => ({
    jsonrpc: "2.0",
    id: i + 1,
    method: "tools/call",
    params: { name: "mark_notification_read", arguments: { id } },
  }));
  const res = await request(base)
    .post("/mcp")
    .set("Authorization", `Bearer ${token}`)
    .set("Accept", "application/json, text/event-stream")
    .send(batch);
  // Whatever the answer, the calls go on in the background: wait until each has marked its
  // notification or failed, so the figures below are final.
  const unhandled = () => log.lines.filter((l) => l.includes("unhandled error")).length;
  const marked = async () => (await notifications.readState(world.deps.store, person.id)).readIds.length;
  for (let i = 0; i < 60 && (await marked()) + unhandled() < CALLS; i++) await new Promise((r) => setTimeout(r, 500));
  const answers = Array.isArray(res.body) ? (res.body as Array<{ result?: { isError?: boolean } }>) : [];
  expect({
    status: res.status,
    callsRefused: answers.filter((a) => a.result?.isError === true).length,
    unhandledErrorsLogged: unhandled(),
    marked: await marked(),
  }).toEqual({ status: 200, callsRefused: 0, unhandledErrorsLogged: 0, marked: CALLS });
}, 60_000);
