/**
 * The deploy manifest, read as the platform reads the compiled functions (lib/, built by the
 * stack before the suite runs) through their entry (package.json `main`): at deploy every group
 * is an HTTPS function with its own secrets; an instance started for one function loads its
 * bundle and no module at all besides the entry's own.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GROUPS, TASKS } from "../../src/groups";
import { MAIL_LOCATION } from "../../src/adapters/mail-queue";
import { REQUEST_DEADLINE_MS } from "../../src/http/app";

const functionsDir = join(__dirname, "..", "..");
const main = join(
  functionsDir,
  (JSON.parse(readFileSync(join(functionsDir, "package.json"), "utf8")) as { main: string }).main,
);

function load(env: Record<string, string>, script: string): unknown {
  const out = spawnSync(process.execPath, ["-e", `const m = require(${JSON.stringify(main)}); ${script}`], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, GCLOUD_PROJECT: "demo-manifest", ...env },
  });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout);
}

const loaded = `Object.keys(require.cache).filter((p) => /firebase-functions[\\\\/]lib[\\\\/]v2[\\\\/]providers[\\\\/]https|[\\\\/]routes[\\\\/]|firebase-admin|express/.test(p)).length`;

describe("the deploy manifest", () => {
  const secretsOf = (env: Record<string, string>) =>
    load(
      env,
      `console.log(JSON.stringify(Object.fromEntries(Object.entries(m).map(([k, f]) => [k, { https: "httpsTrigger" in f.__endpoint, task: "taskQueueTrigger" in f.__endpoint, secrets: (f.__endpoint.secretEnvironmentVariables || []).map((s) => s.key).sort(), region: f.__endpoint.region }]))))`,
    );
  const https = (...secrets: string[]) => ({
    https: true,
    task: false,
    secrets: secrets.sort(),
    region: ["us-central1"],
  });
  const task = (...secrets: string[]) => ({
    https: false,
    task: true,
    secrets: secrets.sort(),
    region: ["us-central1"],
  });
  const others = {
    sessions: https("SESSION_KEYS"),
    // It queues mail and never sends it: no SMTP password.
    otp: https("SESSION_KEYS", "CODE_PEPPER"),
    // CODE_PEPPER keys the token endpoint's throttle records.
    oidc: https("SESSION_KEYS", "CODE_PEPPER"),
    people: https("SESSION_KEYS"),
    startpage: https("SESSION_KEYS"),
    calendar: https("SESSION_KEYS"),
    location: https("SESSION_KEYS"),
    claims: https("IDP_SIGNING_SECRET"),
    // CODE_PEPPER keys the recovery codes' hashes and the address's run of failed checks.
    passkeys: https("SESSION_KEYS", "CODE_PEPPER"),
    mcp: https("SESSION_KEYS"),
  };

  it("declares one HTTPS function per endpoint group and a task function per task, each with only its own secrets", () => {
    // As the Firebase CLI reads it at deploy: with the deployment's .env.<project> in the environment.
    const endpoints = secretsOf({ SMTP_USER: "mailer", FEDERATED_PROVIDERS: '{"search":{}}' });
    expect(endpoints).toEqual({
      ...others,
      bridge: https("SESSION_KEYS", "FEDERATED_CLIENT_SECRETS"),
      status: https("SESSION_KEYS", "SMTP_PASSWORD"),
      mail: task("CODE_PEPPER", "SESSION_KEYS", "SMTP_PASSWORD"),
    });
  });

  it("declares no secret a deployment does not use: SMTP_PASSWORD without SMTP_USER, FEDERATED_CLIENT_SECRETS without FEDERATED_PROVIDERS", () => {
    expect(secretsOf({ SMTP_USER: "", FEDERATED_PROVIDERS: " " })).toEqual({
      ...others,
      bridge: https("SESSION_KEYS"),
      status: https("SESSION_KEYS"),
      mail: task("CODE_PEPPER", "SESSION_KEYS"),
    });
  });

  it("gives every function deliberate options, each within bounds that keep a request answered and the bill capped", () => {
    const endpoints = load(
      {},
      `console.log(JSON.stringify(Object.fromEntries(Object.entries(m).map(([k, f]) => [k, f.__endpoint]))))`,
    ) as Record<string, Record<string, unknown>>;
    expect(Object.keys(endpoints).sort()).toEqual([...Object.keys(GROUPS), ...Object.keys(TASKS)].sort());
    let ceiling = 0;
    for (const [name, e] of Object.entries(endpoints)) {
      const at = `${name}: `;
      expect(at + String(e.platform)).toBe(at + "gcfv2");
      // The operator CLI wakes `mail` on the queue in MAIL_LOCATION: the region every function is in.
      expect(at + JSON.stringify(e.region)).toBe(at + JSON.stringify([MAIL_LOCATION]));
      expect([at, e.availableMemoryMb]).toEqual([at, expect.any(Number)]);
      expect([256, 512, 1024]).toContain(e.availableMemoryMb);
      // Past the apps' own deadline, so the contract's 503 is what a caller sees, and short of
      // the platform's default of 60 s, so a stuck request is not billed for a minute. A task
      // answers no caller: it may take a batch of sends, each bounded by the SMTP timeouts.
      expect(e.timeoutSeconds).toBeGreaterThan(REQUEST_DEADLINE_MS / 1000);
      expect(e.timeoutSeconds).toBeLessThanOrEqual(name in TASKS ? 300 : 60);
      expect(e.concurrency).toBeGreaterThanOrEqual(1);
      expect(e.concurrency).toBeLessThanOrEqual(1000);
      // The platform runs more than one request at a time only on a whole vCPU.
      if ((e.concurrency as number) > 1) expect(e.cpu).toBeGreaterThanOrEqual(1);
      expect(e.minInstances).toBe(0);
      expect(e.maxInstances).toBeGreaterThanOrEqual(1);
      expect(e.maxInstances).toBeLessThanOrEqual(50);
      ceiling += e.maxInstances as number;
    }
    // The cost ceiling of the whole service: every function at its maximum at once.
    expect(ceiling).toBeLessThanOrEqual(100);
  });

  it("loads only its own function's bundle, and nothing from node_modules, in an instance started for it", () => {
    const seen = load(
      { FUNCTION_TARGET: "sessions" },
      `console.log(JSON.stringify({ exports: Object.keys(m), type: typeof m.sessions, endpoint: "__endpoint" in m.sessions, modules: Object.keys(require.cache).map((p) => require("node:path").relative(${JSON.stringify(functionsDir)}, p)).sort() }))`,
    );
    // The bundle itself is compiled as a script (runtime/bundles.ts), so it is no module of require's.
    // The logger, for a start that fails, with the trace its lines read (two node built-ins).
    expect(seen).toEqual({
      exports: ["sessions"],
      type: "function",
      endpoint: false,
      modules: ["lib/logger.js", "lib/runtime/bundles.js", "lib/runtime/main.js", "lib/trace.js"],
    });
  });

  it("loads the SDK wrapper where the manifest is read for deploy", () => {
    expect(load({}, `console.log(${loaded})`)).toBeGreaterThan(0);
  });
});
