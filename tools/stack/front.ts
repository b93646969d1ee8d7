/**
 * The local stack as a browser meets the deployed service: https on the real host names. One
 * https server takes every host of the parent domain (a browser is pointed at it by a resolver
 * rule or /etc/hosts, see tools/browser.ts) and hands each to what serves it there:
 *
 *   <parent>, www.<parent>   the service's Hosting site
 *   id.<parent>              the identity host's Hosting site
 *   <app>.<parent>           the paths that app's Hosting site rewrites to a function (firebase.json,
 *                            from functions/src/paths.ts), to that function as the Hosting site would
 *                            send them; any other path a small stand-in for that app: who is signed
 *                            in, sign in, sign out
 *   any other host           a blank page of its own (a foreign site, for tests)
 *
 * The Host header goes through unchanged, so the functions see the host the browser addressed
 * (Hosting's X-Forwarded-Host), as behind the deployed Hosting.
 */
import { createServer, type Server } from "node:https";
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { html } from "./local-provider.ts";
import type { Tls } from "./tls.ts";

export interface FrontOptions {
  parentDomain: string;
  serviceSite: string;
  idSite: string;
  appHosts: string[];
  /** Each app host's rewrites (`/a`, `/a/**`, and the function each goes to), as its own Hosting site's. */
  appRewrites: Record<string, ReadonlyArray<{ source: string; functionId: string }>>;
  /** The functions emulator's address for the project and region: `<functions>/<functionId>` serves one. */
  functions: string;
  tls: Tls;
}

/** Whether Hosting's rewrite `source` (an exact path, or one ending in `/**`) takes `url`. */
function rewrites(source: string, url: string): boolean {
  const path = url.split("?")[0] as string;
  return source.endsWith("/**") ? path.startsWith(source.slice(0, -2)) : path === source;
}

/** Sends the request on to `target`, its path after the target's own. */
function proxy(req: IncomingMessage, res: ServerResponse, target: string): void {
  const to = new URL(target);
  const path = `${to.pathname.replace(/\/$/, "")}${req.url ?? "/"}`;
  const upstream = httpRequest(
    { host: to.hostname, port: to.port, method: req.method, path, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", () => {
    if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
    res.end("The local stack is not answering on this host.\n");
  });
  req.pipe(upstream);
}

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; connect-src https:; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "cache-control": "no-store",
};

function appPage(host: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${host}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;line-height:1.5}a,button{font:inherit}</style>
<script type="module" src="/__app.js"></script></head>
<body><main><h1>${host}</h1><p>A stand-in for this app on the local stack: it asks the service who is signed in, as the app's own script would.</p>
<p id="who" role="status">Checking…</p><p><a id="sign-in" href="#">Sign in</a> <button id="sign-out" type="button" hidden>Sign out</button></p></main></body></html>`;
}

function appScript(service: string, idSite: string, project: string): string {
  return `const who = document.getElementById("who"), signIn = document.getElementById("sign-in"), signOut = document.getElementById("sign-out");
signIn.href = ${JSON.stringify(idSite)} + "/?redirect=" + encodeURIComponent(location.origin + "/") + "&project=" + ${JSON.stringify(project)};
async function check() {
  const res = await fetch(${JSON.stringify(service)} + "/auth/session/refresh", { method: "POST", credentials: "include" }).catch(() => null);
  const body = res && res.ok ? await res.json() : null;
  who.textContent = body ? "Signed in as " + (body.email || body.name) + "." : "Not signed in.";
  signIn.hidden = body !== null;
  signOut.hidden = body === null;
}
signOut.addEventListener("click", async () => { await fetch(${JSON.stringify(service)} + "/auth/logout", { method: "POST", credentials: "include" }); await check(); });
check();
`;
}

export function startFront(port: number, options: FrontOptions): Promise<Server> {
  const { parentDomain: domain } = options;
  const service = `https://${domain}`;
  const idSite = `https://id.${domain}`;
  const server = createServer({ key: options.tls.key, cert: options.tls.cert }, (req, res) => {
    const host = (req.headers.host ?? "").replace(/:\d+$/, "").toLowerCase();
    if (host === domain || host === `www.${domain}`) return proxy(req, res, options.serviceSite);
    if (host === `id.${domain}`) return proxy(req, res, options.idSite);
    const app = options.appHosts.find((a) => host === `${a}.${domain}`);
    if (app !== undefined) {
      const rewrite = (options.appRewrites[app] ?? []).find((r) => rewrites(r.source, req.url ?? "/"));
      if (rewrite !== undefined) return proxy(req, res, `${options.functions}/${rewrite.functionId}`);
      // The start page's project covers its calendar and location hosts; status has its own.
      const project = app === "status" ? "status" : "startpage";
      if (req.url === "/__app.js")
        return void res
          .writeHead(200, { "content-type": "text/javascript", "cache-control": "no-store" })
          .end(appScript(service, idSite, project));
      return void res.writeHead(200, PAGE_HEADERS).end(appPage(host));
    }
    const name = html(host);
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title></head><body><main><p>${name}</p></main></body></html>`,
      );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}
