/**
 * A local OpenID 2.0 provider for the `gaming` bridge: what `npm start` and the tests sign in
 * against instead of the real one. It speaks the parts of OpenID 2.0 the bridge uses:
 * `checkid_setup` (a page to pick an account, or `account=<digits>` to answer at once), a
 * positive assertion signed with HMAC-SHA256, and `check_authentication`, which honours each
 * assertion once.
 *
 * `node tools/gaming-provider.ts --port 5010` serves it (port 0: any free port; the first line
 * printed names the endpoint). `POST /__control` with
 * `{ "mode": "normal" | "refuse" | "no-id" | "hang" }` makes it misbehave for fault tests
 * (`GET /__control` reports the mode and the check_authentication requests seen and held):
 * `refuse` answers `is_valid:false`, `no-id` asserts an identifier without an account number,
 * `hang` accepts check_authentication requests and never answers them.
 */
import { createHmac, randomBytes } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import { HeldRequests, html, listen, readBody, serveFromCommandLine } from "./stack/local-provider.ts";

export const OPENID_NS = "http://specs.openid.net/auth/2.0";
const SIGNED = "signed,op_endpoint,claimed_id,identity,return_to,response_nonce,assoc_handle";

export type ProviderMode = "normal" | "refuse" | "no-id" | "hang";

export interface GamingProvider {
  /** The OP endpoint: what GAMING_OPENID_ENDPOINT names. */
  endpoint: string;
  port: number;
  setMode(mode: ProviderMode): void;
  /** check_authentication requests received, and how many are being held unanswered. */
  stats(): { checks: number; held: number };
  close(): Promise<void>;
}

function keyValue(fields: Array<[string, string]>): string {
  return fields.map(([k, v]) => `${k}:${v}\n`).join("");
}

export async function startGamingProvider(port = 0, host = "127.0.0.1"): Promise<GamingProvider> {
  const secret = randomBytes(32);
  const usedNonces = new Set<string>();
  const held = new HeldRequests();
  let mode: ProviderMode = "normal";
  let checks = 0;
  let endpoint = "";

  const sign = (params: URLSearchParams): string => {
    const fields = SIGNED.split(",").map((name): [string, string] => [name, params.get(`openid.${name}`) ?? ""]);
    return createHmac("sha256", secret).update(keyValue(fields)).digest("base64");
  };

  const assertion = (returnTo: string, account: string): string => {
    const origin = new URL(endpoint);
    const claimed = mode === "no-id" ? `${origin.origin}/openid/id/` : `${origin.origin}/openid/id/${account}`;
    const params = new URLSearchParams({
      "openid.ns": OPENID_NS,
      "openid.mode": "id_res",
      "openid.op_endpoint": endpoint,
      "openid.claimed_id": claimed,
      "openid.identity": claimed,
      "openid.return_to": returnTo,
      "openid.response_nonce": `${new Date().toISOString().replace(/\.\d+Z$/, "Z")}${randomBytes(8).toString("hex")}`,
      "openid.assoc_handle": "1234567890",
      "openid.signed": SIGNED,
    });
    params.set("openid.sig", sign(params));
    const target = new URL(returnTo);
    for (const [k, v] of params) target.searchParams.set(k, v);
    return target.toString();
  };

  const checkAuthentication = (res: ServerResponse, params: URLSearchParams): void => {
    checks++;
    if (mode === "hang") {
      held.hold(res);
      return;
    }
    const nonce = params.get("openid.response_nonce") ?? "";
    const valid =
      mode !== "refuse" &&
      params.get("openid.signed") === SIGNED &&
      params.get("openid.sig") === sign(params) &&
      nonce !== "" &&
      !usedNonces.has(nonce);
    if (valid) usedNonces.add(nonce);
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    res.end(
      keyValue([
        ["ns", OPENID_NS],
        ["is_valid", String(valid)],
      ]),
    );
  };

  const login = (res: ServerResponse, params: URLSearchParams): void => {
    const returnTo = params.get("openid.return_to") ?? "";
    if (params.get("openid.mode") !== "checkid_setup" || !/^https?:\/\//.test(returnTo)) {
      res.writeHead(400, { "content-type": "text/plain" });
      return void res.end("not an OpenID 2.0 checkid_setup request\n");
    }
    // The page's Cancel button is sent beside the account field: it wins.
    const account = params.getAll("account").includes("cancel") ? "cancel" : params.get("account");
    if (account !== null) {
      if (account === "cancel") {
        const back = new URL(returnTo);
        back.searchParams.set("openid.ns", OPENID_NS);
        back.searchParams.set("openid.mode", "cancel");
        res.writeHead(302, { location: back.toString() });
        return void res.end();
      }
      res.writeHead(302, { location: assertion(returnTo, account) });
      return void res.end();
    }
    const hidden = [...params].map(([k, v]) => `<input type="hidden" name="${html(k)}" value="${html(v)}">`).join("");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Gaming sign-in (local)</title></head><body><main>` +
        `<h1>Sign in with a gaming account (local provider)</h1><form method="get" action="">${hidden}` +
        `<label>Account number <input name="account" value="76561190000000001" pattern="[0-9]{1,20}"></label> ` +
        `<button>Sign in</button> <button name="account" value="cancel">Cancel</button></form></main></body></html>`,
    );
  };

  const setMode = (next: ProviderMode): void => {
    mode = next;
    // Leaving `hang`: the held requests fail now, as a provider that comes back drops them.
    if (next !== "hang") held.drop();
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", endpoint);
      if (url.pathname === "/__control") {
        if (req.method === "POST") {
          const body = JSON.parse((await readBody(req)) || "{}") as { mode?: ProviderMode };
          if (body.mode) setMode(body.mode);
        }
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ mode, checks, held: held.size }));
      }
      if (url.pathname !== "/openid/login") {
        res.writeHead(404);
        return void res.end();
      }
      if (req.method === "POST") {
        const params = new URLSearchParams(await readBody(req));
        if (params.get("openid.mode") === "check_authentication") return checkAuthentication(res, params);
        res.writeHead(400);
        return void res.end();
      }
      login(res, url.searchParams);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  const { port: bound, close } = await listen(server, port, host, held);
  endpoint = `http://${host}:${bound}/openid/login`;
  return { endpoint, port: bound, setMode, stats: () => ({ checks, held: held.size }), close };
}

// Run directly: serve until stopped.
if (import.meta.url === `file://${process.argv[1]}`)
  await serveFromCommandLine(
    5010,
    (port) => startGamingProvider(port),
    (p) => `gaming provider (OpenID 2.0) at ${p.endpoint}`,
  );
