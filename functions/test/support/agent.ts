/**
 * An MCP client's side of signing in, as the registry's SDK asks an app to keep it
 * (`OAuthClientProvider`): its registration, its tokens, its PKCE verifier and where it sent the
 * person; and, for the stack's https hosts, the way the agent's requests reach them.
 */
import https from "node:https";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** What an MCP client keeps of its sign-in, coming back to `redirectUrl` (a loopback port of its own, RFC 8252). */
export class AgentMemory implements OAuthClientProvider {
  registered: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  sentTo: URL | null = null;

  constructor(
    readonly redirectUrl: string,
    readonly name = "Desk assistant",
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return agentMetadata(this.name, this.redirectUrl);
  }
  clientInformation() {
    return this.registered;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.registered = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.sentTo = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** An agent that makes itself known by the URL of its metadata document, as MCP clients first try. */
export class DocumentAgent extends AgentMemory {
  constructor(
    readonly clientMetadataUrl: string,
    redirectUrl: string,
    name?: string,
  ) {
    super(redirectUrl, name);
  }
}

/** What such an agent says of itself: at registration, or in its metadata document. */
export function agentMetadata(name: string, redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: name,
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/** The certificate authority of the stack's https front (tools/stack/tls.ts). */
const FRONT_CA = join(__dirname, "..", "..", "..", ".stack", "tls", "ca.pem");

/**
 * fetch, with the parent domain's https hosts reached at the stack's https front on loopback, as
 * Chromium's resolver rule sends them (support/browser.ts), the front's certificate checked;
 * every other address as it is.
 */
export function throughFront(domain = "example.test"): FetchLike {
  const port = Number(process.env.STACK_HTTPS_PORT);
  const ca = readFileSync(FRONT_CA);
  return async (url, init = {}) => {
    const target = new URL(url);
    const ours = target.hostname === domain || target.hostname.endsWith(`.${domain}`);
    if (target.protocol !== "https:" || !ours) return fetch(url, init);
    const headers: Record<string, string> = { ...Object.fromEntries(new Headers(init.headers)), host: target.host };
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    return new Promise<Response>((resolve, reject) => {
      const req = https.request(
        {
          host: "127.0.0.1",
          port,
          servername: target.hostname,
          ca,
          method: init.method ?? "GET",
          path: `${target.pathname}${target.search}`,
          headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () => {
            const answer = new Headers();
            for (const [name, value] of Object.entries(res.headers))
              for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
                answer.append(name, one);
            const status = res.statusCode ?? 502;
            const empty = status === 204 || status === 304 || chunks.length === 0;
            resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: answer }));
          });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  };
}
