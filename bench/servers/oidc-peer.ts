/**
 * The peer of target 5: `oidc-provider`, the certified Node OpenID provider, configured for the
 * same flow as ours (authorization code, PKCE S256, client_secret_basic, ID token RS256 with a
 * 2048-bit key, scopes openid email profile), with its own in-memory storage.
 * `POST /bench/mint?n=N` makes N authorization codes the way its authorise endpoint would
 * (a grant, then a code bound to client, redirect URI and challenge) and returns them.
 *
 * For the rest of the lifecycle (bench/oidc-lifecycle.ts) a second client, OFFLINE_CLIENT, with
 * the same secret, may use refresh tokens, configured as oidc-provider's docs say: the client's
 * `grant_types` hold `refresh_token`, `issueRefreshToken` issues one where the sign-in holds
 * `offline_access` (its default, written out), and `rotateRefreshToken: true` rotates on every
 * use (its default rotates only public clients, or a token 70% through its life: ours rotates every
 * time). `features.introspection` and `features.revocation` are enabled, each with a policy that lets a client
 * act on its own tokens alone, as ours does (its default introspection lets any confidential client
 * read any token; its default revocation already refuses another's, written out). Userinfo is on by default. `POST /bench/grants?n=N` makes N grants for that
 * client, each with an access token and a refresh token, as its code grant stores them
 * (lib/helpers/grant_common.js: the grant, then the access token and the refresh token), and
 * returns them `[{ access_token, refresh_token }]`.
 *
 * Its storage is an adapter: PEER_STORE=memory keeps everything in this process (as its
 * development mode does); PEER_STORE=firestore keeps it in Firestore, as a deployment must, through
 * the adapter interface it documents (find, upsert, consume, destroy, revokeByGrantId) with one
 * plain Firestore call each, as its sample adapters do.
 * env: PORT, SIGNING_JWK, CLIENT_SECRET, CODE_CHALLENGE, PEER_STORE; for firestore also
 * FIRESTORE_EMULATOR_HOST and GCLOUD_PROJECT.
 */
import { createServer } from "node:http";
import Provider, { errors } from "oidc-provider";
import { requireFromFunctions } from "../lib/functions.ts";

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const CLIENT = "bench-client";
const REDIRECT = "https://app.example.test/callback";
const OFFLINE_CLIENT = "bench-offline";
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

type Stored = { payload: string; consumed?: number; grantId?: string };

/** One document per stored model instance, in a collection per model. */
function firestoreAdapter() {
  const { initializeApp } = requireFromFunctions("firebase-admin/app");
  const { getFirestore } = requireFromFunctions("firebase-admin/firestore");
  initializeApp({ projectId: process.env.GCLOUD_PROJECT });
  const db = getFirestore();
  return class FirestoreAdapter {
    private readonly collection: any;
    constructor(name: string) {
      this.collection = db.collection(`oidcPeer${name}`);
    }
    async upsert(id: string, payload: Record<string, unknown>) {
      await this.collection.doc(id).set({
        payload: JSON.stringify(payload),
        ...(typeof payload.grantId === "string" ? { grantId: payload.grantId } : {}),
      });
    }
    async find(id: string) {
      const stored = (await this.collection.doc(id).get()).data() as Stored | undefined;
      if (!stored) return undefined;
      return { ...JSON.parse(stored.payload), ...(stored.consumed ? { consumed: stored.consumed } : {}) };
    }
    async findByUid(): Promise<undefined> {
      return undefined; // sessions: not part of the token endpoint's flow
    }
    async findByUserCode(): Promise<undefined> {
      return undefined; // device flow: not enabled
    }
    async consume(id: string) {
      await this.collection.doc(id).update({ consumed: Math.floor(Date.now() / 1000) });
    }
    async destroy(id: string) {
      await this.collection.doc(id).delete();
    }
    async revokeByGrantId(grantId: string) {
      const found = await this.collection.where("grantId", "==", grantId).get();
      await Promise.all(found.docs.map((d: any) => d.ref.delete()));
    }
  };
}

type Owned = (ctx: unknown, client: { clientId: string }, token: { clientId?: string }) => Promise<boolean>;
/** A client learns of its own tokens alone (RFC 7662 §2.2), as ours: another's is `active: false`. */
const ownTokensOnly: Owned = async (_ctx, client, token) => token.clientId === client.clientId;
/** And ends its own alone: another's is `400 invalid_request`, as ours answers it (its default, written out). */
const ownTokensOrRefused: Owned = async (_ctx, client, token) => {
  if (token.clientId !== client.clientId) throw new errors.InvalidRequest("the token was issued to another client");
  return true;
};

const provider = new Provider(issuer, {
  adapter: process.env.PEER_STORE === "firestore" ? firestoreAdapter() : MapAdapter,
  clients: [
    {
      client_id: CLIENT,
      client_secret: process.env.CLIENT_SECRET,
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
    {
      client_id: OFFLINE_CLIENT,
      client_secret: process.env.CLIENT_SECRET,
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
  ],
  features: {
    introspection: { enabled: true, allowedPolicy: ownTokensOnly },
    revocation: { enabled: true, allowedPolicy: ownTokensOrRefused },
  },
  issueRefreshToken: async (_ctx: unknown, client: any, code: any) =>
    client.grantTypeAllowed("refresh_token") && code.scopes.has("offline_access"),
  rotateRefreshToken: true,
  jwks: { keys: [JSON.parse(process.env.SIGNING_JWK as string)] },
  findAccount: async (_ctx: unknown, id: string) => ({
    accountId: id,
    claims: async () => ({ sub: id, email: `${id}@example.test`, email_verified: true, name: "Bench" }),
  }),
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

const OFFLINE_SCOPE = "openid email profile offline_access";

/** One grant with an access token and a refresh token, stored as its code grant would store them. */
async function mintGrant(client: unknown): Promise<{ access_token: string; refresh_token: string }> {
  const grant = new provider.Grant({ accountId: ACCOUNT, clientId: OFFLINE_CLIENT });
  grant.addOIDCScope(OFFLINE_SCOPE);
  const grantId = await grant.save();
  const common = { accountId: ACCOUNT, client, grantId, gty: "authorization_code", scope: OFFLINE_SCOPE };
  const authTime = Math.floor(Date.now() / 1000);
  const [access, refresh] = await Promise.all([
    new provider.AccessToken(common).save(),
    new provider.RefreshToken({ ...common, authTime, rotations: 0 }).save(),
  ]);
  return { access_token: access, refresh_token: refresh };
}

/** N grants, 32 at a time (on Firestore each is three writes). */
async function mintGrants(n: number): Promise<{ access_token: string; refresh_token: string }[]> {
  const client = await provider.Client.find(OFFLINE_CLIENT);
  const made: { access_token: string; refresh_token: string }[] = [];
  const worker = async () => {
    while (made.length < n) {
      const slot = made.push({ access_token: "", refresh_token: "" }) - 1;
      made[slot] = await mintGrant(client);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return made;
}

const callback = provider.callback();
createServer((req, res) => {
  const url = new URL(req.url ?? "/", issuer);
  const hooks: Record<string, (n: number) => Promise<unknown[]>> = { "/bench/mint": mint, "/bench/grants": mintGrants };
  const minting = hooks[url.pathname];
  if (req.method === "POST" && minting !== undefined) {
    minting(Number(url.searchParams.get("n") ?? "1")).then(
      (made) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(made)),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
    return;
  }
  callback(req, res);
}).listen(port, "127.0.0.1", () => console.log("ready"));
process.on("SIGTERM", () => process.exit(0));
