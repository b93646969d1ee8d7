/**
 * Target 4: what a new instance pays before it can answer. Each figure is measured in a fresh
 * process pinned to one core, repeated, median reported:
 *   start X          lib/runtime/main.js with FUNCTION_TARGET=X, as the runtime starts an instance of
 *                    function X: X's bundle, with the code cache the platform's build makes
 *   deploy manifest  lib/runtime/main.js as deploy reads it, every export through onRequest
 *   eager            every group's code and every SDK loaded up front, unbundled, compiled afresh
 * With --first-read (section 4b, `npm run bench:cold-start`): a fresh instance's first request
 * whole, three ways, interleaved; the Firestore read alone over gRPC and over REST; and what a
 * deploy weighs with and without the bundles.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installed, upload, weigh, type Weight } from "./lib/deploy-size.ts";
import { functionsDir, service } from "./lib/functions.ts";
import { writeSection } from "./lib/results.ts";
import { sessionKeysJson } from "./lib/keys.ts";
import { benchFirestore, freePort, machineLoad, startPinned, stopAll, type BenchFirestore } from "./lib/procs.ts";
import { fmt, median, range } from "./lib/stats.ts";

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 7);
/** The functions target 4 is about: sessions, the gated groups and the email codes. */
export const GATED_AND_SESSIONS = ["sessions", "startpage", "people", "status", "otp"];
const GOAL_MS = 200;
const GOAL_RATIO = 0.6;

/** Runs `body` in a fresh process on core 0 from `cwd`; prints the ms from its start to `done()`. */
function probe(body: string, cwd: string, env: Record<string, string>): number {
  const script = `(async () => {
    const t0 = process.hrtime.bigint();
    const done = () => { console.log(Number(process.hrtime.bigint() - t0) / 1e6); process.exit(0); };
    ${body}
  })();`;
  const out = spawnSync("taskset", ["-c", "0", process.execPath, "-e", script], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GCLOUD_PROJECT: "demo-bench", FUNCTIONS_CONTROL_API: "", ...env },
    timeout: 60_000,
  });
  if (out.status !== 0) throw new Error(out.stderr);
  return Number(out.stdout.trim().split("\n").pop());
}

/**
 * The functions as the platform holds them after its build: package.json and lib/ without the
 * source maps, in a directory of their own with no node_modules, and with `codeCache` the
 * build's step (`gcp-build`) run there with this Node, as the platform runs it with the runtime's.
 */
function deployedCopy(codeCache: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), "bench-deployed-"));
  cpSync(join(functionsDir, "package.json"), join(dir, "package.json"));
  cpSync(join(functionsDir, "lib"), join(dir, "lib"), {
    recursive: true,
    filter: (path) => !path.endsWith(".map") && !path.endsWith(".cache"),
  });
  if (codeCache) {
    const build = spawnSync(process.execPath, [join("lib", "runtime", "gcp-build.js")], { cwd: dir, encoding: "utf8" });
    if (build.status !== 0) throw new Error(build.stderr);
  }
  return dir;
}

const lib = (m: string) => JSON.stringify(join(functionsDir, "lib", m));

const EAGER = `
  const { productionDeps } = require(${lib("deps.js")});
  const { createApp } = require(${lib("http/app.js")});
  const deps = productionDeps();
  const { GROUPS } = require(${lib("groups.js")});
  for (const load of Object.values(GROUPS)) {
    const m = load();
    createApp(m.routes(deps), { presenter: m.presenter, allowedOrigins: [], log: deps.log });
  }
  require("nodemailer"); require("zod"); require("jose");
  require("firebase-admin/firestore"); require("firebase-admin/auth");
  done();
`;

/** Section 4 (`npm run bench`): an instance's start, the manifest as deploy reads it, and everything loaded eagerly. */
export function runColdStart(): Record<string, number[]> {
  const deployed = deployedCopy(true);
  const rows: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (rows[name] ??= []).push(ms);
  const noCache = { NODE_DISABLE_COMPILE_CACHE: "1" };
  try {
    for (let i = 0; i < RUNS; i++) {
      for (const g of GATED_AND_SESSIONS)
        add(
          `start ${g}`,
          probe(`require("./lib/runtime/main.js"); done();`, deployed, { ...noCache, FUNCTION_TARGET: g }),
        );
      add(
        "deploy manifest",
        probe(`require(${lib("runtime/main.js")}); done();`, functionsDir, { ...noCache, FUNCTION_TARGET: "" }),
      );
      add("eager", probe(EAGER, functionsDir, { ...noCache, FUNCTION_TARGET: "" }));
    }
  } finally {
    rmSync(deployed, { recursive: true, force: true });
  }
  return rows;
}

/** Each function's first request: one that makes the function's first Firestore read. */
const FIRST_REQUESTS: Record<string, { method: string; path: string; body?: string }> = {
  // The session's person, read to refresh it.
  sessions: { method: "POST", path: "/auth/session/refresh" },
  // The gate's person lookup.
  startpage: { method: "GET", path: "/startpage/notifications" },
  people: { method: "GET", path: "/auth/people" },
  status: { method: "GET", path: "/status" },
  // The address's code.
  otp: {
    method: "POST",
    path: "/auth/otp/verify",
    body: JSON.stringify({ email: "cold@example.test", otp: "000000" }),
  },
};

/** Serves `handler` on loopback and sends it the group's first request, with a session cookie; `done()` on the answer. */
function firstRequest(group: string, handler: string, cookie: string): string {
  const { method, path, body } = FIRST_REQUESTS[group] as { method: string; path: string; body?: string };
  const headers = { origin: "https://example.test", cookie: `__session=${cookie}`, "content-type": "application/json" };
  return `
    const http = require("node:http");
    const server = http.createServer(${handler}).listen(0, "127.0.0.1", () => {
      http.request({ host: "127.0.0.1", port: server.address().port, method: ${JSON.stringify(method)},
        path: ${JSON.stringify(path)}, headers: ${JSON.stringify(headers)} }, (res) => res.resume().on("end", done))
        .end(${JSON.stringify(body ?? "")});
    });
  `;
}

/** Today's (before the bundles): the group's modules unbundled from lib/, loaded as the old entry did, then its app. */
const unbundled = (group: string) => `(() => {
  require(${lib("config/params.js")});
  const { GROUPS } = require(${lib("groups.js")});
  const { serve } = require(${lib("runtime/serve.js")});
  return serve(${JSON.stringify(group)}, GROUPS[${JSON.stringify(group)}]());
})()`;

/** A session of a person nobody holds, signed with a key made for this run. */
async function benchSession(): Promise<{ env: Record<string, string>; cookie: string }> {
  const keys = sessionKeysJson("cold");
  const { sessionTokens } = service<{
    sessionTokens: (
      keys: string,
      issuer: string,
      audience: string,
    ) => {
      issue: (session: object, now: Date, lifetimeMs: number) => Promise<{ token: string }>;
    };
  }>("core/sessions/session-token.js");
  const now = new Date();
  const session = { uid: "cold-uid", personId: "cold-person", sessionId: "cold-session", authTime: now, amr: [] };
  const { token } = await sessionTokens(keys, "https://id.example.test", "example.test").issue(session, now, 3_600_000);
  return { env: { SESSION_KEYS: keys, CODE_PEPPER: `cold:${randomBytes(32).toString("base64url")}` }, cookie: token };
}

/**
 * The first request of each function whole (the instance's start, the app built, the request
 * with its first Firestore read, over gRPC against the bench's Firestore, answered), three ways
 * interleaved: today's unbundled modules with Node's compile cache (filled by one run of the same
 * request, so it holds every module the request loads); the function's bundle as deployed,
 * compiled afresh; and the bundle with the code cache of the platform's build.
 */
export async function runFirstRequests(
  grpcHost: string,
): Promise<{ rows: Record<string, number[]>; codeCaches: Weight }> {
  const afresh = deployedCopy(false);
  const cached = deployedCopy(true);
  const compileCache = mkdtempSync(join(tmpdir(), "bench-compile-cache-"));
  const { env: secrets, cookie } = await benchSession();
  const env = { ...secrets, FIRESTORE_EMULATOR_HOST: grpcHost, METADATA_SERVER_DETECTION: "none" };
  const today = { ...env, NODE_COMPILE_CACHE: compileCache, NODE_COMPILE_CACHE_PORTABLE: "1" };
  const rows: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (rows[name] ??= []).push(ms);
  const bundled = (g: string) => `require("./lib/runtime/main.js")[${JSON.stringify(g)}]`;
  try {
    for (const g of GATED_AND_SESSIONS) probe(firstRequest(g, unbundled(g), cookie), functionsDir, today);
    for (let i = 0; i < RUNS; i++) {
      for (const g of GATED_AND_SESSIONS) {
        add(
          `${g}: today (unbundled, compile cache)`,
          probe(firstRequest(g, unbundled(g), cookie), functionsDir, today),
        );
        add(
          `${g}: bundle, compiled afresh`,
          probe(firstRequest(g, bundled(g), cookie), afresh, { ...env, FUNCTION_TARGET: g }),
        );
        add(
          `${g}: bundle + code cache`,
          probe(firstRequest(g, bundled(g), cookie), cached, { ...env, FUNCTION_TARGET: g }),
        );
      }
    }
    const bundles = join(cached, "lib", "bundles");
    const codeCaches = weigh(
      readdirSync(bundles)
        .filter((f) => f.endsWith(".cache"))
        .map((f) => join(bundles, f)),
      false,
    );
    return { rows, codeCaches };
  } finally {
    for (const dir of [afresh, cached, compileCache]) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The first Firestore read of a fresh process, through firebase-admin as the functions make it:
 * `load` is the SDK's modules (firebase-admin/app and /firestore), `read` the first `get()` after
 * them (client, channel, credentials, one round trip). Over gRPC (the SDK's default) against the
 * bench's Firestore (Google's emulator where found, else the stand-in), and over REST (`preferRest: true`) against a stub that answers the same
 * lookup at once: neither local emulator serves Firestore's REST surface here, so the REST figure
 * is the client's side of the read, a lower bound.
 */
function firstRead(transport: "grpc" | "rest", host: string): { load: number; read: number } {
  const settings =
    transport === "grpc"
      ? ""
      : `const auth = new (require("google-auth-library").OAuth2Client)(); auth.setCredentials({ access_token: "owner" });
         db.settings({ preferRest: true, host: ${JSON.stringify(host)}, ssl: false, authClient: auth });`;
  const script = `
    const t0 = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
    require("firebase-admin/app").initializeApp({ projectId: "demo-bench" });
    const { getFirestore } = require("firebase-admin/firestore");
    const load = ms();
    const db = getFirestore();
    ${settings}
    db.doc("people/cold-start").get().then(() => { console.log(JSON.stringify({ load, read: ms() - load })); process.exit(0); });
  `;
  const env: Record<string, string | undefined> = { ...process.env, METADATA_SERVER_DETECTION: "none" };
  if (transport === "grpc") env.FIRESTORE_EMULATOR_HOST = host;
  else delete env.FIRESTORE_EMULATOR_HOST;
  const out = spawnSync("taskset", ["-c", "0", process.execPath, "-e", script], {
    cwd: functionsDir,
    encoding: "utf8",
    env,
    timeout: 30_000,
  });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout.trim().split("\n").pop() as string);
}

/** Answers Firestore's REST lookup (`documents:batchGet`) with "missing", at once, in a process of its own. */
async function restStub(): Promise<{ host: string; stop: () => void }> {
  const port = await freePort();
  const source = `
    require("node:http").createServer((req, res) => {
      let body = ""; req.on("data", (c) => (body += c));
      req.on("end", () => {
        const doc = /"documents":\\["([^"]+)"/.exec(body)?.[1] ?? "";
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify([{ missing: doc, readTime: "2026-01-01T00:00:00.000000Z" }]));
      });
    }).listen(${port}, "127.0.0.1", () => console.log("ready"));
  `;
  const { child } = await startPinned(1, "-e", [source], {});
  return { host: `127.0.0.1:${port}`, stop: () => child.kill("SIGTERM") };
}

/** First reads over gRPC and REST, interleaved, in fresh processes. */
export async function runFirstRead(grpcHost: string): Promise<Record<string, number[]>> {
  const stub = await restStub();
  const rows: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (rows[name] ??= []).push(ms);
  try {
    for (let i = 0; i < RUNS; i++) {
      for (const transport of ["grpc", "rest"] as const) {
        const { load, read } = firstRead(transport, transport === "grpc" ? grpcHost : stub.host);
        add(`SDK load (${transport})`, load);
        add(`first read, ${transport}`, read);
      }
    }
  } finally {
    stub.stop();
  }
  return rows;
}

/** The deploy's weight, with the bundles and as it was before them (lib/ unbundled, the SDKs installed). */
export function deploySizes(): Record<string, { upload: Weight; installed: Weight }> {
  const dependencies = Object.keys(
    (JSON.parse(readFileSync(join(functionsDir, "package.json"), "utf8")) as { dependencies: Record<string, string> })
      .dependencies,
  );
  const bundles = join(functionsDir, "lib", "bundles");
  return {
    // What the functions declared before the bundles, and the Functions Framework the platform adds.
    "unbundled (before)": {
      upload: upload((path) => !path.startsWith(bundles)),
      installed: installed([
        "@google-cloud/functions-framework",
        ...["cors", "express", "firebase-admin", "firebase-functions", "jose", "nodemailer", "zod"],
      ]),
    },
    // Source maps stay behind (firebase.json `ignore`); the code caches are the build's, not uploaded.
    bundled: {
      upload: upload((path) => !path.endsWith(".map") && !path.endsWith(".cache")),
      installed: installed(dependencies),
    },
  };
}

/** Section 4b of RESULTS.md: the first request whole, its Firestore part, and the deploy's weight. */
export function firstRequestSection(
  firestore: BenchFirestore,
  whole: Record<string, number[]>,
  reads: Record<string, number[]>,
  sizes: ReturnType<typeof deploySizes>,
  codeCaches: Weight,
): string[] {
  const m = (rows: Record<string, number[]>, name: string) => median(rows[name] ?? []);
  const table = (rows: Record<string, number[]>) => [
    "| What | ms, median | range |",
    "|---|---|---|",
    ...Object.entries(rows).map(([name, v]) => `| ${name} | ${fmt(median(v))} | ${range(v)} |`),
    "",
  ];
  const cached = (g: string) => m(whole, `${g}: bundle + code cache`);
  const today = (g: string) => m(whole, `${g}: today (unbundled, compile cache)`);
  const slowest = Math.max(...GATED_AND_SESSIONS.map(cached));
  const ratio = Math.max(...GATED_AND_SESSIONS.map((g) => cached(g) / today(g)));
  const afresh = Math.max(...GATED_AND_SESSIONS.map((g) => m(whole, `${g}: bundle, compiled afresh`)));
  const grpc = m(reads, "first read, grpc");
  const rest = m(reads, "first read, rest");
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  return [
    `## 4b. A fresh instance's first request, whole (\`npm run bench:cold-start\`, one core, on ${firestore.kind === "official" ? "Google's Firestore emulator" : "the Firestore stand-in"})`,
    "",
    "A fresh process on one core: the instance's start, then one request through the function's handler over loopback",
    "(a session cookie for a person nobody holds; the otp function's code check), its app built and its first Firestore",
    `read made (gRPC, against ${firestore.what}, on the other core), until the answer. Three ways, interleaved: today's unbundled modules from lib/`,
    "with Node's compile cache (filled by a first run of the same request); the function's bundle as deployed, with no",
    "node_modules, compiled afresh; and the bundle with the code cache the platform's build makes (`gcp-build`, run there",
    "with this Node).",
    "",
    ...table(whole),
    `**The bundle with its code cache: at most ${fmt(slowest)} ms** (slowest of ${GATED_AND_SESSIONS.join(", ")}),`,
    `**at most ${ratio.toFixed(2)}× today's** per function. Goal ≤ ${GOAL_MS} ms: ${slowest <= GOAL_MS ? "met" : "not met"}; ≤ ${GOAL_RATIO}× today's: ${ratio <= GOAL_RATIO ? "met" : "not met"}.`,
    `Compiled afresh (a code cache V8 refuses) the bundle takes at most ${fmt(afresh)} ms.`,
    "",
    "What a deploy weighs: the upload (package.json, the lock file, lib/; no source maps) and what the platform's",
    "build installs and keeps (the `dependencies` and theirs: with the bundles, only the Functions Framework the",
    `runtime serves the handler with). The build adds the code caches it writes: ${codeCaches.files} files, ${mb(codeCaches.bytes)} MB.`,
    "",
    "| Deploy | upload, files | upload, MB (deflated) | installed packages, files | installed, MB |",
    "|---|---|---|---|---|",
    ...Object.entries(sizes).map(
      ([name, s]) =>
        `| ${name} | ${s.upload.files} | ${mb(s.upload.bytes)} (${mb(s.upload.deflated)}) | ${s.installed.files} | ${mb(s.installed.bytes)} |`,
    ),
    "",
    "The Firestore part alone, through firebase-admin, over gRPC and over REST (`preferRest`, against a stub):",
    "",
    ...table(reads),
    `**First read over REST: ${(rest / grpc).toFixed(2)}× the gRPC one** (${fmt(rest)} vs ${fmt(grpc)} ms; the REST peer is a stub, so this is the client's side).`,
    `The SDK's modules take ${fmt(m(reads, "SDK load (grpc)"))} ms with gRPC and ${fmt(m(reads, "SDK load (rest)"))} ms with REST: @google-cloud/firestore loads`,
    "@google-cloud/firestore-api at its start, whose generated clients load google-gax with @grpc/grpc-js,",
    "whichever transport is chosen. REST would save part of the read, not the load.",
  ];
}

/** Replaces this bench's section of RESULTS.md (`npm run bench` keeps it), adding it before the pages' when absent. */
function writeColdStartSection(lines: string[]): void {
  writeSection("cold-start", lines, "pages");
  console.log("\nwritten to bench/RESULTS.md");
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv.includes("--first-read")) {
  try {
    const [loadAtStart, started] = [machineLoad(), performance.now()];
    const firestore = await benchFirestore();
    const { rows: whole, codeCaches } = await runFirstRequests(firestore.host);
    const reads = await runFirstRead(firestore.host);
    const lines = firstRequestSection(firestore, whole, reads, deploySizes(), codeCaches);
    const minutes = ((performance.now() - started) / 60_000).toFixed(0);
    lines.splice(
      2,
      0,
      `${minutes} min on this machine (2 cores, shared; load average ${loadAtStart} at the start, ${machineLoad()} at the end).`,
      "",
    );
    for (const line of lines) console.log(line);
    writeColdStartSection(lines);
  } finally {
    stopAll();
  }
  process.exit(0);
}

if (import.meta.url === `file://${process.argv[1]}` && !process.argv.includes("--first-read")) {
  const rows = runColdStart();
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(rows));
  } else {
    for (const [name, values] of Object.entries(rows))
      console.log(`${name}: median ${fmt(median(values))} ms (range ${range(values)})`);
  }
}
