/**
 * A real browser (Debian's Chromium through playwright-core) on the sites as people meet them:
 * https on the parent domain's hosts. An https front on loopback, with a certificate made for
 * the run, stands in for the hosting: `example.test` is the service (the Hosting emulator's
 * service site), `id.example.test` the identity host's site, and any other host (an app host,
 * a foreign site) gets a blank page of its own, from which the test's scripts run. Chromium's
 * resolver sends each of those names, port 443, to the front.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Hosts outside the parent domain, for a foreign site. */
export const FOREIGN_HOST = "elsewhere.test";

export interface BrowserWorld {
  browser: Browser;
  /** A fresh profile: its own cookies. */
  context(): Promise<BrowserContext>;
  close(): Promise<void>;
}

function certificate(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), "browser-cert-"));
  try {
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-subj", "/CN=example.test", "-addext", `subjectAltName=DNS:example.test,DNS:*.example.test,DNS:${FOREIGN_HOST}`, "-days", "1"], { stdio: "ignore" });
    return { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function front(targets: Record<string, string>): Server {
  return createServer(certificate(), (req, res) => {
    const host = (req.headers.host ?? "").replace(/:\d+$/, "");
    const target = targets[host];
    if (target === undefined) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return void res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${host}</title></head><body><p>${host}</p></body></html>`);
    }
    const to = new URL(target);
    const upstream = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
}

/** `targets` replaces where a host is served from (e.g. the service as an app in the test's own process). */
export async function startBrowserWorld(targets: Record<string, string> = {}): Promise<BrowserWorld> {
  const server = front({ "example.test": process.env.STACK_BASE_URL as string, "id.example.test": process.env.STACK_ID_URL as string, ...targets });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const rules = ["example.test", "*.example.test", FOREIGN_HOST].map((h) => `MAP ${h}:443 127.0.0.1:${port}`).join(", ");
  // Without the background-networking flags Chromium keeps dialling out, and this machine refuses.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", `--host-resolver-rules=${rules}`],
  });
  return {
    browser,
    context: () => browser.newContext({ ignoreHTTPSErrors: true }),
    close: async () => {
      await browser.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
