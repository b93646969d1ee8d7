import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { Firestore } from "firebase-admin/firestore";

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const MAIN = join(__dirname, "..", "..", "..", "tools", "firestore-stand-in", "main.ts");

/** A Firestore stand-in of the test's own, on `port`: for tests that stop or reset their emulator. */
export function startStandIn(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN, "--port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`stand-in exited ${code}`)));
  });
}

export function stopped(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** A Firestore client bound to another emulator: the SDK reads the emulator host when it is built. */
export function firestoreAt(host: string): Firestore {
  const saved = process.env.FIRESTORE_EMULATOR_HOST;
  process.env.FIRESTORE_EMULATOR_HOST = host;
  try {
    return new Firestore({ projectId: process.env.GCLOUD_PROJECT });
  } finally {
    process.env.FIRESTORE_EMULATOR_HOST = saved;
  }
}

/**
 * Closes a client whose emulator was stopped while a query of its was in flight. The SDK retries
 * such a query in the background, and a retry that wakes after `terminate()` rejects where nobody
 * listens; so the emulator comes back on the same port and the client is closed only once the
 * retried queries have reached it.
 */
export async function retire(db: Firestore, port: number, pendingQueries: number): Promise<void> {
  const standIn = await startStandIn(port);
  try {
    for (let waited = 0; ; waited += 100) {
      const ops = (await (await fetch(`http://127.0.0.1:${port}/emulator/v1/operations`)).json()) as {
        queries: number;
      };
      if (ops.queries >= pendingQueries) break;
      if (waited > 60_000) throw new Error(`the client's ${pendingQueries} pending queries never came back`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await db.terminate();
  } finally {
    await stopped(standIn);
  }
}
