/**
 * The apps' endpoints for the events scenario (11), in the bench's process: each answers 204 to
 * every POST, checks the delivery's Standard Webhooks signature with the secret its subscription
 * was given, and notes the `webhook-id` and when it came; then what came is summed up per app
 * against what was published.
 */
import { createServer, type Server } from "node:http";
import { requireFromFunctions } from "../lib/functions.ts";
import { now, percentile } from "./measure.ts";

const { Webhook } = requireFromFunctions("standardwebhooks");

export interface Receiver {
  app: string;
  url: string;
  /** Each delivery's `webhook-id` and when it came (ms on the run's clock), in order of arrival. */
  arrivals: Array<{ id: string; at: number }>;
  /** Distinct ids received. */
  ids: Set<string>;
  /** Deliveries whose signature did not verify, or whose body's id was not their `webhook-id`. */
  badSignatures: number;
  /** The signing secret, known once the app is subscribed. */
  secret: string;
  server: Server;
}

export async function startReceiver(app: string): Promise<Receiver> {
  const receiver: Receiver = {
    app,
    url: "",
    arrivals: [],
    ids: new Set(),
    badSignatures: 0,
    secret: "",
    server: createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const at = now();
        const body = Buffer.concat(chunks).toString("utf8");
        const id = String(req.headers["webhook-id"]);
        try {
          const event = new Webhook(receiver.secret).verify(body, req.headers) as { id?: string };
          if (event.id !== id) receiver.badSignatures++;
        } catch {
          receiver.badSignatures++;
        }
        receiver.arrivals.push({ id, at });
        receiver.ids.add(id);
        res.writeHead(204).end();
      });
    }),
  };
  await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as { port: number }).port}/events`;
  return receiver;
}

export const closeReceiver = (r: Receiver): Promise<void> =>
  new Promise((resolve) => {
    r.server.closeAllConnections();
    r.server.close(() => resolve());
  });

export interface Arrived {
  app: string;
  /** Published events that came at least once. */
  received: number;
  /** Events that came more than once. */
  duplicates: number;
  /** Ids that came and were never published. */
  strangers: number;
  /** ms from each event's publishing to its first arrival. */
  latency: number[];
  p50: number;
  p99: number;
  badSignatures: number;
}

/** What came to `r`, against `published` (each event's id, with when its transaction committed). */
export function arrived(r: Receiver, published: Map<string, number>): Arrived {
  const times = new Map<string, number>();
  for (const a of r.arrivals) times.set(a.id, (times.get(a.id) ?? 0) + 1);
  const firsts = new Map<string, number>();
  for (const a of r.arrivals) if (!firsts.has(a.id)) firsts.set(a.id, a.at);
  const latency = [...firsts].flatMap(([id, at]) => {
    const p = published.get(id);
    return p === undefined ? [] : [at - p];
  });
  return {
    app: r.app,
    received: [...published.keys()].filter((id) => times.has(id)).length,
    duplicates: [...times.values()].filter((n) => n > 1).length,
    strangers: [...times.keys()].filter((id) => !published.has(id)).length,
    latency,
    p50: percentile(latency, 50),
    p99: percentile(latency, 99),
    badSignatures: r.badSignatures,
  };
}
