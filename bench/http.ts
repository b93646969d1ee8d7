/**
 * Target 2: POST /auth/session/refresh and a gated GET with a cookie, end to end over loopback:
 * the service's apps vs a conventional express app (verifySessionCookie + a Firestore read per
 * request), and a bare express /hello as the floor. Servers on core 0, load on core 1.
 */
import { join } from "node:path";
import { service, requireFromFunctions, root } from "./lib/functions.ts";
import { sessionKeysJson } from "./lib/keys.ts";
import { load, type LoadResult, type Target } from "./lib/load.ts";
import { freePort, startPinned } from "./lib/procs.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

export interface HttpBench {
  rows: Record<string, LoadResult[]>;
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
  return { rows };
}
