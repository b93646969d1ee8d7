/**
 * `npm run soak`: the reliability battery. Mixed load for a bounded time (SOAK_SECONDS, default
 * 180) against the service in one process, with real faults injected into its dependencies,
 * then the invariants checked from the answers and from the stored state. Writes its section of
 * bench/RESULTS.md and exits non-zero when an invariant fails. Loopback only; everything it
 * starts stops at the end or on Ctrl-C.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionKeysJson } from "./lib/keys.ts";
import { root } from "./lib/functions.ts";
import { Recorder } from "./soak/client.ts";
import { Environment, PROJECT } from "./soak/environment.ts";
import { runFaults } from "./soak/faults.ts";
import { createFixture, fixture } from "./soak/fixture.ts";
import { logChecks, type Check } from "./soak/invariants.ts";
import type { LoadContext } from "./soak/context.ts";
import { Control, pause, startLoad } from "./soak/load.ts";
import { renderReport, writeSection } from "./soak/report.ts";
import { storedChecks } from "./soak/stored-state.ts";
import { connect } from "./soak/store.ts";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const USERS = Number(process.env.SOAK_USERS ?? 24);
const PEOPLE = Number(process.env.SOAK_PEOPLE ?? 300);
const PEPPER = `soak-1:${randomBytes(24).toString("hex")}`;

const env = new Environment();
process.on("SIGINT", () => {
  console.log("\nsoak: interrupted, stopping everything");
  void env.stopAll().then(() => process.exit(130));
});

async function soak(): Promise<boolean> {
  const begun = new Date();
  console.log(`soak: starting the Firestore stand-in, maildev and the Auth emulator (logs in ${env.dir})`);
  await env.startAll();
  connect(PROJECT, env.firestoreHost, env.authHost);
  const people = fixture(PEOPLE);
  await createFixture(people);

  const { base, proc: server } = await env.startService({ sessionKeys: sessionKeysJson("soak"), codePepper: PEPPER });
  const pid = server.child.pid;

  console.log(`soak: ${PEOPLE} people ready; ${USERS} virtual users for ${SECONDS} s against ${base}`);
  const recorder = new Recorder(base, () => env.epoch);
  const ctx: LoadContext = {
    recorder,
    authHost: env.authHost,
    mailUrl: env.mailUrl,
    epoch: () => env.epoch,
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
    env,
    control,
    people,
    now: () => recorder.now(),
    beforeRestart: async () =>
      void checks.push(
        ...(await storedChecks("before the restart", env.epoch, ctx.exchanges, ctx.authorizations, ctx.bridges)),
      ),
  });
  control.stopped = true;
  control.resume();
  // Each user finishes the scenario it is in; requests give up after 30 s, so this is bounded.
  await Promise.race([load, pause(90_000)]);
  const seconds = recorder.now() / 1000;

  const restarted = server.child.pid !== pid || server.child.exitCode !== null || server.child.signalCode !== null;
  checks.push(...(await storedChecks("at the end", env.epoch, ctx.exchanges, ctx.authorizations, ctx.bridges)));
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

  const facts = {
    command: "npm run soak" + (process.env.SOAK_SECONDS ? ` (SOAK_SECONDS=${SECONDS})` : ""),
    date: begun.toISOString().slice(0, 10),
    plannedSeconds: SECONDS,
    seconds,
    users: USERS,
    people: PEOPLE,
    helpers: recorder.helpers,
    skipped: ctx.skipped,
  };
  // For digging into a failure: every request and window as JSON.
  if (process.env.SOAK_DUMP)
    writeFileSync(process.env.SOAK_DUMP, JSON.stringify({ windows, exchanges: recorder.exchanges }));
  const section = renderReport(facts, recorder.exchanges, windows, checks);
  console.log(`\n${section}\n`);
  writeSection(join(root, "bench", "RESULTS.md"), section);
  console.log(`written to bench/RESULTS.md (service and emulator logs: ${env.dir})`);
  return checks.every((c) => c.pass);
}

let ok = false;
try {
  ok = await soak();
} catch (err) {
  console.error(`soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
} finally {
  await env.stopAll();
}
process.exit(ok ? 0 : 1);
