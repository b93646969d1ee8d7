/**
 * Target 4: what a new instance pays before it can answer. Each figure is measured in a fresh
 * process (module caches empty), repeated, median reported:
 *   entry X        require("lib/index.js") with FUNCTION_TARGET=X: what the runtime loads when it
 *                  starts an instance of function X, before the first request
 *   first request X  entry X + building group X's app on its first request (routes, deps, SDKs)
 *   deploy manifest  require("lib/index.js") as deploy reads it, every export through onRequest
 *   eager          every group's code and every SDK loaded up front (the baseline)
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { functionsDir } from "./lib/functions.ts";
import { fmt, median, range } from "./lib/stats.ts";

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 7);
const GROUPS = ["sessions", "startpage", "people", "status", "otp"];
/** The functions target 4 is about: sessions and the gated groups. */
export const GATED_AND_SESSIONS = ["sessions", "startpage", "people", "status"];

function probe(body: string, target = ""): number {
  const script = `
    const t0 = process.hrtime.bigint();
    ${body}
    console.log(Number(process.hrtime.bigint() - t0) / 1e6);
  `;
  const out = spawnSync("taskset", ["-c", "0", process.execPath, "-e", script], {
    cwd: functionsDir,
    encoding: "utf8",
    env: {
      ...process.env,
      GCLOUD_PROJECT: "demo-bench",
      FUNCTIONS_CONTROL_API: "",
      SESSION_KEYS: process.env.BENCH_SESSION_KEYS ?? "",
      FUNCTION_TARGET: target,
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

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = runColdStart();
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(rows));
  } else {
    for (const [name, values] of Object.entries(rows))
      console.log(`${name}: median ${fmt(median(values))} ms (range ${range(values)})`);
  }
}
