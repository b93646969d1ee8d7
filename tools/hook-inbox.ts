/**
 * The local stack's inbox for event deliveries, as maildev is its inbox for mail: it stands for
 * the family's apps, takes each signed webhook the service posts and shows it, with whether its
 * signature verifies. It verifies as an app does, with the registry's `standardwebhooks`, under
 * each secret it is given, and answers as an app does: 204 to a delivery that verifies, 401 to one
 * that does not (which the service then retries, as it would for a real app).
 *
 * `node tools/hook-inbox.ts --port 5020 --secret whsec_… [--secret whsec_…]` serves it (port 0:
 * any free port; the first line printed names its address); secrets may also come, comma-separated,
 * in HOOK_INBOX_SECRETS, which is how the stack passes the seed's (none: nothing verifies).
 * - `POST /<app>`: a delivery to the app named by the path (1 MB at most);
 * - `GET /deliveries[?app=<app>]`: `{ deliveries: [...] }`, newest first (the last 500 are kept);
 *   `DELETE /deliveries` forgets them;
 * - `GET /`: the same as a page; `GET /health`: 200 once it listens.
 */
import { createRequire } from "node:module";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { deliveriesPage, WEBHOOK_HEADERS, type Delivery } from "./stack/hook-inbox-page.ts";
import { HeldRequests, listen, serveFromCommandLine } from "./stack/local-provider.ts";

/** The part of `standardwebhooks` used here: it lives with the functions, which depend on it. */
interface WebhookLibrary {
  Webhook: new (secret: string) => {
    verify(payload: string, headers: Record<string, string>, options?: { jsonParse?: boolean }): unknown;
  };
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { Webhook } = createRequire(join(root, "functions", "package.json"))("standardwebhooks") as WebhookLibrary;

const BODY_LIMIT = 1024 * 1024;
const KEPT = 500;
/** Paths of the inbox itself: every other single segment names an app. */
const RESERVED = ["deliveries", "health"];

export interface HookInbox {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The body, or null when it is over the limit (read to its end all the same, so the answer reaches the sender). */
async function readCapped(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= BODY_LIMIT) chunks.push(chunk);
  }
  return size > BODY_LIMIT ? null : Buffer.concat(chunks).toString("utf8");
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startHookInbox(port = 0, secrets: string[] = [], host = "127.0.0.1"): Promise<HookInbox> {
  // Each secret is read once, here: a malformed one stops the inbox at its start, not at a delivery.
  const verifiers = secrets.map((secret) => new Webhook(secret));
  let deliveries: Delivery[] = [];

  /** Verified as an app verifies: the raw body and the three headers, under any secret it knows. */
  const verify = (body: string, headers: Record<string, string>): string | null => {
    if (verifiers.length === 0) return "the inbox was given no secret";
    let failure = "";
    for (const verifier of verifiers) {
      try {
        verifier.verify(body, headers, { jsonParse: false });
        return null;
      } catch (err) {
        failure = err instanceof Error ? err.message : String(err);
      }
    }
    return failure;
  };

  const receive = async (req: IncomingMessage, res: ServerResponse, app: string): Promise<void> => {
    if (Number(req.headers["content-length"] ?? 0) > BODY_LIMIT) {
      res.writeHead(413, { connection: "close" });
      return void res.end();
    }
    const body = await readCapped(req);
    if (body === null) {
      res.writeHead(413);
      return void res.end();
    }
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(", ") : (value ?? null);
    };
    const headers = Object.fromEntries(WEBHOOK_HEADERS.map((name) => [name, header(name)])) as Delivery["headers"];
    const failure = verify(
      body,
      Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== null)),
    );
    const delivery: Delivery = {
      app,
      receivedAt: new Date().toISOString(),
      headers,
      body: parsed(body),
      verified: failure === null,
      failure,
    };
    deliveries = [delivery, ...deliveries].slice(0, KEPT);
    // An app refuses a delivery it cannot verify: the service keeps it and tries again.
    res.writeHead(failure === null ? 204 : 401);
    res.end();
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://inbox");
      const name = /^\/([^/]+)$/.exec(url.pathname)?.[1];
      const path = name === undefined || RESERVED.includes(name) ? url.pathname : "/<app>";
      switch (`${req.method} ${path}`) {
        case "GET /health":
          res.writeHead(200, { "content-type": "text/plain" });
          return void res.end("ok\n");
        case "GET /deliveries": {
          const app = url.searchParams.get("app");
          const chosen = app === null ? deliveries : deliveries.filter((d) => d.app === app);
          res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
          return void res.end(JSON.stringify({ deliveries: chosen }));
        }
        case "DELETE /deliveries":
          deliveries = [];
          res.writeHead(204);
          return void res.end();
        case "GET /":
          res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
          return void res.end(deliveriesPage(deliveries, verifiers.length));
        case "POST /<app>":
          return receive(req, res, name as string);
        default:
          res.writeHead(["/", "/deliveries", "/health", "/<app>"].includes(path) ? 405 : 404);
          return void res.end();
      }
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  const { port: bound, close } = await listen(server, port, host, new HeldRequests());
  return { url: `http://${host}:${bound}/`, port: bound, close };
}

/** Every `--secret` given, then HOOK_INBOX_SECRETS' (comma-separated). */
function secretsGiven(): string[] {
  const given = process.argv.flatMap((arg, i) => (process.argv[i - 1] === "--secret" ? [arg] : []));
  const fromEnv = (process.env.HOOK_INBOX_SECRETS ?? "").split(",").map((s) => s.trim());
  return [...given, ...fromEnv].filter((s) => s !== "");
}

// Run directly: serve until stopped.
if (import.meta.url === `file://${process.argv[1]}`)
  await serveFromCommandLine(
    5020,
    (port) => startHookInbox(port, secretsGiven()),
    (inbox) => `webhook inbox at ${inbox.url}`,
  );
