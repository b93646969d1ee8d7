/**
 * Target 2: POST /auth/session/refresh and a gated GET with a cookie, end to end over loopback:
 * the service's apps vs a conventional express app (verifySessionCookie + a Firestore read per
 * request), and a bare express /hello as the floor. Servers on core 0, load on core 1.
 */
import { join } from "node:path";
import { service, requireFromFunctions, root } from "./lib/functions.ts";
import { sessionKeysJson } from "./lib/keys.ts";
import { load, type LoadResult, type Target } from "./lib/load.ts";
import { measured } from "./lib/cpu-use.ts";
import { freePort, startPinned } from "./lib/procs.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/**
 * A gated GET built up a layer at a time (bench/servers/gate-layers.ts), each its own server: what
 * each layer adds is the difference in the server's CPU per request between it and the one before.
 */
export const LAYERS = {
  express: "a bare express route answering the same JSON",
  shell: "+ the service's app shell: a trace id, no-store, the request deadline, CORS, not-found and error handling",
  router: "+ the sessions group's routes in front of it, as in a function",
  async: "+ the answer given after an await, as every handler that reads anything gives it",
  gate: "+ the gate: the session cookie read, its token (verified before), the cached person, the access rule",
} as const;
export type Layer = keyof typeof LAYERS;

export interface LayerRound {
  rps: number;
  /** The server's CPU per request (all its threads, from /proc), in µs. */
  cpuUs: number;
}

/** The gate's steps in process, µs per call (bench/servers/gate-steps.ts). */
export interface GateSteps {
  whole: number;
  cookie: number;
  token: number;
  clock: number;
  person: number;
  rules: number;
  seen: number;
  await: number;
}

export interface HttpBench {
  rows: Record<string, LoadResult[]>;
  layers: Record<Layer, LayerRound[]>;
  steps: GateSteps;
}

export async function seedPerson(uid: string): Promise<string> {
  const { initializeApp, getApps } = requireFromFunctions("firebase-admin/app");
  const { getFirestore } = requireFromFunctions("firebase-admin/firestore");
  if (getApps().length === 0) initializeApp({ projectId: process.env.GCLOUD_PROJECT });
  const db = getFirestore();
  const people = service<any>("store/people");
  const person = await db.runTransaction(async (tx: unknown) =>
    people.create(
      db,
      tx,
      {
        uids: [uid],
        emails: [`${uid}@example.test`],
        phones: [],
        name: "Bench",
        role: "user",
        projects: ["startpage"],
        groups: [],
        status: "approved",
      },
      `bench-${uid}`,
      new Date(),
    ),
  );
  return person.id;
}

export async function runHttpBench(firestoreHost: string): Promise<HttpBench> {
  const env = { FIRESTORE_EMULATOR_HOST: firestoreHost, GCLOUD_PROJECT: process.env.GCLOUD_PROJECT as string };
  const uid = `bench-${process.pid}`;
  const personId = await seedPerson(uid);
  const keys = sessionKeysJson("bench");
  const { sessionTokens } = service<any>("core/sessions/session-token");
  const now = new Date();
  const { token } = await sessionTokens(keys, "https://id.example.test", "example.test").issue(
    { uid, personId, sessionId: personId, authTime: now, amr: ["otp"] },
    now,
    14 * 24 * 3600 * 1000,
  );

  const [oursPort, conventionalPort, helloPort] = await Promise.all([freePort(), freePort(), freePort()]);
  await startPinned(0, join(root, "bench", "servers", "ours.ts"), [], {
    ...env,
    PORT: String(oursPort),
    SESSION_KEYS: keys,
  });
  const conventional = await startPinned(0, join(root, "bench", "servers", "conventional.ts"), [], {
    ...env,
    PORT: String(conventionalPort),
    BENCH_UID: uid,
  });
  await startPinned(0, join(root, "bench", "servers", "hello.ts"), [], { PORT: String(helloPort) });
  const legacyCookie = (conventional.lines.find((l) => l.startsWith("cookie ")) ?? "").slice("cookie ".length);

  const ours = `http://127.0.0.1:${oursPort}`;
  const base = `http://127.0.0.1:${conventionalPort}`;
  const targets: Record<string, Target> = {
    "refresh, ours": { url: `${ours}/auth/session/refresh`, method: "POST", headers: { cookie: `__session=${token}` } },
    "refresh, conventional": {
      url: `${base}/auth/session/refresh`,
      method: "POST",
      headers: { cookie: `__session=${legacyCookie}` },
    },
    "gated GET, ours": { url: `${ours}/bench/gated`, headers: { cookie: `__session=${token}` } },
    "gated GET, conventional": { url: `${base}/bench/gated`, headers: { cookie: `__session=${legacyCookie}` } },
    "express /hello": { url: `http://127.0.0.1:${helloPort}/hello` },
  };
  // Every target must answer 200 before its figures count for anything.
  for (const [name, t] of Object.entries(targets)) {
    const res = await fetch(t.url, { method: t.method ?? "GET", headers: t.headers });
    if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${await res.text()}`);
  }
  for (const t of Object.values(targets)) await load(t, 2); // warm-up
  const rows: Record<string, LoadResult[]> = Object.fromEntries(Object.keys(targets).map((k) => [k, []]));
  // Rounds interleave the targets, so drift in the machine's load spreads over all of them.
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, t] of Object.entries(targets)) rows[name]?.push(await load(t, SECONDS));
  }
  const layers = await runLayers(env, keys, token);
  const timed = await startPinned(0, join(root, "bench", "servers", "gate-steps.ts"), [], {
    ...env,
    SESSION_KEYS: keys,
    BENCH_TOKEN: token,
  });
  const line = timed.lines.find((l) => l.startsWith("steps ")) ?? "";
  timed.child.kill("SIGTERM");
  return { rows, layers, steps: JSON.parse(line.slice("steps ".length)) as GateSteps };
}

async function runLayers(
  env: Record<string, string>,
  keys: string,
  token: string,
): Promise<Record<Layer, LayerRound[]>> {
  const names = Object.keys(LAYERS) as Layer[];
  const servers = new Map<Layer, { target: Target; pid: number }>();
  for (const layer of names) {
    const port = await freePort();
    const { child } = await startPinned(0, join(root, "bench", "servers", "gate-layers.ts"), [], {
      ...env,
      PORT: String(port),
      LAYER: layer,
      SESSION_KEYS: keys,
    });
    const target = { url: `http://127.0.0.1:${port}/bench/gated`, headers: { cookie: `__session=${token}` } };
    const res = await fetch(target.url, { headers: target.headers });
    if (res.status !== 200) throw new Error(`layer ${layer} answered ${res.status}: ${await res.text()}`);
    await load(target, 2); // warm-up
    servers.set(layer, { target, pid: child.pid as number });
  }
  const layers = Object.fromEntries(names.map((n) => [n, [] as LayerRound[]])) as Record<Layer, LayerRound[]>;
  for (let r = 0; r < ROUNDS; r++) {
    for (const layer of names) {
      const { target, pid } = servers.get(layer) as { target: Target; pid: number };
      let requests = 0;
      const { result, cpu } = await measured(pid, null, 1, async () => {
        const round = await load(target, SECONDS);
        requests = round.requests;
        return round;
      });
      layers[layer].push({ rps: result.rps, cpuUs: (cpu.msPerRequest * 1000) / requests });
    }
  }
  return layers;
}
