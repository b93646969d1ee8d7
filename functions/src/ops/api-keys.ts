/**
 * The operator's tool for API keys (there is no self-service path):
 *   node lib/ops/api-keys.js issue "<label>"   prints a new key once; only its hash is stored
 *   node lib/ops/api-keys.js revoke <prefix>   revokes the live keys with that prefix
 *   node lib/ops/api-keys.js list              prefixes, labels, dates; never keys
 * Uses Application Default Credentials (or the emulators, when their hosts are set).
 */
import { initializeApp } from "firebase-admin/app";
import { getFirestore } from "firebase-admin/firestore";
import { systemClock } from "../clock";
import { issueApiKey, revokeApiKey } from "../core/startpage/api-keys";
import { cryptoRandom } from "../random";
import * as apiKeys from "../store/api-keys";
import { errorText } from "../logger";

async function main(): Promise<void> {
  const [command, arg] = process.argv.slice(2);
  initializeApp();
  const deps = { store: getFirestore(), clock: systemClock, random: cryptoRandom };
  if (command === "issue" && arg) {
    const { key, prefix } = await issueApiKey(deps, arg);
    console.log(`key (shown once): ${key}\nprefix: ${prefix}`);
  } else if (command === "revoke" && arg) {
    console.log(`revoked ${await revokeApiKey(deps, arg)} key(s)`);
  } else if (command === "list") {
    for (const k of await apiKeys.list(deps.store)) {
      console.log(
        `${k.prefix}  ${k.label}  created ${k.createdAt.toISOString()}${k.revokedAt ? `  revoked ${k.revokedAt.toISOString()}` : ""}`,
      );
    }
  } else {
    console.error('usage: api-keys issue "<label>" | revoke <prefix> | list');
    process.exitCode = 2;
  }
}

main().catch((err: unknown) => {
  console.error(errorText(err));
  process.exit(1);
});
