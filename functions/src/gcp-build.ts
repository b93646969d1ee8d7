/* eslint-disable @typescript-eslint/no-require-imports -- loading modules is all this does */
/**
 * The platform build's entry (`npm run gcp-build`, which the build runs with the runtime's own
 * Node after installing the dependencies): fills the compile cache (compile-cache.ts). Loads,
 * without running anything, every module an instance loads up to its first Firestore read: each
 * group, the dependencies and the app around it, the identity provider's and mail's SDKs, the
 * Firestore client's transport, and what the platform's credentials load for their first token.
 */
import { createRequire, flushCompileCache, getCompileCacheDir } from "node:module";
import { readdirSync } from "node:fs";
import "./index";
import { GROUPS } from "./groups";

/** `require` as the module at the end of a chain of dependencies resolves it. */
const within = (...chain: string[]) =>
  chain.reduce((from, name) => createRequire(from.resolve(name)), createRequire(__filename));

for (const load of Object.values(GROUPS)) load();
require("./deps");
require("./http/app");
require("firebase-admin/auth");
require("nodemailer");
// The Firestore client's transport: the SDK loads it at its own start today; named here so that
// a release loading it on the first read instead still finds it compiled.
within("@google-cloud/firestore")("@google-cloud/firestore-api");
within("@google-cloud/firestore")("google-gax");
// The HTTP client the credentials' first token request loads (an ES module, loaded on demand).
within("google-auth-library", "gaxios")("node-fetch");
flushCompileCache();

const dir = getCompileCacheDir();
if (dir === undefined) throw new Error("this Node has no compile cache");
console.log(`compile cache: ${readdirSync(dir, { recursive: true }).length} entries in ${dir}`);
