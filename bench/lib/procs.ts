import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

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
