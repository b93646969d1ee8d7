/**
 * `npm run operator -- <command>`: the operator CLI (functions/src/ops/operator.ts), run in this process
 * from the compiled functions, which are built first only when their sources changed.
 */
import { createRequire, enableCompileCache } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureFunctionsBuilt } from "./build-functions.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
try {
  ensureFunctionsBuilt(root, (line) => console.error(`operator: ${line}`));
} catch (err) {
  console.error(`operator: ${(err as Error).message}; the errors are above`);
  process.exit(1);
}
// The CLI loads firebase-admin and the Firestore client on every call: compiled once, kept here.
enableCompileCache(join(root, ".stack", "compile-cache"));
const cli = createRequire(import.meta.url)(join(root, "functions", "lib", "ops", "operator.js")) as {
  run(argv: string[]): void;
};
cli.run(process.argv.slice(2));
