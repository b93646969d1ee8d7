/**
 * An https server on loopback with a certificate made for the test run, serving OAuth clients'
 * metadata documents (core/oidc/metadata-documents) as a test sets them: the origin and the
 * certificate authority the provider is told to trust for it (OIDC_METADATA_DEV_ORIGINS's test
 * form), and what each path was asked.
 */
import https from "node:https";
import type { AddressInfo } from "node:net";
import { loopbackCertificate } from "./certificate";

export interface Served {
  status?: number;
  headers?: Record<string, string>;
  body: string;
}

export interface DocumentServer {
  origin: string;
  ca: string;
  /** What `path` answers from now on: a document as JSON (`client_id` set to its URL unless given), or an answer as it is. */
  serve(path: string, answer: Record<string, unknown> | Served, cacheControl?: string): string;
  /** How many requests `path` has had. */
  hits(path: string): number;
  close(): Promise<void>;
}

export async function documentServer(): Promise<DocumentServer> {
  const { key, cert: ca } = loopbackCertificate();
  const answers = new Map<string, Served>();
  const counts = new Map<string, number>();
  const server = https.createServer({ key, cert: ca }, (req, res) => {
    const path = req.url ?? "/";
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const answer = answers.get(path) ?? { status: 404, body: "not here" };
    res.writeHead(answer.status ?? 200, answer.headers ?? {}).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    ca,
    serve(path, answer, cacheControl) {
      const url = `${origin}${path}`;
      const served: Served =
        typeof answer.body === "string"
          ? (answer as Served)
          : {
              headers: {
                "Content-Type": "application/json",
                ...(cacheControl ? { "Cache-Control": cacheControl } : {}),
              },
              body: JSON.stringify({ client_id: url, ...answer }),
            };
      answers.set(path, served);
      return url;
    },
    hits: (path) => counts.get(path) ?? 0,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
