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

/** How the bench speaks to each side: its URLs, its client's headers, its hooks. */
function wire(sides: Sides) {
  const basic = `Basic ${Buffer.from(`${OFFLINE_CLIENT}:${sides.secret}`).toString("base64")}`;
  const formType = { "content-type": "application/x-www-form-urlencoded" };
  const headersFor = (op: Operation) => (op.authenticated ? { ...formType, authorization: basic } : formType);
  const peer = (name: string) => name !== sides.ours;
  const urlOf = (name: string, op: Operation) =>
    (sides.servers[name] as string) + op.paths[peer(name) ? "peer" : "ours"];
  return {
    peer,
    headersFor,
    urlOf,
    async grants(name: string, n: number): Promise<Minted[]> {
      const res = await fetch(`${sides.servers[name]}/bench/grants?n=${n}`, { method: "POST" });
      const text = await res.text();
      const made = (res.status === 200 ? JSON.parse(text) : null) as unknown;
      if (!Array.isArray(made) || made.length !== n)
        throw new Error(`minting ${n} grants at ${name} answered ${res.status}: ${text.slice(0, 800)}`);
      return made as Minted[];
    },
    send: (name: string, op: Operation, grant: Minted) =>
      fetch(urlOf(name, op), { method: "POST", headers: headersFor(op), body: op.body(grant, peer(name)) }),
    /** Whether introspection calls a refresh token active (the peer is told which kind it is). */
    async active(name: string, refreshToken: string): Promise<boolean> {
      const introspection = OPERATIONS.introspection as Operation;
      const res = await fetch(urlOf(name, introspection), {
        method: "POST",
        headers: headersFor(introspection),
        body: form({ token: refreshToken, ...(peer(name) ? { token_type_hint: "refresh_token" } : {}) }),
      });
      return ((await res.json()) as { active?: boolean }).active === true;
    },
  };
}
type Wire = ReturnType<typeof wire>;

export async function runLifecycle(sides: Sides): Promise<Lifecycle> {
  const w = wire(sides);
  const names = Object.keys(sides.servers);
  for (const name of names) await checkSide(w, name);
  const { rows, cpu } = await measure(w, sides, names);
  const races: Record<string, Race> = {};
  for (const name of names) races[name] = await race(w, name, name === sides.ours ? sides.servers[name] : null);
  return { rows, cpu, races };
}

/**
 * A side must really answer each request as the contract says before its figures mean anything;
 * and introspection must call a fresh refresh token active, or the race's "still active" would
 * count nothing whatever happened.
 */
async function checkSide(w: Wire, name: string): Promise<void> {
  for (const [opName, op] of Object.entries(OPERATIONS)) {
    const res = await w.send(name, op, ((await w.grants(name, 1)) as [Minted])[0]);
    const text = await res.text();
    const body = (text === "" ? {} : JSON.parse(text)) as Record<string, unknown>;
    if (!op.good(res.status, body)) throw new Error(`${opName} at ${name} answered ${res.status}: ${text}`);
  }
  const [fresh] = (await w.grants(name, 1)) as [Minted];
  if (!(await w.active(name, fresh.refresh_token)))
    throw new Error(`introspection at ${name} calls a fresh refresh token inactive`);
}

/** Interleaved rounds of every operation on every side, after a warm-up of each. */
async function measure(w: Wire, sides: Sides, names: string[]): Promise<Pick<Lifecycle, "rows" | "cpu">> {
  // One set of grants per side for the operations that end nothing, made once.
  const kept: Record<string, Minted[]> = {};
  for (const name of names) kept[name] = await w.grants(name, GRANTS);
  const round = async (name: string, op: Operation, n: number) => {
    const made = op.spends ? await w.grants(name, n) : (kept[name] as Minted[]).slice(0, n);
    const bodies = made.map((g) => op.body(g, w.peer(name)));
    const target = { url: w.urlOf(name, op), method: "POST" as const, headers: w.headersFor(op), bodies };
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
  return { rows, cpu };
}

/**
 * Each of RACE_REFRESH_TOKENS refresh tokens presented RACE_PRESENTATIONS times at once; then
 * whether what the race handed out still works, and (`ours`: its base URL) the grant as stored.
 */
async function race(w: Wire, name: string, ours: string | null): Promise<Race> {
  const refresh = OPERATIONS.refresh as Operation;
  const result: Race = { tokensPerRefreshToken: [], stillActive: 0, endedByReuse: ours === null ? null : 0 };
  for (const grant of await w.grants(name, RACE_REFRESH_TOKENS)) {
    const answers = await Promise.all(Array.from({ length: RACE_PRESENTATIONS }, () => w.send(name, refresh, grant)));
    const won = answers.filter((a) => a.status === 200);
    result.tokensPerRefreshToken.push(won.length);
    await Promise.all(answers.filter((a) => a.status !== 200).map((a) => a.body?.cancel()));
    // Whatever the race handed out should be dead once a reuse has ended the grant.
    for (const answer of won)
      if (await w.active(name, ((await answer.json()) as Minted).refresh_token)) result.stillActive++;
    if (ours !== null && (await endedBecause(ours, grant.refresh_token)) === "reuse")
      result.endedByReuse = (result.endedByReuse ?? 0) + 1;
  }
  return result;
}

/** Why ours stored the grant of a refresh token as ended (null: not ended, or no such token). */
async function endedBecause(base: string, refreshToken: string): Promise<string | null> {
  const res = await fetch(`${base}/bench/grant-state`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ refresh_token: refreshToken }),
  });
  const state = (await res.json()) as { endedBecause: string | null } | null;
  return state?.endedBecause ?? null;
}
