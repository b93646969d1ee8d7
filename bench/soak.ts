/**
 * `npm run soak`: the reliability battery. Mixed load for a bounded time (SOAK_SECONDS, default
 * 180) against the service in one process, with real faults injected into its dependencies,
 * then the invariants checked from the answers and from the stored state. It runs once on
 * Google's official Firestore emulator where one is found (tools/stack/firestore.ts chooses it)
 * and once on the stand-in, each on components of its own; SOAK_FIRESTORE=official or stand-in
 * runs only that one; SOAK_RUNS=N runs it N times in a row on each, each with fault timings of its
 * own (a seed; SOAK_SEED repeats the first run's). Writes its section of bench/RESULTS.md (the runs
 * side by side, and in a row) and exits non-zero when an invariant fails on any run. When a code
 * never comes, the report says what became of it (soak/lost-codes.ts). Loopback only; everything it starts stops at the
 * end or on Ctrl-C.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { chooseFirestore, flavour, type FirestoreChoice } from "../tools/stack/firestore.ts";
import { sessionKeysJson } from "./lib/keys.ts";
import { root } from "./lib/functions.ts";
import { Recorder } from "./soak/client.ts";
import { Environment, PROJECT } from "./soak/environment.ts";
import { runFaults } from "./soak/faults.ts";
import { createFixture, fixture } from "./soak/fixture.ts";
import { logChecks, lostCodes, notRecovered, type Check } from "./soak/invariants.ts";
import { explainLost, justBefore } from "./soak/lost-codes.ts";
import type { LoadContext } from "./soak/context.ts";
import { Control, pause, startLoad } from "./soak/load.ts";
import { renderReport, writeSection, type Run } from "./soak/report.ts";
import { storedChecks } from "./soak/stored-state.ts";
import { connect, disconnect } from "./soak/store.ts";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const USERS = Number(process.env.SOAK_USERS ?? 24);
const PEOPLE = Number(process.env.SOAK_PEOPLE ?? 300);
const PEPPER = `soak-1:${randomBytes(24).toString("hex")}`;
/** The fault timings' seed of the first run: SOAK_SEED repeats a run's; otherwise a new one. Each run's is in the report. */
const FIRST_SEED = process.env.SOAK_SEED ? Number(process.env.SOAK_SEED) : null;
if (FIRST_SEED !== null && (!Number.isInteger(FIRST_SEED) || FIRST_SEED < 0 || FIRST_SEED > 0xffffffff))
  throw new Error(`SOAK_SEED must be a whole number below 2^32, not "${process.env.SOAK_SEED}"`);
/** How many times in a row the battery runs on each emulator, each with a seed of its own. */
const RUNS = Number(process.env.SOAK_RUNS ?? 1);
if (!Number.isInteger(RUNS) || RUNS < 1)
  throw new Error(`SOAK_RUNS must be a whole number from 1, not "${process.env.SOAK_RUNS}"`);

/** The emulators to run on, in order: the official one where found, then the stand-in; SOAK_FIRESTORE picks one. */
function firestores(): FirestoreChoice[] {
  const only = process.env.SOAK_FIRESTORE;
  if (only !== undefined && only !== "" && only !== "official" && only !== "stand-in")
    throw new Error(`SOAK_FIRESTORE must be "official" or "stand-in", not "${only}"`);
  const found = chooseFirestore();
  if (only === "stand-in") return [{ kind: "stand-in", why: "SOAK_FIRESTORE=stand-in asks for it alone" }];
  if (flavour(found) === "stand-in") {
    if (only === "official") throw new Error(`SOAK_FIRESTORE=official, but no official emulator is here: ${found.why}`);
    return [{ kind: "stand-in", why: `the only one: ${found.why}` }];
  }
  if (only === "official") return [found];
  return [
    found,
    {
      kind: "stand-in",
      why: "the same battery for comparison: the stand-in serialises every transaction and never aborts one",
    },
  ];
}

let env: Environment | undefined;
process.on("SIGINT", () => {
  console.log("\nsoak: interrupted, stopping everything");
  void (env?.stopAll() ?? Promise.resolve()).then(() => process.exit(130));
});

async function soak(choice: FirestoreChoice, current: Environment, seed: number): Promise<Run> {
  const name = flavour(choice);
  const loadBefore = loadavg()[0] ?? 0;
  console.log(`soak [${name}]: ${choice.why}`);
  console.log(`soak [${name}]: starting Firestore, maildev and the Auth emulator (logs in ${current.dir})`);
  await current.startAll();
  connect(PROJECT, current.firestoreHost, current.authHost);
  const people = fixture(PEOPLE);
  await createFixture(people);

  const { base, proc: server } = await current.startService({
    sessionKeys: sessionKeysJson("soak"),
    codePepper: PEPPER,
  });
  const pid = server.child.pid;

  console.log(`soak [${name}]: ${PEOPLE} people ready; ${USERS} virtual users for ${SECONDS} s against ${base}`);
  const recorder = new Recorder(base, () => current.epoch);
  const ctx: LoadContext = {
    recorder,
    authHost: current.authHost,
    mailUrl: current.mailUrl,
    epoch: () => current.epoch,
    codes: [],
    exchanges: [],
    authorizations: [],
    mailWaits: [],
    bridges: [],
    claims: [],
    logouts: [],
    skipped: new Map(),
  };
  const control = new Control();
  const load = startLoad(ctx, control, people, USERS);
  const checks: Check[] = [];
  console.log(`soak [${name}]: fault timings from seed ${seed} (SOAK_SEED=${seed} repeats them)`);
  const windows = await runFaults({
    seconds: SECONDS,
    seed,
    env: current,
    control,
    people,
    now: () => recorder.now(),
    recoveredSince: (from) => notRecovered(recorder.exchanges, from).length === 0,
    beforeRestart: async () =>
      void checks.push(
        ...(await storedChecks("before the restart", current.epoch, ctx.exchanges, ctx.authorizations, ctx.bridges)),
      ),
  });
  control.stopped = true;
  control.resume();
  // Each user finishes the scenario it is in; requests give up after 30 s, so this is bounded.
  await Promise.race([load, pause(90_000)]);
  const seconds = recorder.now() / 1000;

  const restarted = server.child.pid !== pid || server.child.exitCode !== null || server.child.signalCode !== null;
  checks.push(...(await storedChecks("at the end", current.epoch, ctx.exchanges, ctx.authorizations, ctx.bridges)));
  checks.unshift(
    ...logChecks(
      {
        exchanges: recorder.exchanges,
        codes: ctx.codes,
        redemptions: ctx.exchanges,
        authorizations: ctx.authorizations,
        bridges: ctx.bridges,
        claims: ctx.claims,
        mailWaits: ctx.mailWaits,
        logouts: ctx.logouts,
      },
      windows,
      restarted,
    ),
  );
  // For digging into a failure: every request and window as JSON, a file per emulator.
  if (process.env.SOAK_DUMP)
    writeFileSync(
      process.env.SOAK_DUMP.replace(/(\.json)?$/, `-${name}$1`),
      JSON.stringify({ windows, exchanges: recorder.exchanges, mailWaits: ctx.mailWaits }),
    );
  // A code lost in the store it was queued in (not wiped by the restart, not sent before its re-seed), explained.
  const lostWaits = lostCodes(ctx.mailWaits, windows);
  const lost = await explainLost(lostWaits, windows, {
    pepper: PEPPER,
    serviceLog: join(current.dir, "service.log"),
    mailUrl: current.mailUrl,
    t0: Date.now() - recorder.now(),
  });
  for (const code of lost) console.log(`soak [${name}]: never came: ${JSON.stringify(code, null, 2)}`);
  const failed = checks.filter((c) => !c.pass);
  console.log(
    `soak [${name}]: ${recorder.exchanges.length} requests in ${seconds.toFixed(1)} s; ` +
      (failed.length === 0 ? "all invariants held" : `FAILED: ${failed.map((c) => c.name).join("; ")}`),
  );
  return {
    facts: {
      firestore: name,
      why: choice.why,
      plannedSeconds: SECONDS,
      seconds,
      users: USERS,
      people: PEOPLE,
      seed: String(seed),
      load: [loadBefore, loadavg()[0] ?? 0],
      helpers: recorder.helpers,
      skipped: ctx.skipped,
    },
    exchanges: recorder.exchanges,
    windows,
    checks,
    beforeFaults: justBefore(ctx.mailWaits, windows),
    lost,
  };
}

async function soakAll(): Promise<boolean> {
  const date = new Date().toISOString().slice(0, 10);
  const runs: Run[] = [];
  const logs: string[] = [];
  for (const choice of firestores())
    for (let n = 0; n < RUNS; n++) {
      env = new Environment(choice);
      logs.push(env.dir);
      const seed = n === 0 && FIRST_SEED !== null ? FIRST_SEED : randomBytes(4).readUInt32BE(0);
      try {
        runs.push(await soak(choice, env, seed));
      } finally {
        await disconnect();
        await env.stopAll();
      }
    }
  const knobs = ["SOAK_SECONDS", "SOAK_FIRESTORE", "SOAK_SEED", "SOAK_RUNS"]
    .filter((k) => process.env[k])
    .map((k) => `${k}=${process.env[k]}`);
  const command = "npm run soak" + (knobs.length ? ` (${knobs.join(", ")})` : "");
  const section = renderReport({ command, date }, runs);
  console.log(`\n${section}\n`);
  writeSection(join(root, "bench", "RESULTS.md"), section);
  console.log(`written to bench/RESULTS.md (service and emulator logs: ${logs.join(", ")})`);
  return runs.every((r) => r.checks.every((c) => c.pass));
}

let ok = false;
try {
  ok = await soakAll();
} catch (err) {
  console.error(`soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
} finally {
  await env?.stopAll();
}
process.exit(ok ? 0 : 1);
