import { spawn } from "node:child_process";
import { join } from "node:path";
import { stopped } from "./own-firestore";

const MAIN = join(__dirname, "..", "..", "..", "tools", "gaming-provider.ts");

export type ProviderMode = "normal" | "refuse" | "no-id" | "hang";

/** The local OpenID 2.0 provider (tools/gaming-provider.ts) in a process of its own, on a free port. */
export interface GamingProvider {
  endpoint: string;
  setMode(mode: ProviderMode): Promise<void>;
  stats(): Promise<{ mode: ProviderMode; checks: number; held: number }>;
  stop(): Promise<void>;
}

export function startGamingProvider(): Promise<GamingProvider> {
  const child = spawn(process.execPath, [MAIN, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`gaming provider exited ${code}`)));
    child.stdout.on("data", (chunk: Buffer) => {
      const endpoint = /(http:\/\/\S+\/openid\/login)/.exec(chunk.toString())?.[1];
      if (!endpoint) return;
      const control = new URL("/__control", endpoint).toString();
      resolve({
        endpoint,
        setMode: async (mode) =>
          void (await fetch(control, { method: "POST", body: JSON.stringify({ mode }) })).arrayBuffer(),
        stats: async () =>
          (await (await fetch(control)).json()) as { mode: ProviderMode; checks: number; held: number },
        stop: () => stopped(child),
      });
    });
  });
}
