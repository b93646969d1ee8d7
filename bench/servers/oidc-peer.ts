/**
 * The peer of target 5: `oidc-provider`, the certified Node OpenID provider, configured for the
 * same flow as ours (authorization code, PKCE S256, client_secret_basic, ID token RS256 with a
 * 2048-bit key, scopes openid email profile), with its own in-memory storage.
 * `POST /bench/mint?n=N` makes N authorization codes the way its authorise endpoint would
 * (a grant, then a code bound to client, redirect URI and challenge) and returns them.
 * env: PORT, SIGNING_JWK, CLIENT_SECRET, CODE_CHALLENGE.
 */
import { createServer } from "node:http";
import Provider from "oidc-provider";

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const CLIENT = "bench-client";
const REDIRECT = "https://app.example.test/callback";
const ACCOUNT = "bench-account";

/**
 * Its quick-start storage is an LRU of 1,000 entries, which a bench's worth of codes and grants
 * overflows (codes vanish mid-run); this keeps everything in plain Maps for the run instead.
 */
const stores = new Map<string, Map<string, { payload: Record<string, unknown>; consumed?: number }>>();
class MapAdapter {
  private readonly items: Map<string, { payload: Record<string, unknown>; consumed?: number }>;
  constructor(name: string) {
    this.items = stores.get(name) ?? new Map();
    stores.set(name, this.items);
  }
  async upsert(id: string, payload: Record<string, unknown>) {
    this.items.set(id, { payload });
  }
  async find(id: string) {
    const item = this.items.get(id);
    return item ? { ...item.payload, ...(item.consumed ? { consumed: item.consumed } : {}) } : undefined;
  }
  async findByUid(uid: string) {
    for (const [id, item] of this.items) if (item.payload.uid === uid) return this.find(id);
    return undefined;
  }
  async findByUserCode(code: string) {
    for (const [id, item] of this.items) if (item.payload.userCode === code) return this.find(id);
    return undefined;
  }
  async consume(id: string) {
    const item = this.items.get(id);
    if (item) item.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    this.items.delete(id);
  }
  async revokeByGrantId(grantId: string) {
    for (const [id, item] of this.items) if (item.payload.grantId === grantId) this.items.delete(id);
  }
}

const provider = new Provider(issuer, {
  adapter: MapAdapter,
  clients: [{ client_id: CLIENT, client_secret: process.env.CLIENT_SECRET, redirect_uris: [REDIRECT], grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" }],
  jwks: { keys: [JSON.parse(process.env.SIGNING_JWK as string)] },
  findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, email: `${id}@example.test`, email_verified: true, name: "Bench" }) }),
  claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
  pkce: { required: () => true },
  cookies: { keys: ["bench-only-cookie-key"] },
});

async function mint(n: number): Promise<string[]> {
  const client = await provider.Client.find(CLIENT);
  const codes: string[] = [];
  for (let i = 0; i < n; i++) {
    const grant = new provider.Grant({ accountId: ACCOUNT, clientId: CLIENT });
    grant.addOIDCScope("openid email profile");
    const grantId = await grant.save();
    const code = new provider.AuthorizationCode({
      accountId: ACCOUNT,
      client,
      grantId,
      redirectUri: REDIRECT,
      scope: "openid email profile",
      codeChallenge: process.env.CODE_CHALLENGE,
      codeChallengeMethod: "S256",
      nonce: "bench-nonce",
      authTime: Math.floor(Date.now() / 1000),
    });
    codes.push(await code.save());
  }
  return codes;
}

const callback = provider.callback();
createServer((req, res) => {
  const url = new URL(req.url ?? "/", issuer);
  if (req.method === "POST" && url.pathname === "/bench/mint") {
    mint(Number(url.searchParams.get("n") ?? "1")).then(
      (codes) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(codes)),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
    return;
  }
  callback(req, res);
}).listen(port, "127.0.0.1", () => console.log("ready"));
process.on("SIGTERM", () => process.exit(0));
