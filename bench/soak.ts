/**
 * `npm run soak`: the reliability battery. Mixed load for a bounded time (SOAK_SECONDS, default
 * 180) against the service in one process, with real faults injected into its dependencies,
 * then the invariants checked from the answers and from the stored state. It runs once on
 * Google's official Firestore emulator where one is found (tools/stack/firestore.ts chooses it)
 * and once on the stand-in, each on components of its own; SOAK_FIRESTORE=official or stand-in
 * runs only that one. Writes its section of bench/RESULTS.md (the runs side by side) and exits
 * non-zero when an invariant fails on any run. Loopback only; everything it starts stops at the
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
import { logChecks, notRecovered, type Check } from "./soak/invariants.ts";
import type { LoadContext } from "./soak/context.ts";
import { Control, pause, startLoad } from "./soak/load.ts";
import { renderReport, writeSection, type Run } from "./soak/report.ts";
import { storedChecks } from "./soak/stored-state.ts";
import { connect, disconnect } from "./soak/store.ts";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const USERS = Number(process.env.SOAK_USERS ?? 24);
const PEOPLE = Number(process.env.SOAK_PEOPLE ?? 300);
const PEPPER = `soak-1:${randomBytes(24).toString("hex")}`;

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

async function soak(choice: FirestoreChoice, current: Environment): Promise<Run> {
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
  const windows = await runFaults({
    seconds: SECONDS,
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
      load: [loadBefore, loadavg()[0] ?? 0],
      helpers: recorder.helpers,
      skipped: ctx.skipped,
    },
    exchanges: recorder.exchanges,
    windows,
    checks,
  };
}

async function soakAll(): Promise<boolean> {
  const date = new Date().toISOString().slice(0, 10);
  const runs: Run[] = [];
  const logs: string[] = [];
  for (const choice of firestores()) {
    env = new Environment(choice);
    logs.push(env.dir);
    try {
      runs.push(await soak(choice, env));
    } finally {
      await disconnect();
      await env.stopAll();
    }
  }
  const knobs = ["SOAK_SECONDS", "SOAK_FIRESTORE"].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]}`);
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
