/**
 * Firestore stand-in for machines that cannot run the official emulator (it needs Java 21).
 *
 *   node tools/firestore-stand-in/main.ts [--port 8080] [--host 127.0.0.1] [--lock-timeout-ms 10000]
 *
 * The port also comes from FIRESTORE_PORT. Clients use FIRESTORE_EMULATOR_HOST=<host>:<port>;
 * `DELETE http://<host>:<port>/emulator/v1/projects/<p>/databases/(default)/documents` clears
 * all documents and `GET /` answers "Ok", as on the official emulator.
 */
import { parseArgs } from "node:util";

import { startStandIn } from "./server.ts";

function fail(message: string): never {
  console.error(`firestore stand-in: ${message}`);
  process.exit(1);
}

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) fail(`${name} must be a non-negative integer, got "${value}"`);
  return parsed;
}

let args;
try {
  args = parseArgs({
    options: {
      port: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      "lock-timeout-ms": { type: "string" },
    },
  }).values;
} catch (error) {
  fail((error as Error).message);
}

const host = args.host ?? "127.0.0.1";
const port = integer("--port", args.port ?? process.env.FIRESTORE_PORT, 8080);
const lockTimeoutMs = integer("--lock-timeout-ms", args["lock-timeout-ms"], 10_000);

const standIn = await startStandIn({ host, port, lockTimeoutMs }).catch((error: NodeJS.ErrnoException) => {
  if (error.code === "EADDRINUSE") fail(`${host}:${port} is already in use`);
  fail(`cannot listen on ${host}:${port}: ${error.message}`);
});
console.log(`firestore stand-in ready on ${standIn.host}:${standIn.port}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    standIn.close().then(() => process.exit(0));
  });
}
