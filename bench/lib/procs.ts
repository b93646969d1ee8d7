import { spawn, type ChildProcess } from "node:child_process";
import { openSync, readdirSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  chooseFirestore,
  firestoreAnswers,
  firestoreProcess,
  flavour,
  freeFirestorePort,
} from "../../tools/stack/firestore.ts";
import { waitFor } from "../../tools/stack/processes.ts";

/** Ports for the benches' own servers and emulators: tools/stack's choice, below the ephemeral range. */
export { freePort } from "../../tools/stack/processes.ts";
export { freeFirestorePort } from "../../tools/stack/firestore.ts";

const children: ChildProcess[] = [];
const CLOCK_TICKS = 100;

/** CPU seconds a process has used so far, user and system (Linux /proc, all its threads). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  // utime and stime are fields 14 and 15 of stat; after "pid (comm) " they are at 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The pids of a process's children (every thread's), from /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8")
      .split(" ")
      .filter((p) => p !== "")
      .map(Number),
  );
}

/**
 * The machine's load average over the last minute, now: the machine is shared, and a section's
 * absolute figures say little without it (2 cores: 2 is busy, above it something waits).
 */
export const machineLoad = (): string => (loadavg()[0] as number).toFixed(1);

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

/** The Firestore the benches run on: where it answers, and which one it is. */
export interface BenchFirestore {
  host: string;
  /** "official" for Google's emulator, "stand-in", or "elsewhere" for BENCH_FIRESTORE_HOST's. */
  kind: "official" | "stand-in" | "elsewhere";
  /** The emulator in words, for a section's heading or notes (which copy and why, or which host). */
  what: string;
}

let firestore: { child: ChildProcess; worker: number | null } | null = null;

export function stopAll(): void {
  for (const child of children) child.kill("SIGTERM");
  // Its own process group: the signal reaches the JVM the official emulator's launcher runs.
  if (firestore?.child.pid !== undefined && firestore.child.exitCode === null) {
    try {
      process.kill(-firestore.child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}

process.on("exit", stopAll);

/**
 * The pid of the process doing the Firestore work, for its CPU: the stand-in's node process, or
 * the JVM of Google's emulator (a child of its shell launcher, which `taskset` became); null when
 * BENCH_FIRESTORE_HOST names a Firestore this process did not start.
 */
export function firestorePid(): number | null {
  if (firestore === null) return null;
  if (firestore.worker === null) {
    // Down the chain of only children: the launcher runs the JVM and waits for it.
    let pid = firestore.child.pid as number;
    for (let next = childrenOf(pid); next.length === 1; next = childrenOf(pid)) pid = next[0] as number;
    firestore.worker = pid;
  }
  return firestore.worker;
}

/**
 * The Firestore the benches use, started as the stack would choose it (tools/stack/firestore.ts):
 * Google's emulator where one is found, else the stand-in; `FIRESTORE_STAND_IN=1` forces the
 * stand-in, and BENCH_FIRESTORE_HOST names one already running. Pinned to core 1, which it shares
 * with the load generator: the servers under test get core 0 to themselves.
 */
export async function benchFirestore(projectId = process.env.GCLOUD_PROJECT ?? "demo-bench"): Promise<BenchFirestore> {
  const elsewhere = process.env.BENCH_FIRESTORE_HOST;
  if (elsewhere)
    return { host: elsewhere, kind: "elsewhere", what: `the Firestore at ${elsewhere} (BENCH_FIRESTORE_HOST)` };
  const choice = chooseFirestore();
  const port = await freeFirestorePort();
  const { command, args } = firestoreProcess(choice, port, projectId);
  const log = join(tmpdir(), `bench-firestore-${process.pid}.log`);
  const out = openSync(log, "a");
  const child = spawn("taskset", ["-c", "1", command, ...args], { detached: true, stdio: ["ignore", out, out] });
  firestore = { child, worker: null };
  // Google's emulator is a JVM that answers about 8 s after it starts, later on one busy core.
  await waitFor(`Firestore (${choice.kind}, log in ${log})`, () => firestoreAnswers(port), 120_000, child);
  const kind = flavour(choice);
  const what =
    kind === "official"
      ? `Google's Cloud Firestore emulator (${choice.why})`
      : `the Firestore stand-in (tools/firestore-stand-in; ${choice.why})`;
  return { host: `127.0.0.1:${port}`, kind, what };
}
