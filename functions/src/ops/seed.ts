/**
 * Loads the local seed data (emulator-data/seed.json) into the running emulators. Idempotent:
 * run it on every start. Only for emulators: it refuses to run without emulator hosts.
 */
import { readFileSync } from "node:fs";
import { initializeApp } from "firebase-admin/app";
import { getAuth } from "firebase-admin/auth";
import { getFirestore } from "firebase-admin/firestore";
import { errorText } from "../logger";
import { loadSeed, type Seed } from "./seed-data";

async function main(): Promise<void> {
  if (!process.env.FIRESTORE_EMULATOR_HOST || !process.env.FIREBASE_AUTH_EMULATOR_HOST) {
    throw new Error(
      "seed runs against the emulators only: FIRESTORE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST must be set",
    );
  }
  const path = process.argv[2];
  if (!path) throw new Error("usage: node lib/ops/seed.js <seed.json>");
  const seed = JSON.parse(readFileSync(path, "utf8")) as Seed;
  initializeApp({ projectId: process.env.GCLOUD_PROJECT });
  const personId = await loadSeed(getFirestore(), getAuth(), seed);
  console.log(
    `seed: admin ${seed.admin.email} (person ${personId}), ${seed.apiKeys.length} API key(s), ${seed.oidcClients.length} OIDC client(s)`,
  );
}

main().catch((err: unknown) => {
  console.error(`seed failed: ${errorText(err)}`);
  process.exit(1);
});
