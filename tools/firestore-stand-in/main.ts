/**
 * Firestore stand-in for machines where no copy of Google's emulator is found (tools/stack/firestore.ts).
 *
 *   node tools/firestore-stand-in/main.ts [--port 8080] [--host 127.0.0.1] [--lock-timeout-ms 10000]
 *                                         [--data <file> [--fresh]]
 *
 * With --data, the documents are loaded from <file> at start (unless --fresh) and saved to it
 * when the process is stopped (SIGINT or SIGTERM).
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
      data: { type: "string" },
      fresh: { type: "boolean" },
    },
  }).values;
} catch (error) {
  fail((error as Error).message);
}

const host = args.host ?? "127.0.0.1";
const port = integer("--port", args.port ?? process.env.FIRESTORE_PORT, 8080);
const lockTimeoutMs = integer("--lock-timeout-ms", args["lock-timeout-ms"], 10_000);

const dataFile = args.data;
const standIn = await startStandIn({ host, port, lockTimeoutMs, dataFile, fresh: args.fresh === true }).catch(
  (error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE") fail(`${host}:${port} is already in use`);
    fail(`cannot ${error.code === undefined ? "load its data" : "listen"} (${host}:${port}): ${error.message}`);
  },
);
const from = dataFile === undefined || args.fresh ? "" : `, ${standIn.loaded} document(s) from ${dataFile}`;
console.log(`firestore stand-in ready on ${standIn.host}:${standIn.port}${from}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    if (dataFile !== undefined) {
      try {
        console.log(`firestore stand-in: saved ${standIn.save()} document(s) to ${dataFile}`);
      } catch (error) {
        console.error(`firestore stand-in: could not save to ${dataFile}: ${(error as Error).message}`);
      }
    }
    standIn.close().then(() => process.exit(0));
  });
}
