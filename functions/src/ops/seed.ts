/**
 * Loads the local seed data (emulator-data/seed.json) into the running emulators. Idempotent:
 * run it on every start. Only for emulators: it refuses to run without emulator hosts.
 * STACK_HOOK_INBOX (the dev stack's webhook inbox, set by tools/stack.ts for `npm start` alone)
 * subscribes the seed's apps there, their secrets sealed under the stack's CODE_PEPPER.
 */
import { readFileSync } from "node:fs";
import { initializeApp } from "firebase-admin/app";
import { getAuth } from "firebase-admin/auth";
import { getFirestore } from "firebase-admin/firestore";
import { parsePepper } from "../core/pepper";
import { errorText } from "../logger";
import { loadSeed, type HookInbox, type Seed } from "./seed-data";
import { envFile, LOCAL_SECRETS } from "./settings";

/**
 * The inbox, when the stack names one. Its subscriptions' secrets are sealed under the pepper the
 * stack's functions unseal them with: the one in the stack's secrets file, which the Functions
 * emulator reads (tools/stack/files.ts writes it before the seed runs).
 */
function hookInbox(): HookInbox | undefined {
  const url = process.env.STACK_HOOK_INBOX;
  if (!url) return undefined;
  const pepper = envFile(LOCAL_SECRETS).CODE_PEPPER ?? process.env.CODE_PEPPER;
  if (!pepper) throw new Error(`STACK_HOOK_INBOX is set, and no CODE_PEPPER to seal its secrets (${LOCAL_SECRETS})`);
  return { url, pepper: parsePepper(pepper) };
}

async function main(): Promise<void> {
  if (!process.env.FIRESTORE_EMULATOR_HOST || !process.env.FIREBASE_AUTH_EMULATOR_HOST) {
    throw new Error(
      "seed runs against the emulators only: FIRESTORE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST must be set",
    );
  }
  const path = process.argv[2];
  if (!path) throw new Error("usage: node lib/ops/seed.js <seed.json>");
  const seed = JSON.parse(readFileSync(path, "utf8")) as Seed;
  const inbox = hookInbox();
  initializeApp({ projectId: process.env.GCLOUD_PROJECT });
  const personId = await loadSeed(getFirestore(), getAuth(), seed, inbox);
  const hooks = inbox === undefined ? "" : `, ${seed.hooks?.length ?? 0} subscription(s) to ${inbox.url}`;
  console.log(
    `seed: admin ${seed.admin.email} (person ${personId}), ${seed.apiKeys.length} API key(s), ${seed.oidcClients.length} OIDC client(s)${hooks}`,
  );
}

main().catch((err: unknown) => {
  console.error(`seed failed: ${errorText(err)}`);
  process.exit(1);
});
