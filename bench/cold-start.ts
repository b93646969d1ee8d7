/**
 * Target 4: what a new instance pays before it can answer. Each figure is measured in a fresh
 * process (module caches empty), repeated, median reported:
 *   entry X        require("lib/index.js") with FUNCTION_TARGET=X: what the runtime loads when it
 *                  starts an instance of function X, before the first request
 *   first request X  entry X + building group X's app on its first request (routes, deps, SDKs)
 *   deploy manifest  require("lib/index.js") as deploy reads it, every export through onRequest
 *   eager          every group's code and every SDK loaded up front (the baseline)
 * all compiled afresh (the entry's compile cache off). With --first-read (section 4b): the first
 * request whole, with its first Firestore read, without and with the build's compile cache; and
 * the Firestore read alone over gRPC and over REST.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { functionsDir, root } from "./lib/functions.ts";
import { benchFirestore, freePort, startPinned, stopAll } from "./lib/procs.ts";
import { fmt, median, range } from "./lib/stats.ts";

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 7);
const GROUPS = ["sessions", "startpage", "people", "status", "otp"];
/** The functions target 4 is about: sessions and the gated groups. */
export const GATED_AND_SESSIONS = ["sessions", "startpage", "people", "status"];

/**
 * Section 4 measures loading as compiling it afresh (the entry's compile cache is turned off);
 * section 4b measures it both ways.
 */
const NO_COMPILE_CACHE = { NODE_DISABLE_COMPILE_CACHE: "1" };

function probe(body: string, target = "", env: Record<string, string> = NO_COMPILE_CACHE): number {
  const script = `(async () => {
    const t0 = process.hrtime.bigint();
    ${body}
    console.log(Number(process.hrtime.bigint() - t0) / 1e6);
    process.exit(0);
  })();`;
  const out = spawnSync("taskset", ["-c", "0", process.execPath, "-e", script], {
    cwd: functionsDir,
    encoding: "utf8",
    env: {
      ...process.env,
      GCLOUD_PROJECT: "demo-bench",
      FUNCTIONS_CONTROL_API: "",
      SESSION_KEYS: process.env.BENCH_SESSION_KEYS ?? "",
      FUNCTION_TARGET: target,
      ...env,
    },
  });
  if (out.status !== 0) throw new Error(out.stderr);
  return Number(out.stdout.trim().split("\n").pop());
}

const lib = (m: string) => JSON.stringify(join(functionsDir, "lib", m));

/** The first request's work without a request: load the group and build its express app. */
function firstRequest(group: string): string {
  return `
    require(${lib("index.js")});
    const { productionDeps } = require(${lib("deps.js")});
    const { createApp } = require(${lib("http/app.js")});
    const g = require(${lib(`routes/${group}.js`)});
    const deps = productionDeps();
    createApp(g.routes(deps), { presenter: g.presenter, allowedOrigins: deps.config.allowedOrigins, log: deps.log });
  `;
}

/** A fresh instance's first request whole: entry, the group's app built, and its first Firestore read. */
function firstRequestAndRead(group: string): string {
  return `${firstRequest(group)}
    await deps.store.doc("people/cold-start").get();
  `;
}

const EAGER = `
  require(${lib("index.js")});
  const { productionDeps } = require(${lib("deps.js")});
  const { createApp } = require(${lib("http/app.js")});
  const deps = productionDeps();
  for (const g of ${JSON.stringify(["sessions", "otp", "bridge", "oidc", "people", "startpage", "calendar", "location", "status", "claims"])}) {
    const m = require(${JSON.stringify(join(functionsDir, "lib", "routes"))} + "/" + g + ".js");
    createApp(m.routes(deps), { presenter: m.presenter, allowedOrigins: [], log: deps.log });
  }
  require("nodemailer"); require("zod"); require("jose");
  require("firebase-admin/firestore"); require("firebase-admin/auth");
`;

export function runColdStart(): Record<string, number[]> {
  const rows: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (rows[name] ??= []).push(ms);
  for (let i = 0; i < RUNS; i++) {
    for (const g of GROUPS) add(`entry ${g}`, probe(`require(${lib("index.js")});`, g));
    for (const g of GROUPS) add(`first request ${g}`, probe(firstRequest(g), g));
    add("deploy manifest", probe(`require(${lib("index.js")});`));
    add("eager", probe(EAGER));
  }
  return rows;
}

/**
 * The first Firestore read of a fresh process, through firebase-admin as the functions make it:
 * `load` is the SDK's modules (firebase-admin/app and /firestore), `read` the first `get()` after
 * them (client, channel, credentials, one round trip). Over gRPC (the SDK's default) against the
 * Firestore stand-in, and over REST (`preferRest: true`) against a stub that answers the same
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

/**
 * The first request of the sessions and gated functions whole, against the Firestore stand-in
 * over gRPC as deployed: compiling every module afresh, and with the compile cache as the build
 * leaves it (functions/lib/gcp-build.js, run as `gcp-build` runs it), interleaved.
 */
export function runFirstRequests(grpcHost: string): Record<string, number[]> {
  const dir = mkdtempSync(join(tmpdir(), "bench-compile-cache-"));
  const cache = { NODE_COMPILE_CACHE: dir, NODE_COMPILE_CACHE_PORTABLE: "1" };
  const rows: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (rows[name] ??= []).push(ms);
  try {
    const warm = spawnSync(process.execPath, [join(functionsDir, "lib", "gcp-build.js")], {
      cwd: functionsDir,
      encoding: "utf8",
      env: { ...process.env, GCLOUD_PROJECT: "demo-bench", ...cache },
    });
    if (warm.status !== 0) throw new Error(warm.stderr);
    const read = { FIRESTORE_EMULATOR_HOST: grpcHost, METADATA_SERVER_DETECTION: "none" };
    for (let i = 0; i < RUNS; i++) {
      for (const g of GATED_AND_SESSIONS) {
        add(`${g}: compiled afresh`, probe(firstRequestAndRead(g), g, { ...read, ...NO_COMPILE_CACHE }));
        add(`${g}: compile cache`, probe(firstRequestAndRead(g), g, { ...read, ...cache }));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** Section 4b of RESULTS.md: the first request whole, and its Firestore part, gRPC against REST. */
export function firstReadSection(
  cold: Record<string, number[]>,
  reads: Record<string, number[]>,
  whole: Record<string, number[]>,
): string[] {
  const m = (rows: Record<string, number[]>, name: string) => median(rows[name] ?? []);
  const table = (rows: Record<string, number[]>) => [
    "| What | ms, median | range |",
    "|---|---|---|",
    ...Object.entries(rows).map(([name, v]) => `| ${name} | ${fmt(median(v))} | ${range(v)} |`),
    "",
  ];
  const worst = (way: string) => Math.max(...GATED_AND_SESSIONS.map((g) => m(whole, `${g}: ${way}`)));
  const cached = worst("compile cache");
  const afresh = worst("compiled afresh");
  const grpc = m(reads, "first read, grpc");
  const rest = m(reads, "first read, rest");
  return [
    "## 4b. A fresh instance's first request, whole (`npm run bench:cold-start`, one core)",
    "",
    "Entry, the group's app built and its first Firestore read (gRPC, against the stand-in), in a fresh process:",
    "",
    ...table(whole),
    `**With the build's compile cache: ${(cached / afresh).toFixed(2)}× compiling afresh** (slowest of the sessions and`,
    `gated functions: ${fmt(cached)} vs ${fmt(afresh)} ms). **Target ≤ 250 ms: ${cached <= 250 ? "met" : "not met"}.**`,
    "",
    "The Firestore part alone, through firebase-admin, over gRPC and over REST (`preferRest`, against a stub):",
    "",
    ...table(reads),
    `**First read over REST: ${(rest / grpc).toFixed(2)}× the gRPC one** (${fmt(rest)} vs ${fmt(grpc)} ms; the REST peer is a stub, so this is the client's side).`,
    `The SDK's modules take ${fmt(m(reads, "SDK load (grpc)"))} ms with gRPC and ${fmt(m(reads, "SDK load (rest)"))} ms with REST: @google-cloud/firestore loads`,
    "@google-cloud/firestore-api at its start, whose generated clients load google-gax with @grpc/grpc-js,",
    "whichever transport is chosen. REST would save part of the read, not the load.",
    `This run's section 4 measure (app built, before the read, compiled afresh): at most ${fmt(Math.max(...GATED_AND_SESSIONS.map((g) => m(cold, `first request ${g}`))))} ms.`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv.includes("--first-read")) {
  try {
    const cold = runColdStart();
    const host = await benchFirestore();
    const reads = await runFirstRead(host);
    const whole = runFirstRequests(host);
    const lines = firstReadSection(cold, reads, whole);
    for (const line of lines) console.log(line);
    writeColdStartSection(lines);
  } finally {
    stopAll();
  }
  process.exit(0);
}

/** Replaces this bench's section of RESULTS.md (`npm run bench` keeps it), adding it before the pages' when absent. */
function writeColdStartSection(lines: string[]): void {
  const path = join(root, "bench", "RESULTS.md");
  const previous = existsSync(path) ? readFileSync(path, "utf8") : "";
  const section = `<!-- cold-start:start -->\n${lines.join("\n")}\n<!-- cold-start:end -->`;
  const next = /<!-- cold-start:start -->[\s\S]*<!-- cold-start:end -->/.test(previous)
    ? previous.replace(/<!-- cold-start:start -->[\s\S]*<!-- cold-start:end -->/, section)
    : previous.replace("<!-- pages:start -->", `${section}\n\n<!-- pages:start -->`);
  writeFileSync(path, next);
  console.log("\nwritten to bench/RESULTS.md");
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
