import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { readFileSync } from "node:fs";
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
let firestoreChild: ChildProcess | null = null;
const CLOCK_TICKS = 100;

/** CPU seconds a process has used so far, user and system (Linux /proc, all its threads). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  // utime and stime are fields 14 and 15 of stat; after "pid (comm) " they are at 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The pid of the stand-in benchFirestore started, or null when BENCH_FIRESTORE_HOST names another. */
export function firestorePid(): number | null {
  return firestoreChild?.pid ?? null;
}

/** Starts `node script` pinned to `cpu`, resolves once it prints a line containing "ready". */
export function startPinned(
  cpu: number,
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; lines: string[] }> {
  const child = spawn("taskset", ["-c", String(cpu), process.execPath, script, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      lines.push(
        ...chunk
          .toString()
          .split("\n")
          .filter((l) => l !== ""),
      );
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
  firestoreChild = (
    await startPinned(1, join(root, "tools", "firestore-stand-in", "main.ts"), ["--port", String(port)], {})
  ).child;
  return `127.0.0.1:${port}`;
}
