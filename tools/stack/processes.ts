import { spawn, type ChildProcess } from "node:child_process";
import { randomInt } from "node:crypto";
import { createConnection, createServer } from "node:net";

/** Every process a stack starts, so one signal can stop them all and free their ports. */
export class Processes {
  private readonly children: Array<{
    name: string;
    child: ChildProcess;
    stopSignal: NodeJS.Signals;
    stopTimeoutMs: number;
    leaderOnly: boolean;
    beforeStop?: () => Promise<void>;
  }> = [];
  private readonly closers: Array<() => Promise<void>> = [];

  /** Something in this process to stop with the children (a server of the stack's own). */
  onStop(close: () => Promise<void>): void {
    this.closers.push(close);
  }

  start(
    name: string,
    command: string,
    args: string[],
    options: {
      env?: NodeJS.ProcessEnv;
      quiet?: boolean;
      stopSignal?: NodeJS.Signals;
      /** How long it may take to stop (e.g. while it exports its data) before it is killed. */
      stopTimeoutMs?: number;
      /** Signal the process alone, which stops what it started itself; the group is swept after. */
      leaderOnly?: boolean;
      redact?: (line: string) => string;
      /** Runs once everything started after it has stopped, before its own signal (e.g. an export). */
      beforeStop?: () => Promise<void>;
    } = {},
  ): ChildProcess {
    const child = spawn(command, args, {
      env: { ...process.env, ...options.env },
      // Own process group: stopping the group also stops what the child started (functions workers).
      detached: true,
      stdio: ["ignore", options.quiet ? "ignore" : "pipe", options.quiet ? "ignore" : "pipe"],
    });
    const prefix = (chunk: Buffer) =>
      chunk
        .toString()
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => `[${name}] ${options.redact ? options.redact(l) : l}\n`)
        .join("");
    child.stdout?.on("data", (c: Buffer) => process.stdout.write(prefix(c)));
    child.stderr?.on("data", (c: Buffer) => process.stderr.write(prefix(c)));
    this.children.push({
      name,
      child,
      stopSignal: options.stopSignal ?? "SIGTERM",
      stopTimeoutMs: options.stopTimeoutMs ?? 8000,
      leaderOnly: options.leaderOnly ?? false,
      beforeStop: options.beforeStop,
    });
    return child;
  }

  /**
   * Stops in reverse order of start; a process that ignores its signal past its timeout (8 s
   * unless given) is killed, and what is left of its process group with it.
   */
  async stopAll(): Promise<void> {
    await Promise.all(this.closers.map((close) => close().catch(() => undefined)));
    for (const { child, stopSignal, stopTimeoutMs, leaderOnly, beforeStop } of [...this.children].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
      await beforeStop?.().catch((err: Error) => console.error(err.message));
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      try {
        process.kill(leaderOnly ? child.pid : -child.pid, stopSignal);
      } catch {
        continue;
      }
      const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), stopTimeoutMs).unref());
      const outcome = await Promise.race([exited, timer]);
      if (outcome === "timeout" || leaderOnly) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
  }
}

export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A port nothing listens on, below the kernel's ephemeral ports (32768–60999): one the kernel
 * handed out may next be the source port of any connection the machine opens, and whatever was
 * meant to listen on it then cannot bind it.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = randomInt(20_000, 32_000);
    if (await portIsFree(port)) return port;
  }
}

export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  died?: ChildProcess,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (died && died.exitCode !== null)
      throw new Error(`${what} exited with code ${died.exitCode} before it was ready`);
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${what} was not ready within ${Math.round(timeoutMs / 1000)} s`);
}
