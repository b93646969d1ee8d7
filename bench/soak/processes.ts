/**
 * The soak's own child processes. Each runs in its own process group, so a signal reaches what
 * it started too (the official Firestore emulator's launcher is a shell script that runs the JVM
 * as its child: SIGSTOP, SIGCONT and SIGTERM must reach the JVM), and its output goes to a log
 * file rather than the terminal (the soak prints a report, not the emulators' chatter). A process
 * counts as running while anything in its group does. Every process started here is stopped at
 * exit, even when the soak itself fails or is interrupted.
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
  return proc;
}

/** Whether anything in the process group is left: the launcher may be gone while what it ran is not. */
function alive(proc: Proc): boolean {
  if (proc.child.pid === undefined) return false;
  try {
    process.kill(-proc.child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(proc: Proc, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (alive(proc) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return !alive(proc);
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

/**
 * Stops one process and waits until nothing of its group is left (so its port is free again);
 * SIGKILL after `graceMs`. A frozen one is thawed first.
 */
export async function stop(proc: Proc, sig: NodeJS.Signals = "SIGTERM", graceMs = 8000): Promise<void> {
  if (alive(proc)) {
    signal(proc, "SIGCONT");
    signal(proc, sig);
    if (!(await gone(proc, graceMs))) {
      signal(proc, "SIGKILL");
      await gone(proc, 5000);
    }
  }
  running.delete(proc);
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
