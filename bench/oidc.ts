/**
 * Target 5: the OIDC token endpoint, ours vs `oidc-provider` (the certified Node provider), for
 * the same authorization-code flow (PKCE S256, client_secret_basic, an RS256 ID token from a
 * 2048-bit key, scopes openid email profile), in the same run. Both servers on core 0, load from
 * this process; each request redeems a code minted for it beforehand, outside the measurement.
 * Ours keeps codes and tokens in Firestore (the bench's: Google's emulator where found, else the
 * stand-in; on the other core) and decides each
 * redemption in a transaction. The peer runs twice: with its codes in its own process memory (its
 * development store, nothing durable), and on the same Firestore through its adapter interface.
 * On the same servers, bench/oidc-lifecycle.ts then measures the rest of a grant's life (refresh,
 * introspection, userinfo, revocation).
 */
import { createHash, randomBytes } from "node:crypto";
import { join } from "node:path";
import { root } from "./lib/functions.ts";
import { sessionKeysJson } from "./lib/keys.ts";
import { loadBodies, type LoadResult } from "./lib/load.ts";
import { measured, type CpuUse } from "./lib/cpu-use.ts";
import { benchFirestore, firestorePid, freePort, startPinned } from "./lib/procs.ts";
import { runLifecycle, type Lifecycle } from "./oidc-lifecycle.ts";

export type { CpuUse } from "./lib/cpu-use.ts";

const CODES = Number(process.env.BENCH_OIDC_CODES ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const CONNECTIONS = Number(process.env.BENCH_OIDC_CONNECTIONS ?? 16);
const REDIRECT = "https://app.example.test/callback";
export const OURS = "token endpoint, ours";
export const PEER_IN_MEMORY = "token endpoint, oidc-provider, in memory";
export const PEER_ON_FIRESTORE = "token endpoint, oidc-provider, on Firestore";

/** Codes and concurrent presentations each, for the check that a code is redeemed once. */
export const RACE_CODES = 10;
export const RACE_TRIES = 10;

export interface OidcBench {
  rows: Record<string, LoadResult[]>;
  cpu: Record<string, CpuUse[]>;
  /** Of RACE_CODES codes each presented RACE_TRIES times at once: how many presentations got tokens. */
  redeemed: Record<string, number>;
  /** The rest of each side's lifecycle on the same servers: refresh, introspection, userinfo, revocation. */
  lifecycle: Lifecycle;
}

export async function runOidcBench(firestoreHost: string): Promise<OidcBench> {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const secret = randomBytes(32).toString("base64url");
  const keys = sessionKeysJson("oidc-bench");
  const common = { CLIENT_SECRET: secret, CODE_CHALLENGE: challenge };
  const [oursPort, peerPort, durablePeerPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const firestore = { FIRESTORE_EMULATOR_HOST: firestoreHost, GCLOUD_PROJECT: process.env.GCLOUD_PROJECT as string };
  const signingJwk = JSON.stringify(JSON.parse(keys)[0]);
  const ours = await startPinned(0, join(root, "bench", "servers", "oidc-ours.ts"), [], {
    ...common,
    ...firestore,
    PORT: String(oursPort),
    SESSION_KEYS: keys,
    CODE_VERIFIER: verifier,
    CODE_PEPPER: `oidc-bench:${randomBytes(24).toString("hex")}`,
  });
  const peer = await startPinned(0, join(root, "bench", "servers", "oidc-peer.ts"), [], {
    ...common,
    PORT: String(peerPort),
    SIGNING_JWK: signingJwk,
    PEER_STORE: "memory",
  });
  const durablePeer = await startPinned(0, join(root, "bench", "servers", "oidc-peer.ts"), [], {
    ...common,
    ...firestore,
    PORT: String(durablePeerPort),
    SIGNING_JWK: signingJwk,
    PEER_STORE: "firestore",
  });
  const pids: Record<string, number> = {
    [OURS]: ours.child.pid as number,
    [PEER_IN_MEMORY]: peer.child.pid as number,
    [PEER_ON_FIRESTORE]: durablePeer.child.pid as number,
  };

  const servers: Record<string, string> = {
    [OURS]: `http://127.0.0.1:${oursPort}`,
    [PEER_IN_MEMORY]: `http://127.0.0.1:${peerPort}`,
    [PEER_ON_FIRESTORE]: `http://127.0.0.1:${durablePeerPort}`,
  };
  const tokenPath: Record<string, string> = {
    [OURS]: "/auth/oidc/token",
    [PEER_IN_MEMORY]: "/token",
    [PEER_ON_FIRESTORE]: "/token",
  };
  const headers = {
    authorization: `Basic ${Buffer.from(`bench-client:${secret}`).toString("base64")}`,
    "content-type": "application/x-www-form-urlencoded",
  };
  const form = (code: string) =>
    new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    }).toString();
  const mint = async (base: string, n: number): Promise<string[]> => {
    const res = await fetch(`${base}/bench/mint?n=${n}`, { method: "POST" });
    const text = await res.text();
    if (res.status !== 200)
      throw new Error(`minting ${n} codes at ${base} answered ${res.status}: ${text.slice(0, 800)}`);
    const codes = JSON.parse(text) as unknown;
    if (!Array.isArray(codes) || codes.length !== n)
      throw new Error(`minting ${n} codes at ${base} answered ${res.status}: ${JSON.stringify(codes).slice(0, 200)}`);
    return codes as string[];
  };

  // Both must really complete the flow, with an ID token, before their figures mean anything.
  for (const [name, base] of Object.entries(servers)) {
    const [code] = await mint(base, 1);
    const res = await fetch(base + (tokenPath[name] as string), {
      method: "POST",
      headers,
      body: form(code as string),
    });
    const body = (await res.json()) as { id_token?: string };
    if (res.status !== 200 || typeof body.id_token !== "string")
      throw new Error(`${name} answered ${res.status}: ${JSON.stringify(body)}`);
  }
  const firestoreWorker = firestorePid();
  const run = async (name: string, n: number): Promise<{ result: LoadResult; cpu: CpuUse }> => {
    const base = servers[name] as string;
    const bodies = (await mint(base, n)).map(form);
    return measured(pids[name] as number, firestoreWorker, n, () =>
      loadBodies({ url: base + tokenPath[name], method: "POST", headers, bodies }, CONNECTIONS),
    );
  };
  const names = Object.keys(servers);
  for (const name of names) await run(name, 300); // warm-up
  const rows: Record<string, LoadResult[]> = Object.fromEntries(names.map((name) => [name, []]));
  const cpu: Record<string, CpuUse[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of names) {
      const round = await run(name, CODES);
      rows[name]?.push(round.result);
      cpu[name]?.push(round.cpu);
    }
  }
  const redeemed: Record<string, number> = {};
  for (const name of names) {
    const base = servers[name] as string;
    let tokens = 0;
    for (const code of await mint(base, RACE_CODES)) {
      const answers = await Promise.all(
        Array.from({ length: RACE_TRIES }, () =>
          fetch(base + tokenPath[name], { method: "POST", headers, body: form(code) }),
        ),
      );
      tokens += answers.filter((a) => a.status === 200).length;
    }
    redeemed[name] = tokens;
  }
  const lifecycle = await runLifecycle({
    servers,
    pids,
    ours: OURS,
    secret,
    firestoreWorker,
    connections: CONNECTIONS,
  });
  return { rows, cpu, redeemed, lifecycle };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.env.GCLOUD_PROJECT ??= "demo-bench";
  process.env.METADATA_SERVER_DETECTION = "none";
  const { rows, cpu, redeemed, lifecycle } = await runOidcBench((await benchFirestore()).host);
  for (const [name, results] of Object.entries(rows)) {
    const use = cpu[name] ?? [];
    const rounds = results.map(
      (r, i) =>
        `${Math.round(r.rps)}/s p99 ${r.p99} ms non2xx ${r.non2xx} errors ${r.errors} cpu ${use[i]?.msPerRequest.toFixed(2)} ms/req busy ${use[i]?.serverBusy.toFixed(2)}`,
    );
    console.log(name, rounds.join(" | "), `| codes redeemed: ${redeemed[name]} for ${RACE_CODES}`);
  }
  for (const [op, bySide] of Object.entries(lifecycle.rows))
    for (const [name, results] of Object.entries(bySide)) {
      const use = lifecycle.cpu[op]?.[name] ?? [];
      const rounds = results.map(
        (r, i) =>
          `${Math.round(r.rps)}/s p99 ${r.p99} ms non2xx ${r.non2xx} errors ${r.errors} cpu ${use[i]?.msPerRequest.toFixed(2)} ms/req`,
      );
      console.log(`${op}, ${name}`, rounds.join(" | "));
    }
  console.log("refreshed once?", JSON.stringify(lifecycle.races));
  process.exit(0);
}
