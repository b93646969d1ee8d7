/**
 * `npm run bench:contention`: the service's concurrency on Google's Firestore emulator, with the
 * stand-in (tools/firestore-stand-in: one global FIFO transaction lock, never aborts) beside it in
 * the same run: races on one code, one address and one person, bursts of sends from one office and
 * from many networks, the outbox drained by several workers, a thousand events to four apps (one of
 * them down), and the send budgets at scale (an office of a thousand signing in, sprays from one
 * network and from many, rising rates), each emulator on fresh data and with every setting at its
 * default. Writes section 8 of bench/RESULTS.md (`npm run bench` keeps it).
 * Everything runs on loopback on free ports and stops by itself.
 *
 *   node bench/contention.ts [--no-write]   (after `npm run build` in functions/)
 *   CONTENTION_FIRESTORE=stand-in|official  one emulator only  } either one leaves
 *   CONTENTION_SCENARIOS=1a,3b              some scenarios only } RESULTS.md as it is
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chooseFirestore, firestoreAnswers, firestoreProcess, type FirestoreChoice } from "../tools/stack/firestore.ts";
import { waitFor } from "../tools/stack/processes.ts";
import { bugs, section } from "./contention/report.ts";
import type { Phase } from "./contention/context.ts";
import { root, service } from "./lib/functions.ts";
import { sessionKeysJson } from "./lib/keys.ts";
import { freeFirestorePort, freePort } from "./lib/procs.ts";
import { writeSection } from "./lib/results.ts";
import { start, stop, stopAll } from "./soak/processes.ts";

const PROJECT = "demo-contention";
/** One emulator's scenarios; the official one takes ten to fifteen minutes on this machine when it is shared. */
const PHASE_LIMIT_MS = 25 * 60_000;
const { DEFAULTS } = service<{ DEFAULTS: Record<string, string> }>("config/defaults");

const started = performance.now();
const dir = mkdtempSync(join(tmpdir(), "contention-"));
const ports = { smtp: await freePort(), mailWeb: await freePort(), auth: await freePort() };
const hub = await freePort();
const logging = await freePort();
const authHost = `127.0.0.1:${ports.auth}`;
const mailUrl = `http://127.0.0.1:${ports.mailWeb}`;

for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void stopAll().finally(() => process.exit(1)));

async function answers(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.status < 500;
}

/** maildev and the Auth emulator, shared by both emulators' runs. */
async function startShared(): Promise<void> {
  const maildev = join(root, "node_modules", "maildev", "bin", "maildev");
  const mailArgs = ["--smtp", String(ports.smtp), "--web", String(ports.mailWeb), "--ip", "127.0.0.1", "--silent"];
  const mail = start("maildev", process.execPath, [maildev, ...mailArgs], { logDir: dir });
  const config = join(dir, "firebase.json");
  const host = "127.0.0.1";
  const emulators = {
    auth: { host, port: ports.auth },
    hub: { host, port: hub },
    logging: { host, port: logging },
    ui: { enabled: false },
  };
  writeFileSync(config, JSON.stringify({ emulators }, null, 2));
  const firebase = realpathSync(join(root, "node_modules", ".bin", "firebase"));
  // cwd is the temp dir, so firebase-debug.log lands there and not in the repository.
  const auth = start(
    "auth-emulator",
    process.execPath,
    [firebase, "emulators:start", "--only", "auth", "--project", PROJECT, "--config", config],
    { logDir: dir, cwd: dir, env: { NO_UPDATE_NOTIFIER: "1", FIREBASE_CLI_EXPERIMENTS: "" } },
  );
  await Promise.all([
    waitFor("maildev", () => answers(`${mailUrl}/email`), 30_000, mail.child),
    waitFor("Auth emulator", () => answers(`http://${authHost}/`), 90_000, auth.child),
  ]);
}

/** The scenarios on one emulator: started on a port of its own, stopped after. */
async function runOn(name: string, choice: FirestoreChoice): Promise<Phase> {
  const port = await freeFirestorePort();
  const { command, args } = firestoreProcess(choice, port, PROJECT);
  const firestore = start(`firestore-${name}`, command, args, { logDir: dir });
  try {
    // Google's emulator is a JVM that answers about 8 s after it starts, later on a busy machine.
    await waitFor(`Firestore (${name})`, () => firestoreAnswers(port), 90_000, firestore.child);
    await fetch(`http://${authHost}/emulator/v1/projects/${PROJECT}/accounts`, { method: "DELETE" });
    const result = join(dir, `${name}.json`);
    const env = {
      ...process.env,
      ...DEFAULTS,
      SMTP_HOST: "127.0.0.1",
      SMTP_PORT: String(ports.smtp),
      SMTP_SECURE: "false",
      SESSION_KEYS: sessionKeysJson(`contention-${name}`),
      CODE_PEPPER: `contention-1:${randomBytes(24).toString("hex")}`,
      GCLOUD_PROJECT: PROJECT,
      FIRESTORE_EMULATOR_HOST: `127.0.0.1:${port}`,
      FIREBASE_AUTH_EMULATOR_HOST: authHost,
      METADATA_SERVER_DETECTION: "none",
      CONTENTION_MAIL_URL: mailUrl,
      CONTENTION_LOG: join(dir, `service-${name}.log`),
      CONTENTION_RESULT: result,
      CONTENTION_FIRESTORE_PGID: String(firestore.child.pid ?? 0),
    };
    const child = spawn(process.execPath, [join(root, "bench", "contention", "phase.ts")], {
      env,
      stdio: ["ignore", "inherit", "inherit"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), PHASE_LIMIT_MS);
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    clearTimeout(timer);
    if (code !== 0) throw new Error(`the ${name} run exited with ${code} (logs in ${dir})`);
    const { results, logged } = JSON.parse(readFileSync(result, "utf8")) as Pick<Phase, "results" | "logged">;
    return { name, results, logged };
  } finally {
    await stop(firestore);
  }
}

/** The code measured: the commit, and whether the functions' sources differed from it when built. */
function measured(): string {
  const git = (...args: string[]) => spawnSync("git", args, { cwd: root, encoding: "utf8" }).stdout.trim();
  const changed = git("status", "--porcelain", "--", "functions/src") !== "";
  return `${git("rev-parse", "--short", "HEAD")}${changed ? " with uncommitted changes in functions/src" : ""}`;
}

const choice = chooseFirestore();
const wanted = process.env.CONTENTION_FIRESTORE;
const runs: Array<[string, FirestoreChoice]> = [
  ...(choice.kind === "stand-in" ? [] : [["official", choice] as [string, FirestoreChoice]]),
  ["stand-in", { kind: "stand-in", why: "" }],
];
console.log(
  choice.kind === "stand-in"
    ? `No official Firestore emulator (${choice.why}): the stand-in alone.`
    : `Google's Firestore emulator: ${choice.why}; the stand-in beside it.`,
);
const phases: Phase[] = [];
try {
  await startShared();
  for (const [name, c] of runs.filter(([n]) => wanted === undefined || n === wanted)) {
    console.log(`\n${name}:`);
    phases.push(await runOn(name, c));
  }
} finally {
  await stopAll();
}

const minutes = (performance.now() - started) / 60_000;
const settings = Object.fromEntries(
  ["OTP_SENDS_PER_CLIENT_HOUR", "OTP_SENDS_PER_MINUTE", "OTP_SENDS_PER_DOMAIN_HOUR", "CLIENT_ADDRESS_HOPS"].map((k) => [
    k,
    DEFAULTS[k] as string,
  ]),
);
const lines = section(phases, { found: choice.kind !== "stand-in", why: choice.why }, settings, minutes, measured());
console.log(`\n${lines.join("\n")}`);
// A run of some scenarios, or of one emulator, is for trying things out: the section stays as it was.
const partial = wanted !== undefined || (process.env.CONTENTION_SCENARIOS ?? "") !== "";
if (!process.argv.includes("--no-write") && !partial) {
  // After the operator CLI's section (7), before the soak's.
  writeSection("contention", lines, "soak");
  console.log("\nwritten to bench/RESULTS.md");
}
const broken = bugs(phases);
if (broken.length > 0) console.log(`\nBroken contracts:\n${broken.map((b) => `- ${b}`).join("\n")}`);
process.exit(0);
