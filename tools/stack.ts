/**
 * `node tools/stack.ts start [--fresh] [--passkey-rule]`: the whole local stack on the ports of
 * local-stack.md, until Ctrl-C, keeping its data in emulator-data/local/ between runs (--fresh:
 * from the seed; --passkey-rule: administrators act only from a passkey sign-in, as on a real
 * project, instead of the stack's default of any sign-in).
 * `node tools/stack.ts test [--checks] [jest arguments]`: the same stack on test ports, always
 * fresh, the suite against it, then stop. With jest arguments (a file, a name) the whole-tree
 * static checks are skipped unless --checks asks for them, and a test stack already running
 * (`test-stack`) is used as it is and left running.
 * `node tools/stack.ts test-stack`: the test stack alone, until Ctrl-C, for a one-file loop.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSite } from "../site/build.ts";
import { ensureFunctionsBuilt } from "./build-functions.ts";
import { defaults } from "../site/defaults.ts";
import { ensureLocalSecrets, firebaseConfigFor, stackEnv, writeFunctionsEnv } from "./stack/files.ts";
import {
  chooseFirestore,
  firestoreAnswers,
  firestoreExport,
  besideApi,
  flavour,
  officialArgs,
  type FirestoreChoice,
} from "./stack/firestore.ts";
import { startFront } from "./stack/front.ts";
import { findTestStack, removeLocation, removeTestStack, writeLocation, writeTestStack } from "./stack/location.ts";
import { slowestFiles, type FileResult } from "./stack/slowest.ts";
import { localState, type LocalState } from "./stack/persist.ts";
import { idSitePort, profile, type Profile } from "./stack/ports.ts";
import { portAnswers, portIsFree, Processes, waitFor } from "./stack/processes.ts";
import { localTls } from "./stack/tls.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name: string) => join(root, "node_modules", ".bin", name);

const SEED = join(root, "emulator-data", "seed.json");

/** The signing secrets of the seed's subscriptions (seed.json `hooks`), for the inbox that receives them. */
function seedHookSecrets(): string[] {
  const seed = JSON.parse(readFileSync(SEED, "utf8")) as { hooks?: Array<{ secret: string }> };
  return (seed.hooks ?? []).map((h) => h.secret);
}

function run(what: string, command: string, args: string[], env: Record<string, string> = {}, cwd = root): void {
  const result = spawnSync(command, args, { cwd, stdio: "inherit", env: { ...process.env, ...env } });
  if (result.status !== 0) throw new Error(`${what} failed (exit ${result.status ?? result.signal})`);
}

async function ensureFree(p: Profile, firestore: FirestoreChoice): Promise<void> {
  const official = flavour(firestore) === "official";
  const ports = [
    ...(official ? Object.values(besideApi(p.firestore)) : []),
    p.hosting,
    idSitePort(p),
    p.functions,
    p.auth,
    p.firestore,
    p.hub,
    p.logging,
    p.tasks,
    p.smtp,
    p.mailWeb,
    p.gaming,
    p.federated,
    p.hookInbox,
    p.https,
  ];
  // A stack stopped a moment ago may still be letting go of a port (the Firestore emulator's JVM
  // outlives its launcher by a few seconds): wait up to ten seconds before saying it is taken.
  let taken: number[] = [];
  for (let waited = 0; ; waited += 500) {
    taken = [];
    for (const port of ports) if (!(await portIsFree(port))) taken.push(port);
    if (taken.length === 0 || waited >= 10_000) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  if (taken.length > 0) throw new Error(`port(s) ${taken.join(", ")} already in use (is another stack running?)`);
}

/** A 200, not merely an answer: Hosting says 404 while the functions are still being loaded. */
async function httpOk(url: string, init?: RequestInit, waitMs = 2000): Promise<boolean> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(waitMs) });
  await res.arrayBuffer();
  return res.status === 200;
}

/**
 * The Firestore emulator the Firebase CLI does not start: the gcloud component, seeded from the
 * last export and exported again once everything started after it has stopped; or the stand-in,
 * which loads and saves its own file.
 */
function startFirestore(
  procs: Processes,
  choice: FirestoreChoice,
  p: Profile,
  state: LocalState | null,
): Promise<void> {
  if (choice.kind === "gcloud") {
    const child = procs.start(
      "firestore",
      choice.launch.command,
      officialArgs(choice.launch, p.firestore, p.projectId, state?.firestoreSeed),
      {
        quiet: true,
        ...(state === null
          ? {}
          : {
              beforeStop: async () => {
                try {
                  await firestoreExport(p.firestore, p.projectId, state.firestoreNext);
                } catch (err) {
                  // The last complete export stays; this one is not taken.
                  rmSync(state.firestoreNext, { recursive: true, force: true });
                  throw err;
                }
              },
            }),
      },
    );
    // The JVM takes about 8 s to answer; 60 s leaves room for a busy machine.
    return waitFor("Firestore emulator", () => firestoreAnswers(p.firestore), 60000, child);
  }
  const child = procs.start("firestore", process.execPath, [
    join(root, "tools", "firestore-stand-in", "main.ts"),
    "--port",
    String(p.firestore),
    ...(state?.standInArgs ?? []),
  ]);
  return waitFor("Firestore stand-in", () => portAnswers(p.firestore), 15000, child);
}

/** `state`: where the dev stack keeps its data between runs; null for the test stack (always fresh). */
async function startStack(
  p: Profile,
  procs: Processes,
  state: LocalState | null,
  passkeyRule = false,
): Promise<FirestoreChoice> {
  const started = performance.now();
  const firestore = chooseFirestore();
  await ensureFree(p, firestore);
  const built = ensureFunctionsBuilt(root, (line) => console.log(`stack: ${line}`));
  // The code caches the platform's build makes, made here by this Node (the functions' own), so
  // that the emulator starts each function as an instance starts (functions/src/runtime/gcp-build.ts).
  if (built || !existsSync(join(root, "functions", "lib", "bundles", "sessions.cache")))
    run("code cache", process.execPath, [join(root, "functions", "lib", "runtime", "gcp-build.js")]);
  // The local stack's parent domain and app hosts: the functions' defaults (functions/src/config/defaults.ts), as built.
  const { DEFAULTS, listOf } = defaults();
  const PARENT_DOMAIN = DEFAULTS.PARENT_DOMAIN;
  const APP_HOSTS = listOf(DEFAULTS.APP_HOSTS);
  ensureLocalSecrets(root);
  writeFunctionsEnv(root, p, passkeyRule);
  await buildSite({ projectId: p.projectId, authEmulator: `127.0.0.1:${p.auth}` });
  const env = stackEnv(p);

  const waits: Array<Promise<void>> = [];
  if (firestore.kind !== "firebase-tools") waits.push(startFirestore(procs, firestore, p, state));
  const mail = procs.start(
    "maildev",
    bin("maildev"),
    ["--smtp", String(p.smtp), "--web", String(p.mailWeb), "--ip", "127.0.0.1", "--silent"],
    { quiet: true },
  );
  waits.push(waitFor("dev mail inbox", () => httpOk(`http://127.0.0.1:${p.mailWeb}/email`), 15000, mail));
  const gaming = procs.start(
    "gaming provider",
    process.execPath,
    [join(root, "tools", "gaming-provider.ts"), "--port", String(p.gaming)],
    { quiet: true },
  );
  waits.push(waitFor("gaming provider", () => httpOk(`http://127.0.0.1:${p.gaming}/__control`), 15000, gaming));
  const federated = procs.start(
    "federated provider",
    process.execPath,
    [join(root, "tools", "federated-provider.ts"), "--port", String(p.federated)],
    { quiet: true },
  );
  waits.push(
    waitFor(
      "federated provider",
      () => httpOk(`http://127.0.0.1:${p.federated}/.well-known/openid-configuration`),
      15000,
      federated,
    ),
  );
  // The seed's subscriptions sign with the secrets in seed.json: the inbox verifies with the same.
  const inbox = procs.start(
    "webhook inbox",
    process.execPath,
    [join(root, "tools", "hook-inbox.ts"), "--port", String(p.hookInbox)],
    { quiet: true, env: { HOOK_INBOX_SECRETS: seedHookSecrets().join(",") } },
  );
  waits.push(waitFor("webhook inbox", () => httpOk(`http://127.0.0.1:${p.hookInbox}/health`), 15000, inbox));
  await Promise.all(waits);

  // Loopback's address too: the test suite's agents serve their metadata documents with it.
  const tls = localTls(join(root, ".stack", "tls"), [
    PARENT_DOMAIN,
    `*.${PARENT_DOMAIN}`,
    "elsewhere.test",
    "127.0.0.1",
  ]);
  // The manifest is read as built (tools/compiled.ts): only once the functions are.
  const { rewritesFor } = await import("./hosting.ts");
  const front = await startFront(p.https, {
    parentDomain: PARENT_DOMAIN,
    serviceSite: env.STACK_BASE_URL as string,
    idSite: env.STACK_ID_URL as string,
    appHosts: APP_HOSTS,
    appRewrites: Object.fromEntries(
      APP_HOSTS.map((app) => [
        app,
        rewritesFor(app).map((r) => ({ source: r.source, functionId: r.function.functionId })),
      ]),
    ),
    functions: env.STACK_FUNCTIONS_URL as string,
    tls,
  });
  procs.onStop(
    () =>
      new Promise<void>((resolve) => {
        front.closeAllConnections();
        front.close(() => resolve());
      }),
  );

  const only = firestore.kind === "firebase-tools" ? "auth,functions,hosting,firestore" : "auth,functions,hosting";
  const config = firebaseConfigFor(root, p);
  const emulators = procs.start(
    "emulators",
    bin("firebase"),
    ["emulators:start", "--only", only, "--project", p.projectId, "--config", config, ...(state?.emulatorArgs ?? [])],
    // Functions inherit this environment: that is how they find a Firestore the CLI did not start.
    // A bridge's custom token reaches the identity host in its address; the request log keeps none.
    // NODE_ENV=production, as the platform runs functions: the emulator's functions runtime parses
    // bodies in an express app of its own, before ours, and express answers a body it cannot parse
    // (malformed JSON) with the stack trace and file paths unless its env is production.
    // With an export on exit, the CLI alone is signalled: it exports, then stops what it started.
    // Its hub is found by a file in the temporary directory named after the project alone: a
    // stack that exports gets a directory of its own, so it never asks another checkout's hub.
    {
      env: {
        ...env,
        NODE_ENV: "production",
        NO_UPDATE_NOTIFIER: "1",
        FIREBASE_CLI_EXPERIMENTS: "",
        ...(state === null ? {} : { TMPDIR: state.tmp }),
      },
      stopSignal: "SIGINT",
      ...(state === null ? {} : { leaderOnly: true, stopTimeoutMs: 60_000 }),
      redact: (line) => line.replace(/customToken=[^&\s"]+/g, "customToken=[redacted]"),
    },
  );
  // Ready means the whole chain answers: Hosting rewrite → function → express app. Each probe waits
  // for its answer: on a busy machine a function's first instance takes seconds to load, and a
  // probe given up on is one more request the emulator starts another instance for.
  await waitFor(
    "emulators",
    () => httpOk(`${env.STACK_BASE_URL}/auth/logout`, { method: "POST" }, 30_000),
    90000,
    emulators,
  );

  // Only the dev stack subscribes an app to the inbox: the test stack's project would otherwise
  // queue a delivery for every test's event.
  run(
    "seed",
    process.execPath,
    [join(root, "functions", "lib", "ops", "seed.js"), SEED],
    p.name === "dev" ? { ...env, STACK_HOOK_INBOX: `http://127.0.0.1:${p.hookInbox}` } : env,
  );
  if (p.name === "dev") writeLocation(root, p, { kind: flavour(firestore), why: firestore.why }, PARENT_DOMAIN);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`
Stack ready in ${seconds} s (project ${p.projectId}, Firestore: ${flavour(firestore)} emulator, ${firestore.why})
  service ({base_url})      ${env.STACK_BASE_URL}
  identity host ({id_url})  ${env.STACK_ID_URL}
  functions                 http://127.0.0.1:${p.functions}
  auth emulator             http://127.0.0.1:${p.auth}
  firestore                 127.0.0.1:${p.firestore}
  dev mail inbox            http://127.0.0.1:${p.mailWeb} (SMTP ${p.smtp})
  https front               127.0.0.1:${p.https}: https://${PARENT_DOMAIN}, https://id.${PARENT_DOMAIN}, https://<app>.${PARENT_DOMAIN}
  gaming provider (local)   http://127.0.0.1:${p.gaming}/openid/login
  federated provider        http://127.0.0.1:${p.federated} (local; idp=search, professional, native: OpenID Connect; codehost: OAuth 2.0; devicemaker: form_post)
  webhook inbox (local)     http://127.0.0.1:${p.hookInbox}/
  passkey rule              ${passkeyRule ? "on: administrators act only from a passkey sign-in" : "off (`npm start -- --passkey-rule`, or `npm run operator -- passkey-rule set admin`, turns it on)"}
`);
  if (state !== null) {
    console.log(`Local data: kept in ${state.dir} between runs (\`npm start -- --fresh\` starts from the seed).
Operator CLI: \`npm run operator -- status\` finds this stack (.stack/local-stack.json).
`);
  }
  if (p.name === "dev") {
    console.log(`In a browser: https://id.${PARENT_DOMAIN}/ (the sign-in page). \`npm run browser\` opens Chromium there, every
*.${PARENT_DOMAIN} host sent to the https front; or map the hosts yourself and trust ${tls.caPath}
(docs/local-stack.md, "Trying it in a browser").
`);
  }
  return firestore;
}

interface JestResults {
  success: boolean;
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numRuntimeErrorTestSuites: number;
  testResults?: FileResult[];
}

/** One plain closing line, whatever the runner printed above it; the results, when written. */
function printSummary(path: string): JestResults | null {
  try {
    const r = JSON.parse(readFileSync(path, "utf8")) as JestResults;
    console.log(`\nTests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`);
    return r;
  } catch {
    console.log("\nTests: no results were written");
    return null;
  }
}

/**
 * The run's exit code: jest's own verdict, from the results it wrote (every suite ran, no test
 * failed). Where the process's exit says otherwise (a signal, or an exit code that something in
 * the process set after the last test), that is said, and the results decide; with no results,
 * the process's exit does.
 */
function verdict(results: JestResults | null, exit: { code: number | null; signal: NodeJS.Signals | null }): number {
  const processCode = exit.code ?? 1;
  if (results === null) return processCode === 0 ? 1 : processCode;
  const passed =
    results.success &&
    results.numFailedTests === 0 &&
    results.numRuntimeErrorTestSuites === 0 &&
    results.numTotalTests > 0;
  if (passed !== (processCode === 0))
    console.log(
      `The test runner exited with ${exit.signal ?? `code ${exit.code}`}, and its results say ${passed ? "every test passed" : "some did not"}: the results decide.`,
    );
  return passed ? 0 : processCode === 0 ? 1 : processCode;
}

/** Jest workers for the suite, unless TEST_WORKERS or the arguments say otherwise. */
const DEFAULT_WORKERS = 3;

/** The whole-tree static checks: quick, and they need no emulator. */
function staticChecks(): void {
  run("typecheck", "npm", ["--prefix", "functions", "run", "typecheck", "--silent"]);
  run("lint", "npm", ["run", "lint", "--silent"]);
  run("typecheck tools", join(root, "functions", "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"]);
  run("architecture", process.execPath, [join(root, "tools", "architecture.ts"), "--check"]);
  run("doc lists", process.execPath, [join(root, "tools", "doc-lists.ts"), "--check"]);
  run("typecheck site", join(root, "functions", "node_modules", ".bin", "tsc"), [
    "-p",
    join("site", "tsconfig.test.json"),
  ]);
  // The formatter's verdict (npm run format rewrites what it lists).
  run("format", join(root, "functions", "node_modules", ".bin", "prettier"), ["--check", ".", "--log-level", "warn"]);
}

/** What the tests are told of the stack: its addresses, and how it starts Google's emulator. */
function testEnv(p: Profile, launch: unknown): Record<string, string> {
  // Tests that stop or freeze an emulator of their own start the kind the stack runs.
  return { ...stackEnv(p), ...(launch === null ? {} : { FIRESTORE_LAUNCH: JSON.stringify(launch) }) };
}

/** jest over the suite (or what `args` pick), its plain closing line, and its verdict. */
async function runJest(env: Record<string, string>, args: string[]): Promise<number> {
  const results = join(root, ".stack", "jest-test.json");
  mkdirSync(dirname(results), { recursive: true });
  // A runner that dies before writing must not leave the last run's summary standing.
  rmSync(results, { force: true });
  // Files run side by side (functions/test/support/environment.cjs keeps them apart); the number
  // measured fastest on this 2-core machine (docs/local-stack.md, "Workers"), unless one is asked for.
  const asked = args.some((a) => /^(--maxWorkers|-w|--runInBand|-i)(=|$)/.test(a));
  const workers = asked ? [] : [`--maxWorkers=${process.env.TEST_WORKERS ?? DEFAULT_WORKERS}`];
  const jest = spawn(
    "npm",
    ["--prefix", "functions", "test", "--", "--json", `--outputFile=${results}`, ...workers, ...args],
    {
      stdio: "inherit",
      env: { ...process.env, ...env },
    },
  );
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    jest.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const summary = printSummary(results);
  if (summary !== null) console.log(slowestFiles(summary, root, 10));
  return verdict(summary, exit);
}

async function main(): Promise<number> {
  const mode = process.argv[2];
  const rest = process.argv.slice(3);
  if (
    (mode !== "start" && mode !== "test" && mode !== "test-stack") ||
    (mode === "start" && rest.some((o) => o !== "--fresh" && o !== "--passkey-rule")) ||
    (mode === "test-stack" && rest.length > 0)
  ) {
    console.error(
      "usage: node tools/stack.ts start [--fresh] [--passkey-rule] | test [--checks] [jest arguments] | test-stack",
    );
    return 2;
  }
  const p = profile(mode === "start" ? "dev" : "test");
  const jestArgs = rest.filter((a) => a !== "--checks");
  if (mode === "test") {
    // A chosen file or name is a one-file loop: the whole tree's checks only when asked.
    if (jestArgs.length === 0 || rest.includes("--checks")) staticChecks();
    const running = jestArgs.length === 0 ? null : findTestStack(root);
    if (running !== null) {
      console.log(`Using the test stack already running (process ${running.pid}).`);
      return runJest(testEnv(p, running.firestoreLaunch), jestArgs);
    }
  }
  const procs = new Processes();
  const state = mode === "start" ? localState(root, rest.includes("--fresh")) : null;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log("Stopping the stack…");
    removeLocation(root);
    if (mode === "test-stack") removeTestStack(root);
    await procs.stopAll();
    try {
      state?.afterStop();
    } catch (err) {
      console.error(`The emulators' export could not replace the last one: ${(err as Error).message}`);
    }
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(130));
  process.on("SIGTERM", () => void stop(143));

  let firestore: FirestoreChoice;
  try {
    firestore = await startStack(p, procs, state, mode === "start" && rest.includes("--passkey-rule"));
  } catch (err) {
    console.error(`\n${err instanceof Error ? err.message : String(err)}`);
    await stop(1);
    return 1;
  }
  const launch = firestore.kind === "stand-in" ? null : firestore.launch;
  if (mode === "start" || mode === "test-stack") {
    if (mode === "test-stack") {
      writeTestStack(root, { pid: process.pid, firestoreLaunch: launch });
      console.log("`npm test -- <file>` now runs against this stack. Press Ctrl-C to stop.");
    } else console.log("Press Ctrl-C to stop.");
    return new Promise<number>(() => {});
  }
  const code = await runJest(testEnv(p, launch), jestArgs);
  await stop(code);
  return code;
}

process.exitCode = await main();
