/**
 * A local OpenID Connect provider behind the `federated` bridge: what `npm start` and the tests
 * sign in against instead of a real one. It speaks the parts the bridge uses: discovery, the
 * authorization code flow with PKCE (S256) and a nonce, client_secret_basic (or _post) at the
 * token endpoint, and RS256 ID tokens under a published key. One client is registered. Asked
 * without the `openid` scope it acts as a plain OAuth 2.0 provider: an access token, no ID token.
 *
 * `node tools/federated-provider.ts --port 5015` serves it (port 0: any free port; the first line
 * printed names the issuer). `GET /authorize` shows a page to pick an account, or takes
 * `account=<sub>` (with `email=`, `email_verified=true|false`, `name=`) and answers at once;
 * `account=cancel` answers `error=access_denied`. `POST /__control` with `{ "mode": ... }` makes
 * the token endpoint misbehave for fault tests (`GET /__control` reports the mode, the token
 * requests seen and those held): `refuse` answers invalid_grant, `no-sub` issues an ID token
 * without `sub`, `bad-signature` signs with a key it does not publish, `wrong-nonce` puts another
 * nonce in, `other-azp` issues a token for two audiences to another client, `hang` never answers.
 *
 * Asked with `response_mode=form_post`, it answers as a device maker's provider does: a page that
 * POSTs `code`, `state` (and `iss`) to the redirect URI, form-encoded, with a `user` JSON field
 * (`{"name":{"firstName","lastName"},"email"}`) on an account's first sign-in only; the name is
 * then in no token, as at a device maker's.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { HeldRequests, html, listen, readBody, serveFromCommandLine } from "./stack/local-provider.ts";

export const CLIENT_ID = "local-federated-client";
export const CLIENT_SECRET = "local-federated-secret";
const CODE_LIFETIME_MS = 60_000;

export type FederatedMode = "normal" | "refuse" | "no-sub" | "bad-signature" | "wrong-nonce" | "other-azp" | "hang";

export interface FederatedProvider {
  issuer: string;
  port: number;
  setMode(mode: FederatedMode): void;
  /** Token requests received, and how many are being held unanswered. */
  stats(): { tokens: number; held: number };
  close(): Promise<void>;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  nonce: string | null;
  /** Asked for `openid`: an ID token goes with the access token. */
  openid: boolean;
  codeChallenge: string | null;
  sub: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  expiresAt: number;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

function jwt(payload: Record<string, unknown>, kid: string, key: KeyObject): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const input = `${part({ alg: "RS256", typ: "JWT", kid })}.${part(payload)}`;
  return `${input}.${sign("sha256", Buffer.from(input), key).toString("base64url")}`;
}

/** RFC 6749 §2.3.1: Basic credentials are form-encoded first. */
function clientOf(req: IncomingMessage, form: URLSearchParams): { id: string; secret: string } | null {
  const header = req.headers.authorization ?? "";
  if (header.startsWith("Basic ")) {
    const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) return null;
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  }
  const id = form.get("client_id");
  const secret = form.get("client_secret");
  return id !== null && secret !== null ? { id, secret } : null;
}

export async function startFederatedProvider(port = 0, host = "127.0.0.1"): Promise<FederatedProvider> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  const kid = randomBytes(8).toString("hex");
  const grants = new Map<string, Grant>();
  const held = new HeldRequests();
  let mode: FederatedMode = "normal";
  let tokens = 0;
  let issuer = "";
  /** Accounts that have signed in before: a form_post answer sends `user` only the first time. */
  const seen = new Set<string>();

  const discovery = () => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ["code"],
    response_modes_supported: ["query", "form_post"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    scopes_supported: ["openid", "email", "profile"],
    authorization_response_iss_parameter_supported: true,
  });

  const authorize = (res: ServerResponse, params: URLSearchParams): void => {
    const redirectUri = params.get("redirect_uri") ?? "";
    const method = params.get("code_challenge_method");
    const fine =
      params.get("response_type") === "code" &&
      params.get("client_id") === CLIENT_ID &&
      /^https?:\/\//.test(redirectUri) &&
      (method === null || method === "S256");
    if (!fine) {
      res.writeHead(400, { "content-type": "text/plain" });
      return void res.end("not an authorization request this provider accepts\n");
    }
    // The page's Cancel button is sent beside the account field: it wins.
    const account = params.getAll("account").includes("cancel") ? "cancel" : params.get("account");
    if (account === null || account === "") {
      const hidden = [...params].map(([k, v]) => `<input type="hidden" name="${html(k)}" value="${html(v)}">`).join("");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return void res.end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in (local OpenID Connect provider)</title></head><body><main>` +
          `<h1>Sign in (local OpenID Connect provider)</h1><form method="get" action="">${hidden}` +
          `<p><label>Account <input name="account" value="1001" required></label></p>` +
          `<p><label>Email <input name="email" type="email" value="person@example.test"></label> ` +
          `<label><input type="checkbox" name="email_verified" value="true" checked> verified</label></p>` +
          `<p><label>Name <input name="name" value="Local Person"></label></p>` +
          `<button>Sign in</button> <button name="account" value="cancel" formnovalidate>Cancel</button></form></main></body></html>`,
      );
    }
    const back = new URL(redirectUri);
    const state = params.get("state");
    if (account === "cancel") {
      back.searchParams.set("error", "access_denied");
    } else {
      const code = randomBytes(32).toString("base64url");
      const email = params.get("email") || null;
      grants.set(code, {
        clientId: CLIENT_ID,
        redirectUri,
        nonce: params.get("nonce"),
        openid: (params.get("scope") ?? "").split(" ").includes("openid"),
        codeChallenge: params.get("code_challenge"),
        sub: account,
        email,
        emailVerified: email !== null && params.get("email_verified") !== "false",
        // A device maker's (form_post) sends the name once, in `user`, and never in a token.
        name: params.get("response_mode") === "form_post" ? null : params.get("name") || null,
        expiresAt: Date.now() + CODE_LIFETIME_MS,
      });
      back.searchParams.set("code", code);
    }
    if (state !== null) back.searchParams.set("state", state);
    back.searchParams.set("iss", issuer);
    if (params.get("response_mode") === "form_post") {
      const fields = new URLSearchParams(back.search);
      if (account !== "cancel" && !seen.has(account)) {
        const [firstName = "", ...rest] = (params.get("name") ?? "").split(" ");
        fields.set(
          "user",
          JSON.stringify({ name: { firstName, lastName: rest.join(" ") }, email: params.get("email") }),
        );
      }
      if (account !== "cancel") seen.add(account);
      back.search = "";
      const hidden = [...fields].map(([k, v]) => `<input type="hidden" name="${html(k)}" value="${html(v)}">`).join("");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      return void res.end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing in</title></head>` +
          `<body onload="document.forms[0].submit()"><form method="post" action="${html(back.toString())}">${hidden}` +
          `<noscript><button>Continue</button></noscript></form></body></html>`,
      );
    }
    res.writeHead(302, { location: back.toString() });
    res.end();
  };

  const token = (req: IncomingMessage, res: ServerResponse, form: URLSearchParams): void => {
    tokens++;
    if (mode === "hang") {
      held.hold(res);
      return;
    }
    const client = clientOf(req, form);
    if (client === null || client.id !== CLIENT_ID || client.secret !== CLIENT_SECRET)
      return json(res, 401, { error: "invalid_client" });
    if (form.get("grant_type") !== "authorization_code") return json(res, 400, { error: "unsupported_grant_type" });
    const code = form.get("code") ?? "";
    const grant = grants.get(code);
    // A code is spent at its first presentation, whatever follows.
    grants.delete(code);
    const verifier = form.get("code_verifier") ?? "";
    const pkce =
      grant?.codeChallenge == null ||
      createHash("sha256").update(verifier, "ascii").digest("base64url") === grant.codeChallenge;
    if (
      mode === "refuse" ||
      !grant ||
      grant.expiresAt < Date.now() ||
      grant.clientId !== client.id ||
      grant.redirectUri !== form.get("redirect_uri") ||
      !pkce
    ) {
      return json(res, 400, { error: "invalid_grant" });
    }
    const iat = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = { iss: issuer, sub: grant.sub, aud: CLIENT_ID, iat, exp: iat + 300 };
    if (grant.nonce !== null)
      claims.nonce = mode === "wrong-nonce" ? randomBytes(16).toString("base64url") : grant.nonce;
    if (grant.email !== null) Object.assign(claims, { email: grant.email, email_verified: grant.emailVerified });
    if (grant.name !== null) claims.name = grant.name;
    if (mode === "no-sub") delete claims.sub;
    if (mode === "other-azp") Object.assign(claims, { aud: [CLIENT_ID, "another-client"], azp: "another-client" });
    const idToken = jwt(claims, kid, mode === "bad-signature" ? stranger : privateKey);
    if (grant.openid)
      return json(res, 200, {
        access_token: randomBytes(32).toString("base64url"),
        token_type: "Bearer",
        expires_in: 3600,
        id_token: idToken,
      });
    // Without `openid`, plain OAuth 2.0: only an access token. It is a JWT of the same claims, so
    // that the Auth emulator, which cannot ask this provider who it is for, can read the account.
    json(res, 200, { access_token: idToken, token_type: "Bearer", expires_in: 3600 });
  };

  const setMode = (next: FederatedMode): void => {
    mode = next;
    // Leaving `hang`: the held requests fail now, as a provider that comes back drops them.
    if (next !== "hang") held.drop();
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", issuer);
      if (url.pathname === "/__control") {
        if (req.method === "POST") {
          const body = JSON.parse((await readBody(req)) || "{}") as { mode?: FederatedMode };
          if (body.mode) setMode(body.mode);
        }
        return json(res, 200, { mode, tokens, held: held.size });
      }
      if (req.method === "GET" && url.pathname === "/.well-known/openid-configuration")
        return json(res, 200, discovery());
      if (req.method === "GET" && url.pathname === "/jwks")
        return json(res, 200, { keys: [{ ...publicKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" }] });
      if (req.method === "GET" && url.pathname === "/authorize") return authorize(res, url.searchParams);
      if (req.method === "POST" && url.pathname === "/token")
        return token(req, res, new URLSearchParams(await readBody(req)));
      res.writeHead(404);
      res.end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  const { port: bound, close } = await listen(server, port, host, held);
  issuer = `http://${host}:${bound}`;
  return { issuer, port: bound, setMode, stats: () => ({ tokens, held: held.size }), close };
}

// Run directly: serve until stopped.
if (import.meta.url === `file://${process.argv[1]}`)
  await serveFromCommandLine(
    5015,
    (port) => startFederatedProvider(port),
    (p) => `federated provider (OpenID Connect) at ${p.issuer}`,
  );
