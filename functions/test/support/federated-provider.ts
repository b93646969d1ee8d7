import { spawn } from "node:child_process";
import { join } from "node:path";
import { stopped } from "./own-firestore";

const MAIN = join(__dirname, "..", "..", "..", "tools", "federated-provider.ts");

export type FederatedMode = "normal" | "refuse" | "no-sub" | "bad-signature" | "wrong-nonce" | "other-azp" | "hang";

/** The local OpenID Connect provider (tools/federated-provider.ts) in a process of its own, on a free port. */
export interface FederatedProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  setMode(mode: FederatedMode): Promise<void>;
  stats(): Promise<{ mode: FederatedMode; tokens: number; held: number }>;
  stop(): Promise<void>;
}

export function startFederatedProvider(): Promise<FederatedProvider> {
  const child = spawn(process.execPath, [MAIN, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`federated provider exited ${code}`)));
    child.stdout.on("data", (chunk: Buffer) => {
      const issuer = /at (http:\/\/\S+)/.exec(chunk.toString())?.[1];
      if (!issuer) return;
      const control = `${issuer}/__control`;
      resolve({
        issuer,
        clientId: "local-federated-client",
        clientSecret: "local-federated-secret",
        setMode: async (mode) =>
          void (await fetch(control, { method: "POST", body: JSON.stringify({ mode }) })).arrayBuffer(),
        stats: async () =>
          (await (await fetch(control)).json()) as { mode: FederatedMode; tokens: number; held: number },
        stop: () => stopped(child),
      });
    });
  });
}

/** The fields of the local provider's auto-submitting form_post page, as a browser would POST them. */
export function hiddenFields(page: string): URLSearchParams {
  const fields = new URLSearchParams();
  for (const m of page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields.append(
      m[1] as string,
      (m[2] as string).replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(+c)),
    );
  return fields;
}
