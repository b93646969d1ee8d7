/**
 * Our side of target 5: the service's oidc group, built as its function builds it, on the
 * bench's Firestore (Google's emulator where found, else the stand-in). `POST /bench/mint?n=N`
 * makes N authorization codes through the service's own issuance (core/oidc), as its authorise
 * endpoint does for a signed-in person, and returns them.
 *
 * For the rest of the lifecycle (bench/oidc-lifecycle.ts) a second client, OFFLINE_CLIENT, with
 * the same secret, is registered for refresh tokens (`clients register --refresh-tokens`: grant
 * types authorization_code and refresh_token); every refresh rotates its token, as for every such
 * client. `POST /bench/grants?n=N` makes N grants for it: a code for a sign-in that asked for
 * `offline_access`, redeemed through the token endpoint's own exchange (core/oidc/grant-types), in
 * process, so each grant, refresh token and access token is stored as a relying party's would be;
 * it returns `[{ access_token, refresh_token }]`. `POST /bench/grant-state` with `{ refresh_token }`
 * reads back the grant the token was issued on, as stored: whether it ended, and why.
 * env: PORT, SESSION_KEYS, CODE_PEPPER, CLIENT_SECRET, CODE_CHALLENGE, CODE_VERIFIER,
 * FIRESTORE_EMULATOR_HOST, GCLOUD_PROJECT.
 */
import { requireFromFunctions, service } from "../lib/functions.ts";
import { silentLogger } from "../lib/service-deps.ts";
import { quietServiceDeps } from "../lib/mail-task.ts";

const express = requireFromFunctions("express");
const { createApp } = service<any>("http/app");
const oidc = service<any>("routes/oidc/oidc");
const { authenticateClient, registerClient } = service<any>("core/oidc/clients");
const { issueAuthorizationCode } = service<any>("core/oidc/authorize");
const { tokenExchange } = service<any>("core/oidc/grant-types");
const { grantOf } = service<any>("core/oidc/refresh");
const people = service<any>("store/people");

const CLIENT = "bench-client";
const OFFLINE_CLIENT = "bench-offline";
const REDIRECT = "https://app.example.test/callback";
// CODE_PEPPER, as the oidc function reads it: the token endpoint keys its throttle records with it.
const deps = quietServiceDeps({ codePepper: process.env.CODE_PEPPER as string });
const clientSecret = process.env.CLIENT_SECRET as string;
await registerClient(deps, { clientId: CLIENT, clientSecret, name: "Bench", redirectUris: [REDIRECT] });
await registerClient(deps, {
  clientId: OFFLINE_CLIENT,
  clientSecret,
  name: "Bench offline",
  redirectUris: [REDIRECT],
  grantTypes: ["authorization_code", "refresh_token"],
});
const uid = `bench-oidc-${process.pid}`;
const person = await deps.store.runTransaction(async (tx: unknown) =>
  people.create(
    deps.store,
    tx,
    {
      uids: [uid],
      emails: [`${uid}@example.test`],
      phones: [],
      name: "Bench",
      role: "user",
      projects: [],
      groups: [],
      status: "approved",
    },
    uid,
    deps.clock.now(),
  ),
);
const client = {
  clientId: CLIENT,
  name: "Bench",
  secrets: [],
  redirectUris: [REDIRECT],
  pkce: "required",
  disabled: false,
  createdAt: deps.clock.now(),
};
const request = {
  client,
  redirectUri: REDIRECT,
  scopes: ["openid", "email", "profile"],
  state: null,
  nonce: "bench-nonce",
  codeChallenge: process.env.CODE_CHALLENGE,
  prompt: { none: false, login: false, selectAccount: false },
  maxAgeSeconds: null,
  acr: null,
};

async function mint(n: number): Promise<string[]> {
  const codes: string[] = [];
  const worker = async () => {
    while (codes.length < n) {
      const slot = codes.push("") - 1;
      // No session behind it (sessionKey null): no sign-in is recorded for back-channel logout,
      // and the peer records none either.
      codes[slot] = await issueAuthorizationCode(deps, request, person, {
        uid,
        authTime: deps.clock.now(),
        amr: ["otp"],
        sessionKey: null,
      });
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return codes;
}

// The offline client as the token endpoint authenticates it, and the sign-in a relying party asks
// for when it wants refresh tokens: its codes grant offline_access (core/oidc/authorize keeps the
// scope for a client registered for refresh tokens).
const offlineClient = await authenticateClient(deps, OFFLINE_CLIENT, clientSecret, "127.0.0.1");
const offlineRequest = {
  ...request,
  client: offlineClient,
  scopes: ["openid", "email", "profile", "offline_access"],
};
const exchange = tokenExchange(deps);

/** One grant: a code for an offline sign-in, redeemed as the token endpoint redeems it. */
async function mintGrant(): Promise<{ access_token: string; refresh_token: string }> {
  const code = await issueAuthorizationCode(deps, offlineRequest, person, {
    uid,
    authTime: deps.clock.now(),
    amr: ["otp"],
    sessionKey: null,
  });
  const { access_token, refresh_token } = await exchange(offlineClient, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    code_verifier: process.env.CODE_VERIFIER,
  });
  return { access_token, refresh_token };
}

/** N grants, 32 at a time (concurrent redemptions share their transactions, as under load). */
async function mintGrants(n: number): Promise<{ access_token: string; refresh_token: string }[]> {
  const made: { access_token: string; refresh_token: string }[] = [];
  const worker = async () => {
    while (made.length < n) {
      const slot = made.push({ access_token: "", refresh_token: "" }) - 1;
      made[slot] = await mintGrant();
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return made;
}

/** The grant a refresh token was issued on, as stored (null: no such token). */
async function grantState(refreshToken: string) {
  const found = await grantOf(deps, null, refreshToken);
  if (found === null || found.grant === null) return null;
  const { endedAt, endedBecause, tokenId } = found.grant;
  return { ended: endedAt !== null, endedBecause, newest: tokenId === found.tokenId };
}

// Minting is the harness's, outside the service's app (and its request deadline).
const server = express();
server.post("/bench/mint", async (req: any, res: any) => res.json(await mint(Number(req.query.n ?? 1))));
server.post("/bench/grants", async (req: any, res: any) => res.json(await mintGrants(Number(req.query.n ?? 1))));
server.post("/bench/grant-state", express.json(), async (req: any, res: any) =>
  res.json(await grantState(String(req.body.refresh_token))),
);
server.use(
  createApp(oidc.routes(deps), {
    presenter: oidc.presenter,
    allowedOrigins: deps.config.allowedOrigins,
    log: silentLogger,
  }),
);
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"));
process.on("SIGTERM", () => process.exit(0));
