import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { nextEvents, type CalendarSource } from "../../core/calendar/calendar";
import type { Deps } from "../../core/deps";
import { AppError, rowFor } from "../../core/errors";
import { missingScopes, type ResourceGrant } from "../../core/oidc/resource-tokens";
import { markOneRead, notificationsFor } from "../../core/startpage/notifications";
import { errorText } from "../../logger";
import { isUnavailable } from "../../core/failures";

/**
 * The scope each tool needs, the one table the HTTP gate (mcp.ts, before the call is made) and
 * each tool (on its own call) read. What the operator registers the resource with.
 */
export const TOOL_SCOPES = {
  list_notifications: "notifications:read",
  mark_notification_read: "notifications:write",
  next_events: "calendar:read",
} as const;

export type ToolName = keyof typeof TOOL_SCOPES;

export const MCP_SCOPES = [...new Set(Object.values(TOOL_SCOPES))];

const result = (value: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  structuredContent: value,
});

const refusal = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });

/**
 * Runs a tool's work for the grant: a refusal of ours is the tool's error (the model reads it and
 * may do otherwise), in the catalogue's words; anything else is logged once and told as an
 * internal error, its text never shown.
 */
async function run(
  deps: Pick<Deps, "log">,
  grant: ResourceGrant,
  tool: ToolName,
  work: () => Promise<Record<string, unknown>>,
): Promise<CallToolResult> {
  // The gate refused the call already (403); this keeps a tool from ever running without its scope.
  if (missingScopes(grant, [TOOL_SCOPES[tool]]).length > 0)
    return refusal(`This token lacks the ${TOOL_SCOPES[tool]} scope`);
  try {
    return result(await work());
  } catch (err) {
    if (err instanceof AppError) return refusal(err.detail ?? rowFor(err.code).message);
    // A backend that could not answer (Firestore's contention past its retries among them): the
    // gate's warning, and the tool's error says to try again; nothing a caller sends is an ERROR.
    if (isUnavailable(err)) {
      deps.log.warn("a backend could not answer", { path: "/mcp", tool, error: errorText(err) });
      return refusal("Temporarily unavailable; try again shortly");
    }
    // The same line as the app's own for what no rule expected, so the same alert counts it.
    deps.log.error("unhandled error", { path: "/mcp", tool, error: err instanceof Error ? err.stack : errorText(err) });
    return refusal("Internal error");
  }
}

/** A notification's id as the start page makes them (core/startpage/notifications): time, then randomness. */
const notificationId = z.string().regex(/^[0-9]{13}-[A-Za-z0-9_-]{1,32}$/);

/**
 * The server for one request, for the person and scopes of its token: built afresh for every
 * request (stateless, as instances come and go), its tools calling the same rules the start page's
 * and the calendar's routes call.
 */
export function mcpServer(deps: Deps, calendar: CalendarSource, grant: ResourceGrant): McpServer {
  const server = new McpServer({ name: "family-startpage", version: "1.0.0" });
  const personId = grant.person.id;
  // The calls of one request (a batch's) run one after another, as a person's own clicks would:
  // side by side they would only race each other over the person's documents.
  let last: Promise<unknown> = Promise.resolve();
  const inTurn = (tool: ToolName, work: () => Promise<Record<string, unknown>>): Promise<CallToolResult> => {
    const turn = last.then(() => run(deps, grant, tool, work));
    last = turn.catch(() => undefined);
    return turn;
  };

  server.registerTool(
    "list_notifications",
    {
      title: "List notifications",
      description:
        "The signed-in person's start-page notifications, newest first, as the start page shows them: each with id, title, body, link, level (info, warning, critical), createdAt and whether it is read. `next` is the cursor for the page after, to pass as `before`.",
      inputSchema: {
        limit: z.number().int().min(1).max(50).default(20).describe("How many, at most 50"),
        before: z.string().max(64).optional().describe("The `next` of the page before, for the page after it"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ limit, before }) =>
      inTurn("list_notifications", async () => ({
        ...(await notificationsFor(deps, personId, limit, before ?? null)),
      })),
  );

  server.registerTool(
    "mark_notification_read",
    {
      title: "Mark a notification read",
      description:
        "Marks one of the person's notifications read, by its id (from list_notifications). An id that is not one of theirs is not found.",
      inputSchema: { id: notificationId.describe("The notification's id") },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ id }) =>
      inTurn("mark_notification_read", async () => {
        await markOneRead(deps, personId, id);
        return { ok: true, id };
      }),
  );

  server.registerTool(
    "next_events",
    {
      title: "Next calendar events",
      description:
        "The shared family calendar's next events, in progress ones first, in order: title, location, allDay, start and end (dates YYYY-MM-DD for all-day events, end exclusive; UTC instants otherwise). `available: false` when the calendar cannot be read.",
      inputSchema: {
        limit: z.number().int().min(1).max(50).default(10).describe("How many events, at most 50"),
        days: z.number().int().min(1).max(31).default(14).describe("How many days ahead to look, at most 31"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ limit, days }) => inTurn("next_events", () => nextEvents(calendar, deps.clock.now(), { limit, days })),
  );

  return server;
}
