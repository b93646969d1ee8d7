/**
 * Our side of target 5: the service's oidc group, built as its function builds it, on the
 * bench's Firestore (Google's emulator where found, else the stand-in). `POST /bench/mint?n=N`
 * makes N authorization codes through the service's own issuance (core/oidc), as its authorise
 * endpoint does for a signed-in person, and returns them.
 * env: PORT, SESSION_KEYS, CODE_PEPPER, CLIENT_SECRET, CODE_CHALLENGE, FIRESTORE_EMULATOR_HOST, GCLOUD_PROJECT.
 */
import { requireFromFunctions, service } from "../lib/functions.ts";
import { serviceDeps, silentLogger } from "../lib/service-deps.ts";
import { mailTask } from "../lib/mail-task.ts";

const express = requireFromFunctions("express");
const { createApp } = service<any>("http/app");
const oidc = service<any>("routes/oidc/oidc");
const { registerClient } = service<any>("core/oidc/clients");
const { issueAuthorizationCode } = service<any>("core/oidc/authorize");
const people = service<any>("store/people");

const CLIENT = "bench-client";
const REDIRECT = "https://app.example.test/callback";
// CODE_PEPPER, as the oidc function reads it: the token endpoint keys its throttle records with it.
const deps = serviceDeps({
  sessionKeys: process.env.SESSION_KEYS as string,
  codePepper: process.env.CODE_PEPPER as string,
  log: silentLogger,
  mailQueue: mailTask(silentLogger).mailQueue,
});
const clientSecret = process.env.CLIENT_SECRET as string;
await registerClient(deps, { clientId: CLIENT, clientSecret, name: "Bench", redirectUris: [REDIRECT] });
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

// Minting is the harness's, outside the service's app (and its request deadline).
const server = express();
server.post("/bench/mint", async (req: any, res: any) => res.json(await mint(Number(req.query.n ?? 1))));
server.use(
  createApp(oidc.routes(deps), {
    presenter: oidc.presenter,
    allowedOrigins: deps.config.allowedOrigins,
    log: silentLogger,
  }),
);
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"));
process.on("SIGTERM", () => process.exit(0));
