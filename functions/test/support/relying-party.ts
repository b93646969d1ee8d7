/**
 * An OpenID Connect relying party (and an app a hand-off reaches) for the browser tests: a
 * loopback server standing in for its callbacks, its registration, its authorise address and its
 * token request, through the stack.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHash, randomBytes } from "node:crypto";
import { decodeJwt } from "jose";
import { registerClient } from "../../src/core/oidc/clients";
import type { OidcClient } from "../../src/core/model/oidc-client";
import * as clients from "../../src/store/oidc-clients";
import { ID_HOST } from "./browser";
import { testDeps, unique } from "./deps";

const base = () => process.env.STACK_BASE_URL as string;

export function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export interface Client {
  clientId: string;
  clientSecret: string;
}

/** The loopback server of this test file: started before its tests, stopped after them. */
export function useRelyingParty() {
  let server: Server;
  let url = "";
  const arrivals: URL[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      arrivals.push(new URL(req.url ?? "/", url));
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The app</title></head><body><main><h1>Back at the app</h1></main></body></html>',
        );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  return {
    /** The server's origin. */
    url: () => url,

    /** The provider's issuer, where its discovery sends an app (the stack's service address). */
    issuer: () => base(),

    /** The first request that reached `path` (waiting for it), taken from the list. */
    async arrivalAt(path: string): Promise<URL> {
      for (let waited = 0; waited < 15000; waited += 50) {
        const found = arrivals.find((u) => u.pathname === path);
        if (found) {
          arrivals.splice(arrivals.indexOf(found), 1);
          return found;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`nothing arrived at ${path}`);
    },

    /**
     * A client registered for this server's /callback; `lifecycle`: with refresh tokens, and this
     * server's /signed-out to come back to after logout.
     */
    /** A client of the operator's, or (`selfRegistered`) one as a client that registered itself is stored. */
    async client({
      lifecycle = false,
      selfRegistered = false,
    }: { lifecycle?: boolean; selfRegistered?: boolean } = {}): Promise<Client> {
      const registered = { clientId: unique("rp"), clientSecret: randomBytes(32).toString("base64url") };
      const deps = testDeps();
      await registerClient(deps, {
        ...registered,
        name: "Journey RP",
        redirectUris: [`${url}/callback`],
        ...(lifecycle
          ? { grantTypes: ["authorization_code", "refresh_token"], postLogoutRedirectUris: [`${url}/signed-out`] }
          : {}),
      });
      if (selfRegistered) {
        const stored = (await clients.findById(deps.store, registered.clientId)) as OidcClient;
        await clients.save(deps.store, { ...stored, registeredBy: "self" });
      }
      return registered;
    },

    authorizeUrl(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
      const q = new URLSearchParams({
        client_id: clientId,
        redirect_uri: `${url}/callback`,
        response_type: "code",
        scope: "openid email profile",
        state: "rp-state",
        nonce: "rp-nonce",
        code_challenge: challenge,
        code_challenge_method: "S256",
        ...extra,
      });
      return `${base()}/auth/oidc/authorize?${q}`;
    },

    /** The identity host's hand-off page for the local desktop app, coming back to this server's /handoff. */
    handoffUrl(challenge: string): string {
      const q = new URLSearchParams({
        app: "local-desktop",
        redirect_uri: `${url}/handoff`,
        state: "desk-state",
        code_challenge: challenge,
        code_challenge_method: "S256",
      });
      return `${ID_HOST}/handoff?${q}`;
    },

    /** What POST /auth/exchange answers the app for the code a hand-off brought, with its verifier. */
    async exchange(code: string | null, verifier: string): Promise<{ status: number; body: Record<string, unknown> }> {
      const res = await fetch(`${base()}/auth/exchange`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code, code_verifier: verifier }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },

    /** The ID token's claims the code gives at the token endpoint. */
    async redeem(rp: Client, code: string, verifier: string) {
      return decodeJwt((await this.tokens(rp, code, verifier)).id_token);
    },

    /** What the token endpoint answers for the code: the tokens as the app keeps them. */
    async tokens(rp: Client, code: string, verifier: string) {
      const res = await this.token(rp, {
        grant_type: "authorization_code",
        code,
        redirect_uri: `${url}/callback`,
        code_verifier: verifier,
      });
      expect(res.status).toBe(200);
      return res.body as { id_token: string; refresh_token?: string };
    },

    /** A token request of the client's, with its Basic credentials: the status and the body. */
    async token(rp: Client, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
      const res = await fetch(`${base()}/auth/oidc/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${rp.clientId}:${rp.clientSecret}`).toString("base64")}`,
        },
        body: new URLSearchParams(form),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
  };
}
