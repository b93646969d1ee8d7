/**
 * `npm run bench:invitations`: a file of 1,000 invitations through `POST /auth/invitations/file`,
 * on the Firestore the stack would choose (Google's emulator where found), against the same 1,000
 * addresses' worth invited one request at a time (`POST /auth/invitations`) in the same run: how
 * long each takes, every answer's status (a 503 is contention past the SDK's retries), and what was
 * stored (one invitation and one outbox entry per address). The same file again must invite nobody.
 * Server pinned to core 0, this process and the Firestore to core 1. Writes section 9 of
 * bench/RESULTS.md (`--no-write` prints it only).
 */
import { join } from "node:path";
import { requireFromFunctions, root, service } from "./lib/functions.ts";
import { sessionKeysJson } from "./lib/keys.ts";
import { benchFirestore, freePort, machineLoad, startPinned, stopAll } from "./lib/procs.ts";
import { writeSection } from "./lib/results.ts";

const ROWS = Number(process.env.BENCH_INVITATIONS ?? 1000);
const PROJECT = "demo-bench-invitations";
const write = !process.argv.includes("--no-write");
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    stopAll();
    process.exit(1);
  });

const loadAtStart = machineLoad();
const firestore = await benchFirestore(PROJECT);
process.env.FIRESTORE_EMULATOR_HOST = firestore.host;
process.env.GCLOUD_PROJECT = PROJECT;
const { initializeApp } = requireFromFunctions("firebase-admin/app");
const { getFirestore } = requireFromFunctions("firebase-admin/firestore");
initializeApp({ projectId: PROJECT });
const db = getFirestore();

// An administrator signed in just now, as a session cookie the server's keys verify.
const people = service<any>("store/people");
const now = new Date();
const admin = await db.runTransaction(async (tx: unknown) =>
  people.create(
    db,
    tx,
    {
      uids: ["bench-admin"],
      emails: ["admin@example.test"],
      phones: [],
      name: "Bench Admin",
      role: "admin",
      projects: ["*"],
      groups: [],
      status: "approved",
    },
    "bench-admin",
    now,
  ),
);
const keys = sessionKeysJson("bench");
const { sessionTokens } = service<any>("core/sessions/session-token");
const { token } = await sessionTokens(keys, "https://id.example.test", "example.test").issue(
  { uid: "bench-admin", personId: admin.id, sessionId: "bench", authTime: now, amr: ["otp"] },
  now,
  3600_000,
);
const cookie = `__session=${token}`;

const port = await freePort();
await startPinned(0, join(root, "bench", "servers", "people.ts"), [], {
  FIRESTORE_EMULATOR_HOST: firestore.host,
  GCLOUD_PROJECT: PROJECT,
  PORT: String(port),
  SESSION_KEYS: keys,
});
const base = `http://127.0.0.1:${port}`;

const addresses = (tag: string) => Array.from({ length: ROWS }, (_, i) => `${tag}-${i}@school.example`);
const csv = (emails: string[]) =>
  ["address,name,projects,groups", ...emails.map((e, i) => `${e},Pupil ${i},calendar;location,class-${i % 30}`)].join(
    "\n",
  );

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
}

async function upload(text: string, dryRun: boolean) {
  const res = await fetch(`${base}/auth/invitations/file?dryRun=${dryRun}`, {
    method: "POST",
    headers: { cookie, "content-type": "text/csv" },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as { counts?: Record<string, number> } };
}

// The baseline: each address its own request, one after another, as a script over the API would.
const oneByOne = addresses("single");
const statuses = new Map<number, number>();
const single = await timed(async () => {
  for (const address of oneByOne) {
    const res = await fetch(`${base}/auth/invitations`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ address, projects: ["calendar", "location"] }),
    });
    await res.arrayBuffer();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  }
});

const file = csv(addresses("file"));
const dry = await timed(() => upload(file, true));
const applied = await timed(() => upload(file, false));
const again = await timed(() => upload(file, false));

const stored = (await db.collection("invitations").count().get()).data().count as number;
const queued = (await db.collection("outbox").where("kind", "==", "invitation").count().get()).data().count as number;
const bulk = (await db.collection("outbox").where("lane", "==", "bulk").count().get()).data().count as number;
stopAll();

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const perSecond = (ms: number) => (ROWS / (ms / 1000)).toFixed(0);
const statusText = (m: Map<number, number>) => [...m].map(([code, n]) => `${n} × ${code}`).join(", ");
const lines = [
  `## 9. Invitations from a file (\`npm run bench:invitations\`, on ${firestore.kind === "official" ? "Google's Firestore emulator" : "the Firestore stand-in"})`,
  "",
  `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, load average ${loadAtStart} at the start. ${firestore.what}. The people group served by a plain HTTP server on core 0; this process and the Firestore on core 1. ${ROWS} rows of address, name, two projects and a group.`,
  "",
  "| What | Time | Rows a second | Answers |",
  "|---|---|---|---|",
  `| ${ROWS} invitations, one \`POST /auth/invitations\` each, one after another (baseline) | ${s(single.ms)} | ${perSecond(single.ms)} | ${statusText(statuses)} |`,
  `| The file, dry run (\`?dryRun=true\`) | ${s(dry.ms)} | ${perSecond(dry.ms)} | ${dry.result.status} |`,
  `| The file, applied | ${s(applied.ms)} | ${perSecond(applied.ms)} | ${applied.result.status}, ${JSON.stringify(applied.result.body.counts)} |`,
  `| The same file again | ${s(again.ms)} | ${perSecond(again.ms)} | ${again.result.status}, ${JSON.stringify(again.result.body.counts)} |`,
  "",
  `The file applied in **${(applied.ms / single.ms).toFixed(2)}×** the baseline's time (eight rows at once, each its own transaction). Stored: ${stored} invitations (${2 * ROWS} expected), ${queued} invitation mails queued, ${bulk} of them in the bulk lane.`,
];
console.log(lines.join("\n"));
const failed =
  applied.result.status !== 200 ||
  again.result.body.counts?.invited !== 0 ||
  stored !== 2 * ROWS ||
  queued !== 2 * ROWS ||
  [...statuses.keys()].some((code) => code !== 201);
if (write) writeSection("invitations", lines, "soak");
if (failed) {
  console.error("a contract broke: see above");
  process.exit(1);
}
process.exit(0);
