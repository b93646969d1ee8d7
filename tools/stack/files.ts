import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaults } from "../../site/defaults.ts";
import { besideApi } from "./firestore.ts";
import { idSitePort, type Profile } from "./ports.ts";

/**
 * Local secrets are made on first run and never committed: a fresh session-signing key and code
 * pepper per checkout, kept from then on. The others are the fixed dev values of local-stack.md
 * and of the stack's own providers, written as they are now on every start.
 */
export function ensureLocalSecrets(root: string): void {
  const path = join(root, "functions", ".secret.local");
  const named = (line: string) => line.slice(0, line.indexOf("="));
  const fixed = [
    "IDP_SIGNING_SECRET=dev-idp-signing-secret",
    `FEDERATED_CLIENT_SECRETS='${JSON.stringify(Object.fromEntries(LOCAL_FEDERATED_IDPS.map((idp) => [idp, LOCAL_FEDERATED_CLIENT.secret])))}'`,
  ];
  const fixedNames = new Set(fixed.map(named));
  const kept = (existsSync(path) ? readFileSync(path, "utf8") : "")
    .split("\n")
    .filter((l) => l.includes("=") && !fixedNames.has(named(l)));
  const have = new Set(kept.map(named));
  if (!have.has("SESSION_KEYS") || !have.has("CODE_PEPPER")) {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const kid = `dev-${randomBytes(4).toString("hex")}`;
    const jwk = { ...privateKey.export({ format: "jwk" }), kid, alg: "RS256" };
    const fresh = [
      `SESSION_KEYS='${JSON.stringify([jwk])}'`,
      `CODE_PEPPER=${kid}:${randomBytes(32).toString("base64url")}`,
    ];
    kept.splice(
      0,
      kept.length,
      ...kept.filter((l) => named(l) !== "SESSION_KEYS" && named(l) !== "CODE_PEPPER"),
      ...fresh,
    );
  }
  writeFileSync(path, [...kept, ...fixed].join("\n") + "\n", { mode: 0o600 });
}

/** The app the local stack can hand a signed-in person to: a desktop app listening on loopback. */
export const LOCAL_HANDOFF_APPS = {
  "local-desktop": {
    name: "Local desktop app",
    redirectUris: ["http://127.0.0.1/handoff", "com.example.desktop:/handoff"],
  },
};

/** The client the stack's federated provider (tools/federated-provider.ts) registers. */
export const LOCAL_FEDERATED_CLIENT = { id: "local-federated-client", secret: "local-federated-secret" };

/** Every idp the federated bridge knows, each served by the stack's one provider in its own style. */
const LOCAL_FEDERATED_IDPS = ["search", "codehost", "professional", "devicemaker", "native"] as const;

function localFederatedProviders(p: Profile): Record<(typeof LOCAL_FEDERATED_IDPS)[number], Record<string, string>> {
  const at = `http://127.0.0.1:${p.federated}`;
  const client = LOCAL_FEDERATED_CLIENT.id;
  return {
    // A search company's OpenID Connect, found by discovery.
    search: { issuer: at, clientId: client, providerId: "google.com" },
    // A code host's plain OAuth 2.0: its endpoints, an access token, no ID token.
    codehost: {
      authorizationEndpoint: `${at}/authorize`,
      tokenEndpoint: `${at}/token`,
      clientId: client,
      providerId: "github.com",
      scope: "read:user user:email",
    },
    // A professional network's OpenID Connect: email and email_verified in the ID token.
    professional: { issuer: at, clientId: client, providerId: "linkedin.com", scope: "openid profile email" },
    // A device maker's: the answer POSTed back (form_post), the name only in the first one's `user` field.
    devicemaker: {
      issuer: at,
      clientId: client,
      providerId: "apple.com",
      scope: "openid name email",
      responseMode: "form_post",
    },
    // A provider of the identity platform's own kind: generic OpenID Connect, `oidc.<name>` there.
    native: { issuer: at, clientId: client, providerId: "oidc.local", scope: "openid email profile" },
  };
}

/**
 * Settings the functions read on this stack: mail goes to the stack's own dev inbox. The passkey
 * rule is off unless asked for (`npm start -- --passkey-rule`): the seeded administrator signs in
 * by password, and the contract's administrators' endpoints answer them as it says.
 */
export function writeFunctionsEnv(root: string, p: Profile, passkeyRule = false): void {
  const lines = [
    `PASSKEY_ROLES=${passkeyRule ? "admin" : "none"}`,
    "SMTP_HOST=127.0.0.1",
    `SMTP_PORT=${p.smtp}`,
    "SMTP_SECURE=false",
    "SMTP_USER=",
    `MAIL_FROM=${defaults().DEFAULTS.MAIL_FROM}`,
    // The OpenID Connect issuer is where a relying party reaches this stack: the Hosting emulator.
    `SERVICE_URL=http://127.0.0.1:${p.hosting}`,
    // The gaming bridge signs in against the stack's own OpenID 2.0 provider.
    `GAMING_OPENID_ENDPOINT=http://127.0.0.1:${p.gaming}/openid/login`,
    // The federated bridge reaches the stack's own provider as each idp it knows (see localFederatedProviders).
    `FEDERATED_PROVIDERS='${JSON.stringify(localFederatedProviders(p))}'`,
    "IDP_API_KEY=local-api-key",
    // An app outside the parent domain to hand signed-in people to (GET /handoff on the identity host).
    `HANDOFF_APPS='${JSON.stringify(LOCAL_HANDOFF_APPS)}'`,
    // No proxy of the local stack appends to X-Forwarded-For: the header is the caller's own
    // writing, so every local caller counts as the one network it comes from (the emulator).
    "CLIENT_ADDRESS_HOPS=0",
    // Every test comes from that one network, to addresses at example.test: the suite would meet the
    // budgets meant for a flood (the budget tests build their own apps with their own settings).
    // The reviewers' digest, at most one a minute: a browser test waits for the one naming its stranger.
    ...(p.name === "test"
      ? [
          "OTP_SENDS_PER_CLIENT_HOUR=100000",
          "OTP_SENDS_PER_MINUTE=100000",
          "OTP_SENDS_PER_DOMAIN_HOUR=100000",
          "REVIEW_DIGEST_MINUTES=1",
          // Agents register themselves (the dev stack keeps the contract's closed), and may be
          // known by a metadata document a test serves on loopback with the front's certificate.
          "OIDC_REGISTRATION=open",
          `OIDC_METADATA_DEV_ORIGINS=https://127.0.0.1:${p.documents}`,
          `OIDC_METADATA_DEV_CA=${join(root, ".stack", "tls", "ca.pem")}`,
        ]
      : []),
  ];
  writeFileSync(join(root, "functions", `.env.${p.projectId}`), lines.join("\n") + "\n");
  // The emulator saves the default of a param it found no value for in `.env.local`, which then
  // outranks the file above on later starts: drop any such value for a setting made here.
  const local = join(root, "functions", ".env.local");
  if (existsSync(local)) {
    const ours = new Set(lines.map((l) => l.slice(0, l.indexOf("="))));
    const kept = readFileSync(local, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "" && !ours.has(l.slice(0, l.indexOf("=")).trim()));
    writeFileSync(local, kept.length > 0 ? kept.join("\n") + "\n" : "");
  }
}

/** The Hosting sites the local stack runs, in firebase.json's order (the second gets idSitePort). */
export const LOCAL_SITES = ["service", "id"];

/**
 * firebase.json as this stack runs it: the profile's ports, and the identity host's pages allowed
 * to reach the local Auth emulator (production's policy names only the identity provider's API).
 */
export function firebaseConfigFor(root: string, p: Profile): string {
  const base = JSON.parse(readFileSync(join(root, "firebase.json"), "utf8"));
  // The emulator gives each site a port of its own; the stack serves the apex and www from the
  // service's site and the identity host from its own (tools/stack/front.ts), and stands in for
  // the application hosts itself, so their sites stay out of it.
  base.hosting = (base.hosting as Array<{ target: string }>).filter((site) => LOCAL_SITES.includes(site.target));
  for (const site of base.hosting as Array<{
    target: string;
    headers?: Array<{ headers: Array<{ key: string; value: string }> }>;
  }>) {
    for (const rule of site.headers ?? []) {
      for (const header of rule.headers) {
        if (header.key === "Content-Security-Policy")
          header.value = header.value.replace("connect-src 'self'", `connect-src 'self' http://127.0.0.1:${p.auth}`);
      }
    }
  }
  const e = base.emulators;
  e.hosting.port = p.hosting;
  e.functions.port = p.functions;
  e.auth.port = p.auth;
  e.firestore.port = p.firestore;
  // Where the Firebase CLI starts Google's emulator: it names no WebChannel port, so that one stays the emulator's.
  e.firestore.websocketPort = besideApi(p.firestore).websocket;
  e.hub.port = p.hub;
  e.logging.port = p.logging;
  e.tasks.port = p.tasks;
  const name = `.stack-firebase.${p.name}.json`;
  writeFileSync(join(root, name), JSON.stringify(base, null, 2));
  return name;
}

export function stackEnv(p: Profile): Record<string, string> {
  return {
    GCLOUD_PROJECT: p.projectId,
    FIRESTORE_EMULATOR_HOST: `127.0.0.1:${p.firestore}`,
    FIREBASE_AUTH_EMULATOR_HOST: `127.0.0.1:${p.auth}`,
    STACK_BASE_URL: `http://127.0.0.1:${p.hosting}`,
    STACK_ID_URL: `http://127.0.0.1:${idSitePort(p)}`,
    STACK_FUNCTIONS_URL: `http://127.0.0.1:${p.functions}/${p.projectId}/us-central1`,
    // Where a process outside the emulators (the operator CLI, a test) enqueues a task for the
    // stack's `mail` function, as the admin SDK does in production (the functions get it anyway).
    CLOUD_TASKS_EMULATOR_HOST: `127.0.0.1:${p.tasks}`,
    STACK_MAIL_URL: `http://127.0.0.1:${p.mailWeb}`,
    STACK_HOOK_INBOX_URL: `http://127.0.0.1:${p.hookInbox}`,
    STACK_HTTPS_PORT: String(p.https),
    STACK_SMTP_PORT: String(p.smtp),
    ...(p.documents === undefined ? {} : { STACK_DOCUMENTS_ORIGIN: `https://127.0.0.1:${p.documents}` }),
    // Nothing here runs on Google Cloud: don't let the client libraries probe for a metadata server.
    METADATA_SERVER_DETECTION: "none",
  };
}
