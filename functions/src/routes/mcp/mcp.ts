import { Router, type Request, type Response } from "express";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { calendarSource } from "../../core/calendar/calendar";
import type { Deps } from "../../core/deps";
import { AppError, ensure } from "../../core/errors";
import { missingScopes } from "../../core/oidc/resource-tokens";
import { isJson, rawBody } from "../../http/body";
import { requireResourceToken } from "../../http/gate";
import { challengeWith, mcpErrors } from "../../http/presenters";
import { errorText } from "../../logger";
import { MCP_SCOPES, mcpServer, TOOL_SCOPES } from "./tools";

export const presenter = mcpErrors;

/** The tools serve the start page's own data: the person needs what the start page needs. */
const PROJECT = { project: "startpage" } as const;

/** A JSON-RPC message to this server is small; the largest is a tool's arguments. */
const MESSAGE_LIMIT_BYTES = 64 * 1024;
/**
 * The most messages one batch may hold. The MCP revisions since 2025-06-18 send none; an older
 * client's batch runs its calls one after another (tools.ts), and must end inside the request's time.
 */
export const BATCH_MAX = 20;

/** Where RFC 9728 §3.1 puts the metadata of the resource at `/mcp`: the well-known name before its path. */
const METADATA_PATH = "/.well-known/oauth-protected-resource/mcp";

/** The metadata document's URL, on the resource's own origin (MCP_RESOURCE_URL's path is `/mcp`, config). */
export const metadataUrlOf = (resource: string): string => `${new URL(resource).origin}${METADATA_PATH}`;

/** The message, read as sent: JSON, an object or a batch of them; anything else is a JSON-RPC parse error. */
async function readMessage(req: Request): Promise<unknown> {
  ensure(isJson(req), "unsupported_media_type");
  const raw = await rawBody(req, MESSAGE_LIMIT_BYTES);
  let message: unknown;
  try {
    message = JSON.parse(raw.toString("utf8"));
  } catch {
    throw new AppError("malformed_json");
  }
  ensure(typeof message === "object" && message !== null, "malformed_json", "A JSON-RPC message is an object");
  // An empty batch asks nothing, and JSON-RPC calls it invalid (§6); the SDK would accept it.
  ensure(!Array.isArray(message) || message.length > 0, "malformed_request", "An empty batch is not a request");
  ensure(
    !Array.isArray(message) || message.length <= BATCH_MAX,
    "malformed_request",
    `A batch holds at most ${BATCH_MAX} messages`,
  );
  return message;
}

/** The scopes the tool calls in `message` need (a batch's, all of them): those of the tools it names. */
function scopesCalledFor(message: unknown): string[] {
  const scopes = (Array.isArray(message) ? message : [message]).flatMap((m: unknown) => {
    const call = m as { method?: unknown; params?: { name?: unknown } } | null;
    if (call?.method !== "tools/call") return [];
    const name = call.params?.name;
    return typeof name === "string" && Object.hasOwn(TOOL_SCOPES, name)
      ? [TOOL_SCOPES[name as keyof typeof TOOL_SCOPES]]
      : [];
  });
  return [...new Set(scopes)];
}

export function routes(deps: Deps): Router {
  const router = Router();
  const calendar = calendarSource(deps);
  const resource = () => deps.config.mcpResourceUrl;
  const metadataUrl = () => metadataUrlOf(resource());

  // RFC 9728 §3: public, the same for everyone, so any cache may keep it for a while.
  router.get(METADATA_PATH, function protectedResourceMetadata(_req: Request, res: Response) {
    res.setHeader("Cache-Control", "public, max-age=3600");
    res.json({
      resource: resource(),
      authorization_servers: [deps.config.serviceUrl],
      scopes_supported: MCP_SCOPES,
      bearer_methods_supported: ["header"],
      resource_name: "The family's start page",
    });
  });

  router.post("/mcp", async function mcp(req: Request, res: Response) {
    challengeWith(res, { resourceMetadata: metadataUrl() });
    const grant = await requireResourceToken(deps, req, resource(), PROJECT);
    const message = await readMessage(req);
    // The MCP authorization spec's answer to a call the token has no scope for: 403 and a challenge
    // naming the scopes the call needs, so that the client can ask the person for them.
    const needed = scopesCalledFor(message);
    if (missingScopes(grant, needed).length > 0) {
      challengeWith(res, { resourceMetadata: metadataUrl(), scope: needed.join(" ") });
      throw new AppError("resource_scope_insufficient");
    }
    // Stateless: no session id, nothing kept between requests; a server and transport per request.
    const server = mcpServer(deps, calendar, grant);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    transport.onerror = (error) => deps.log.warn("an MCP request failed in its transport", { error: errorText(error) });
    res.once("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  });

  // No sessions to resume or end, and no stream of the server's own (MCP Streamable HTTP §2.2, §2.5).
  router.all("/mcp", function mcpOtherMethod(_req: Request, res: Response) {
    challengeWith(res, { resourceMetadata: metadataUrl() });
    res.setHeader("Allow", "POST");
    throw new AppError("method_not_allowed");
  });

  return router;
}
