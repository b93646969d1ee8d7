/**
 * What the stack's local sign-in providers (gaming-provider.ts, federated-provider.ts) share: a
 * small HTTP server with a control endpoint, requests it can hold unanswered (the `hang` fault),
 * and a command line that serves until stopped.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Requests a provider in its `hang` mode keeps without answering; a provider that comes back drops them. */
export class HeldRequests {
  private readonly held = new Set<ServerResponse>();
  get size(): number {
    return this.held.size;
  }
  hold(res: ServerResponse): void {
    this.held.add(res);
    res.on("close", () => this.held.delete(res));
  }
  drop(): void {
    for (const r of this.held) r.destroy();
  }
}

/** Listens on `port` (0: any free one); resolves with the bound port and a close that also ends held requests. */
export function listen(
  server: Server,
  port: number,
  host: string,
  held: HeldRequests,
): Promise<{ port: number; close: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            held.drop();
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** `node <provider>.ts --port N`: starts it, prints the line naming where it is, serves until SIGINT or SIGTERM. */
export async function serveFromCommandLine<P extends { close(): Promise<void> }>(
  defaultPort: number,
  start: (port: number) => Promise<P>,
  announce: (provider: P) => string,
): Promise<void> {
  const at = process.argv.indexOf("--port");
  const port = at > 0 ? Number(process.argv[at + 1]) : defaultPort;
  const provider = await start(port);
  console.log(announce(provider));
  const stop = () => void provider.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
