/**
 * Section 5's rest of a grant's life, on the servers of the code grant (bench/oidc.ts), in the
 * same run: the refresh-token grant with rotation, introspection of a live access token,
 * userinfo, and revocation, for ours, oidc-provider in memory and oidc-provider on Firestore.
 *
 * Each side's grants are made beforehand, outside the measurement, by its own hook
 * (`POST /bench/grants?n=N`: ours redeems offline codes through its token endpoint's exchange,
 * the peer stores its models as its code grant does), for a client of each registered for
 * refresh tokens with the same secret, authenticating by client_secret_basic everywhere:
 * - refresh: `grant_type=refresh_token`, every request its own refresh token; both rotate on
 *   every use (ours always; the peer with `rotateRefreshToken: true`, not its default).
 * - introspection: `token=<access token>`, every request its own live token; the peer is given
 *   `token_type_hint=access_token`, which spares it nothing (it looks for an access token first)
 *   but says what ours needs no hint to know.
 * - userinfo: the access token as a form's `access_token` (RFC 6750 §2.2), which both take, so
 *   that every request carries a token of its own in its body; no client authentication.
 * - revocation: `token=<refresh token>`, which ends the grant on both sides (ours ends the grant
 *   and its access token in a transaction; the peer destroys the token, then deletes every model
 *   of its grant); the peer is given `token_type_hint=refresh_token`, sparing it a lookup.
 * Introspection and userinfo end nothing, so one set of grants serves all their rounds; refresh
 * and revocation spend theirs, and get fresh ones each round.
 *
 * Then "Refreshed once?": RACE_REFRESH_TOKENS refresh tokens, each presented RACE_PRESENTATIONS
 * times at once; how many presentations got tokens, whether any refresh token handed out stays
 * good afterwards (introspected), and for ours the grant as stored: docs/endpoints/oidc.md says
 * one is answered and the rest end the grant as a reuse.
 */
import { loadBodies, type LoadResult } from "./lib/load.ts";
import { measured, type CpuUse } from "./lib/cpu-use.ts";

// Fewer than the code grant's 3,000: oidc-provider's revocation on Google's emulator runs at a few a
// second (bench/oidc-lifecycle-report.ts says why), and each round spends fresh grants.
const GRANTS = Number(process.env.BENCH_OIDC_GRANTS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const OFFLINE_CLIENT = "bench-offline";
export const RACE_REFRESH_TOKENS = 10;
export const RACE_PRESENTATIONS = 10;

/** The servers of section 5, by the code grant's row names, with what the lifecycle needs of them. */
export interface Sides {
  servers: Record<string, string>;
  pids: Record<string, number>;
  /** The row name of ours (the others are oidc-provider's). */
  ours: string;
  secret: string;
  firestoreWorker: number | null;
  connections: number;
}

type Minted = { access_token: string; refresh_token: string };

interface Operation {
  paths: { ours: string; peer: string };
  body: (grant: Minted, peer: boolean) => string;
  /** Whether the client authenticates (userinfo takes the access token alone). */
  authenticated: boolean;
  /** Whether a request ends what it presents, so each round needs grants of its own. */
  spends: boolean;
  /** What a good answer looks like, checked once per side before anything is measured. */
  good: (status: number, body: Record<string, unknown>) => boolean;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

export const OPERATIONS: Record<string, Operation> = {
  refresh: {
    paths: { ours: "/auth/oidc/token", peer: "/token" },
    body: (g) => form({ grant_type: "refresh_token", refresh_token: g.refresh_token }),
    authenticated: true,
    spends: true,
    good: (status, b) => status === 200 && typeof b.access_token === "string" && typeof b.refresh_token === "string",
  },
  introspection: {
    paths: { ours: "/auth/oidc/introspect", peer: "/token/introspection" },
    body: (g, peer) => form({ token: g.access_token, ...(peer ? { token_type_hint: "access_token" } : {}) }),
    authenticated: true,
    spends: false,
    good: (status, b) => status === 200 && b.active === true,
  },
  userinfo: {
    paths: { ours: "/auth/oidc/userinfo", peer: "/me" },
    body: (g) => form({ access_token: g.access_token }),
    authenticated: false,
    spends: false,
    good: (status, b) => status === 200 && typeof b.sub === "string",
  },
  revocation: {
    paths: { ours: "/auth/oidc/revoke", peer: "/token/revocation" },
    body: (g, peer) => form({ token: g.refresh_token, ...(peer ? { token_type_hint: "refresh_token" } : {}) }),
    authenticated: true,
    spends: true,
    good: (status) => status === 200,
  },
};

/** Of one side's race: presentations that got tokens per refresh token, and what was left after. */
export interface Race {
  tokensPerRefreshToken: number[];
  /** Refresh tokens handed out in the race that introspection still calls active afterwards. */
  stillActive: number;
  /** Ours only: grants stored as ended by reuse (null for the peer, which has no such record). */
  endedByReuse: number | null;
}

export interface Lifecycle {
  /** By operation, then by side (the code grant's row names). */
  rows: Record<string, Record<string, LoadResult[]>>;
  cpu: Record<string, Record<string, CpuUse[]>>;
  races: Record<string, Race>;
}

export async function runLifecycle(sides: Sides): Promise<Lifecycle> {
  const names = Object.keys(sides.servers);
  const basic = `Basic ${Buffer.from(`${OFFLINE_CLIENT}:${sides.secret}`).toString("base64")}`;
  const formType = { "content-type": "application/x-www-form-urlencoded" };
  const headersFor = (op: Operation) => (op.authenticated ? { ...formType, authorization: basic } : formType);
  const urlOf = (name: string, op: Operation) =>
    (sides.servers[name] as string) + (name === sides.ours ? op.paths.ours : op.paths.peer);
  const grants = async (name: string, n: number): Promise<Minted[]> => {
    const res = await fetch(`${sides.servers[name]}/bench/grants?n=${n}`, { method: "POST" });
    const text = await res.text();
    if (res.status !== 200)
      throw new Error(`minting ${n} grants at ${name} answered ${res.status}: ${text.slice(0, 800)}`);
    const made = JSON.parse(text) as unknown;
    if (!Array.isArray(made) || made.length !== n)
      throw new Error(`minting ${n} grants at ${name} answered ${res.status}: ${JSON.stringify(made).slice(0, 200)}`);
    return made as Minted[];
  };
  const send = (name: string, op: Operation, grant: Minted) =>
    fetch(urlOf(name, op), { method: "POST", headers: headersFor(op), body: op.body(grant, name !== sides.ours) });

  // Every side must really answer each request as the contract says before its figures mean anything.
  for (const name of names)
    for (const [opName, op] of Object.entries(OPERATIONS)) {
      const res = await send(name, op, ((await grants(name, 1)) as [Minted])[0]);
      const text = await res.text();
      const body = (text === "" ? {} : JSON.parse(text)) as Record<string, unknown>;
      if (!op.good(res.status, body)) throw new Error(`${opName} at ${name} answered ${res.status}: ${text}`);
    }

  // One set of grants per side for the operations that end nothing, made once.
  const kept: Record<string, Minted[]> = {};
  for (const name of names) kept[name] = await grants(name, GRANTS);
  const round = async (name: string, op: Operation, n: number) => {
    const made = op.spends ? await grants(name, n) : (kept[name] as Minted[]).slice(0, n);
    const bodies = made.map((g) => op.body(g, name !== sides.ours));
    const target = { url: urlOf(name, op), method: "POST" as const, headers: headersFor(op), bodies };
    return measured(sides.pids[name] as number, sides.firestoreWorker, n, () => loadBodies(target, sides.connections));
  };
  const ops = Object.keys(OPERATIONS);
  const rows = Object.fromEntries(ops.map((op) => [op, Object.fromEntries(names.map((n) => [n, [] as LoadResult[]]))]));
  const cpu = Object.fromEntries(ops.map((op) => [op, Object.fromEntries(names.map((n) => [n, [] as CpuUse[]]))]));
  for (const op of ops) for (const name of names) await round(name, OPERATIONS[op] as Operation, 200); // warm-up
  for (let r = 0; r < ROUNDS; r++)
    for (const op of ops)
      for (const name of names) {
        const done = await round(name, OPERATIONS[op] as Operation, GRANTS);
        rows[op]?.[name]?.push(done.result);
        cpu[op]?.[name]?.push(done.cpu);
      }

  const races: Record<string, Race> = {};
  for (const name of names) races[name] = await race(name);
  return { rows, cpu, races };

  /** Each of RACE_REFRESH_TOKENS refresh tokens presented RACE_PRESENTATIONS times at once. */
  async function race(name: string): Promise<Race> {
    const refresh = OPERATIONS.refresh as Operation;
    const introspection = OPERATIONS.introspection as Operation;
    const result: Race = { tokensPerRefreshToken: [], stillActive: 0, endedByReuse: name === sides.ours ? 0 : null };
    for (const grant of await grants(name, RACE_REFRESH_TOKENS)) {
      const answers = await Promise.all(Array.from({ length: RACE_PRESENTATIONS }, () => send(name, refresh, grant)));
      const won = answers.filter((a) => a.status === 200);
      result.tokensPerRefreshToken.push(won.length);
      await Promise.all(answers.filter((a) => a.status !== 200).map((a) => a.body?.cancel()));
      // Whatever the race handed out should be dead once a reuse has ended the grant.
      for (const answer of won) {
        const { refresh_token: next } = (await answer.json()) as Minted;
        const asked = await fetch(urlOf(name, introspection), {
          method: "POST",
          headers: headersFor(introspection),
          body: form({ token: next, ...(name === sides.ours ? {} : { token_type_hint: "refresh_token" }) }),
        });
        if (((await asked.json()) as { active?: boolean }).active === true) result.stillActive++;
      }
      if (name === sides.ours) {
        const res = await fetch(`${sides.servers[name]}/bench/grant-state`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ refresh_token: grant.refresh_token }),
        });
        const state = (await res.json()) as { endedBecause?: string } | null;
        if (state?.endedBecause === "reuse") result.endedByReuse = (result.endedByReuse ?? 0) + 1;
      }
    }
    return result;
  }
}
