/**
 * Target 5: the OIDC token endpoint, ours vs `oidc-provider` (the certified Node provider), for
 * the same authorization-code flow (PKCE S256, client_secret_basic, an RS256 ID token from a
 * 2048-bit key, scopes openid email profile), in the same run. Both servers on core 0, load from
 * this process; each request redeems a code minted for it beforehand, outside the measurement.
 * Ours keeps codes and tokens in Firestore (the stand-in, on the other core) and decides each
 * redemption in a transaction; the peer keeps them in its own process memory.
 */
import { createHash, randomBytes } from "node:crypto";
import { join } from "node:path";
import { root } from "./lib/functions.ts";
import { sessionKeysJson } from "./lib/keys.ts";
import { loadBodies, type LoadResult } from "./lib/load.ts";
import { benchFirestore, freePort, startPinned } from "./lib/procs.ts";

const CODES = Number(process.env.BENCH_OIDC_CODES ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 16;
const REDIRECT = "https://app.example.test/callback";

export async function runOidcBench(firestoreHost: string): Promise<Record<string, LoadResult[]>> {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const secret = randomBytes(32).toString("base64url");
  const keys = sessionKeysJson("oidc-bench");
  const common = { CLIENT_SECRET: secret, CODE_CHALLENGE: challenge };
  const [oursPort, peerPort] = await Promise.all([freePort(), freePort()]);
  await startPinned(0, join(root, "bench", "servers", "oidc-ours.ts"), [], { ...common, PORT: String(oursPort), SESSION_KEYS: keys, FIRESTORE_EMULATOR_HOST: firestoreHost, GCLOUD_PROJECT: process.env.GCLOUD_PROJECT as string });
  await startPinned(0, join(root, "bench", "servers", "oidc-peer.ts"), [], { ...common, PORT: String(peerPort), SIGNING_JWK: JSON.stringify(JSON.parse(keys)[0]) });

  const servers = { "token endpoint, ours": `http://127.0.0.1:${oursPort}`, "token endpoint, oidc-provider": `http://127.0.0.1:${peerPort}` };
  const tokenPath = { "token endpoint, ours": "/auth/oidc/token", "token endpoint, oidc-provider": "/token" } as const;
  const headers = { authorization: `Basic ${Buffer.from(`bench-client:${secret}`).toString("base64")}`, "content-type": "application/x-www-form-urlencoded" };
  const form = (code: string) => new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier }).toString();
  const mint = async (base: string, n: number): Promise<string[]> => {
    const res = await fetch(`${base}/bench/mint?n=${n}`, { method: "POST" });
    const codes = (await res.json()) as unknown;
    if (!Array.isArray(codes) || codes.length !== n) throw new Error(`minting ${n} codes at ${base} answered ${res.status}: ${JSON.stringify(codes).slice(0, 200)}`);
    return codes as string[];
  };

  // Both must really complete the flow, with an ID token, before their figures mean anything.
  for (const [name, base] of Object.entries(servers) as Array<[keyof typeof tokenPath, string]>) {
    const [code] = await mint(base, 1);
    const res = await fetch(base + tokenPath[name], { method: "POST", headers, body: form(code as string) });
    const body = (await res.json()) as { id_token?: string };
    if (res.status !== 200 || typeof body.id_token !== "string") throw new Error(`${name} answered ${res.status}: ${JSON.stringify(body)}`);
  }
  const run = async (name: keyof typeof tokenPath, n: number) => {
    const base = servers[name];
    const bodies = (await mint(base, n)).map(form);
    return loadBodies({ url: base + tokenPath[name], method: "POST", headers, bodies }, CONNECTIONS);
  };
  for (const name of Object.keys(tokenPath) as Array<keyof typeof tokenPath>) await run(name, 300); // warm-up
  const rows: Record<string, LoadResult[]> = { "token endpoint, ours": [], "token endpoint, oidc-provider": [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of Object.keys(tokenPath) as Array<keyof typeof tokenPath>) rows[name]?.push(await run(name, CODES));
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.env.GCLOUD_PROJECT ??= "demo-bench";
  process.env.METADATA_SERVER_DETECTION = "none";
  const rows = await runOidcBench(await benchFirestore());
  for (const [name, results] of Object.entries(rows)) console.log(name, results.map((r) => `${Math.round(r.rps)}/s p99 ${r.p99} ms non2xx ${r.non2xx} errors ${r.errors}`).join(" | "));
  process.exit(0);
}
