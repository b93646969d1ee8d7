import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { root } from "./functions.ts";

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const children: ChildProcess[] = [];

/** Starts `node script` pinned to `cpu`, resolves once it prints a line containing "ready". */
export function startPinned(cpu: number, script: string, args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; lines: string[] }> {
  const child = spawn("taskset", ["-c", String(cpu), process.execPath, script, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      lines.push(...chunk.toString().split("\n").filter((l) => l !== ""));
      if (lines.some((l) => l.includes("ready"))) resolve({ child, lines });
    });
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
}

export function stopAll(): void {
  for (const child of children) child.kill("SIGTERM");
}

process.on("exit", stopAll);

/** The Firestore stand-in the benches use (or BENCH_FIRESTORE_HOST); returns its host:port. */
export async function benchFirestore(): Promise<string> {
  if (process.env.BENCH_FIRESTORE_HOST) return process.env.BENCH_FIRESTORE_HOST;
  const port = await freePort();
  // The emulator shares the load generator's core: the servers under test get core 0 to themselves.
  await startPinned(1, join(root, "tools", "firestore-stand-in", "main.ts"), ["--port", String(port)], {});
  return `127.0.0.1:${port}`;
}
