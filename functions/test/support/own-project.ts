/**
 * A file with a Firestore project of its own (test/support/environment.cjs) starts with the local
 * seed in it, as the stack's project does: the administrator's person, the API key and the
 * relying party of emulator-data/seed.json. Their accounts are the stack's (test/support/deps.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadSeed, type Seed } from "../../src/ops/seed-data";
import { auth, firestore } from "./deps";

if (process.env.TEST_FIRESTORE_PROJECT) {
  beforeAll(async () => {
    const path = join(__dirname, "..", "..", "..", "emulator-data", "seed.json");
    await loadSeed(firestore(), auth(), JSON.parse(readFileSync(path, "utf8")) as Seed);
  });
}
