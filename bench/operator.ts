/**
 * `npm run bench:operator`: how long an operator waits for one `npm run operator` command, before and
 * after the CLI stopped building the functions on every call. Each command runs as its script
 * runs it, against the Firestore the stack would choose (Google's emulator where found;
 * FIRESTORE_STAND_IN=1 for the stand-in), rounds interleaved; writes section 7 of
 * bench/RESULTS.md (`npm run bench` keeps it).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { root } from "./lib/functions.ts";
import { benchFirestore, machineLoad, stopAll } from "./lib/procs.ts";
import { writeSection } from "./lib/results.ts";
import { median, range } from "./lib/stats.ts";

const ROUNDS = 5;
const GOAL_MS = 1_500;
/**
 * The script as it was: the functions built on every call (then `tsc -p tsconfig.build.json`
 * alone; today's build also bundles), then the compiled CLI. Built beside lib/ (the same tsc, the
 * same files), so these rounds leave the build the "after" rounds use alone: a build in lib/
 * would, rightly, make the next `npm run operator` build once more.
 */
const BEFORE_LIB = join(root, "functions", ".bench-lib");
const BEFORE = `sh tools/setup.sh >&2 && npm --prefix functions exec --silent -- tsc -p functions/tsconfig.build.json --outDir functions/.bench-lib && node ${join(BEFORE_LIB, "ops", "operator.js")}`;
const AFTER = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> })
  .scripts.operator as string;
const COMMANDS = [["people", "list"], ["clients", "list"], ["status"]];

for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    stopAll();
    rmSync(BEFORE_LIB, { recursive: true, force: true });
    process.exit(1);
  });
const PROJECT = "demo-bench-operator";
const loadAtStart = machineLoad();
const started = performance.now();
const firestore = await benchFirestore(PROJECT);
// Nothing else in the environment says where to work: the emulator host does, as for a script.
const env = { ...process.env, FIRESTORE_EMULATOR_HOST: firestore.host, GCLOUD_PROJECT: PROJECT };

function timed(command: string): number {
  const started = performance.now();
  const run = spawnSync("sh", ["-c", command], { cwd: root, env, stdio: ["ignore", "ignore", "pipe"] });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`${command} failed: ${run.stderr.toString()}`);
  return ms;
}

// Something to list, and a build that is current for the "after" rounds.
timed(`${AFTER} bootstrap-admin bench@example.test`);
timed(`${AFTER} clients register bench-client --name Bench --redirect-uri https://bench.example.test/cb`);

const rows: Array<{ what: string; ms: number[] }> = [];
for (const words of COMMANDS) {
  const args = words.join(" ");
  const row = (what: string) => {
    const found = rows.find((r) => r.what === what);
    if (found) return found;
    const made = { what, ms: [] as number[] };
    rows.push(made);
    return made;
  };
  for (let round = 0; round < ROUNDS; round++) {
    row(`${args}: before (build on every call)`).ms.push(timed(`${BEFORE} ${args}`));
    row(`${args}: after (\`npm run operator -- ${args}\`)`).ms.push(timed(`npm run --silent operator -- ${args}`));
    row(`${args}: the compiled CLI alone (floor)`).ms.push(timed(`node functions/lib/ops/operator.js ${args}`));
  }
}
stopAll();
rmSync(BEFORE_LIB, { recursive: true, force: true });

const at = (what: string) => median(rows.find((r) => r.what.startsWith(what))?.ms ?? [NaN]);
const lines = [
  `## 7. The operator CLI, per command (\`npm run bench:operator\`, on ${firestore.kind === "official" ? "Google's Firestore emulator" : "the Firestore stand-in"})`,
  "",
  `Each command as the operator runs it, ${ROUNDS} rounds interleaved, against ${firestore.what}, on core 1`,
  `(${((performance.now() - started) / 60_000).toFixed(0)} min; the machine's load average ${loadAtStart} at the start, ${machineLoad()} at the end).`,
  "Before: the script built the functions on every call (then `tsc -p tsconfig.build.json`, timed here as",
  "`npm --prefix functions exec -- tsc`, since today's build script also bundles), then ran the compiled CLI.",
  "After: `npm run operator` builds only when the sources changed (tools/build-functions.ts), then runs the CLI",
  "in the same process with Node's compile cache.",
  "",
  "| Command | ms, median | range |",
  "|---|---|---|",
  ...rows.map((r) => `| ${r.what} | ${Math.round(median(r.ms))} | ${range(r.ms)} |`),
  "",
];
for (const words of COMMANDS) {
  const args = words.join(" ");
  const [before, after] = [at(`${args}: before`), at(`${args}: after`)];
  lines.push(
    `- \`${args}\`: **${(after / before).toFixed(2)}× the time before** (${Math.round(after)} vs ${Math.round(before)} ms).`,
  );
}
const peopleList = at("people list: after");
lines.push(
  "",
  `**\`npm run operator -- people list\`: ${Math.round(peopleList)} ms** (goal ≤ ${GOAL_MS} ms: ${peopleList <= GOAL_MS ? "met" : "not met"}).`,
  "",
);
console.log(lines.join("\n"));

writeSection("operator", lines, "soak");
console.log("\nwritten to bench/RESULTS.md");
process.exit(0);
