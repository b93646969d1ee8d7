/**
 * The soak's own child processes. Each runs in its own process group, so a signal reaches what
 * it started too, and its output goes to a log file rather than the terminal (the soak prints a
 * report, not the emulators' chatter). Every process started here is stopped at exit, even when
 * the soak itself fails or is interrupted.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { openSync } from "node:fs";
import { join } from "node:path";

export interface Proc {
  name: string;
  child: ChildProcess;
  log: string;
}

const running = new Set<Proc>();

export function start(
  name: string,
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; logDir: string; stdin?: "pipe" | "ignore" },
): Proc {
  const log = join(options.logDir, `${name}.log`);
  const out = openSync(log, "a");
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    detached: true,
    stdio: [options.stdin ?? "ignore", out, out],
  });
  const proc = { name, child, log };
  running.add(proc);
  child.once("exit", () => running.delete(proc));
  return proc;
}

function alive(proc: Proc): boolean {
  return proc.child.exitCode === null && proc.child.signalCode === null && proc.child.pid !== undefined;
}

/** Sends `signal` to the process group; false when it is already gone. */
export function signal(proc: Proc, sig: NodeJS.Signals): boolean {
  if (!alive(proc)) return false;
  try {
    process.kill(-(proc.child.pid as number), sig);
    return true;
  } catch {
    return false;
  }
}

/** Stops one process and waits until it has exited; SIGKILL after `graceMs`. A frozen one is thawed first. */
export async function stop(proc: Proc, sig: NodeJS.Signals = "SIGTERM", graceMs = 8000): Promise<void> {
  if (!alive(proc)) return;
  const exited = new Promise<void>((resolve) => proc.child.once("exit", () => resolve()));
  signal(proc, "SIGCONT");
  signal(proc, sig);
  const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), graceMs).unref());
  if ((await Promise.race([exited, timer])) === "timeout") {
    signal(proc, "SIGKILL");
    await exited;
  }
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => stop(p)));
}

// Last resort when the runner exits without stopping them (an uncaught error): no process is left behind.
process.on("exit", () => {
  for (const p of running) {
    signal(p, "SIGCONT");
    signal(p, "SIGKILL");
  }
});
