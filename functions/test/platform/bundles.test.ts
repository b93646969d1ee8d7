/**
 * The functions as the platform holds them (lib/, built by the stack before the suite runs): one
 * bundle per function of the manifest, requiring nothing outside Node's built-ins, served through
 * the Functions Framework from a directory with no node_modules; and the code cache the platform's
 * build makes (`gcp-build`), taken by V8 on the pinned Node for every function.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../src/clock";
import { GROUPS, TASKS } from "../../src/groups";
import { sessionTokens } from "../../src/core/sessions/session-token";
import { freePort, startStandIn, stopped } from "../support/own-firestore";

const functionsDir = join(__dirname, "..", "..");
const bundlesDir = join(functionsDir, "lib", "bundles");
const framework = join(functionsDir, "node_modules", "@google-cloud", "functions-framework", "build", "src", "main.js");
const names = [...Object.keys(GROUPS), ...Object.keys(TASKS)].sort();
/** What a function answers a GET of a path it does not serve: a group 404, a task (which takes a POSTed task) 400. */
const refusal = (name: string) => (name in TASKS ? 400 : 404);

/** package.json and lib/ without source maps or code caches, where no node_modules can be found. */
function deployedCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "deployed-"));
  cpSync(join(functionsDir, "package.json"), join(dir, "package.json"));
  cpSync(join(functionsDir, "lib"), join(dir, "lib"), {
    recursive: true,
    filter: (path) => !path.endsWith(".map") && !path.endsWith(".cache"),
  });
  return dir;
}

const baseEnv = () => ({ PATH: process.env.PATH, GCLOUD_PROJECT: "demo-bundles", METADATA_SERVER_DETECTION: "none" });

/** The platform's build step, as `npm run gcp-build` runs it: lib/runtime/gcp-build.js with this Node. */
function codeCache(dir: string): string {
  const out = spawnSync(process.execPath, [join("lib", "runtime", "gcp-build.js")], {
    cwd: dir,
    encoding: "utf8",
    env: baseEnv(),
    timeout: 120_000,
  });
  if (out.status !== 0) throw new Error(out.stderr);
  return out.stdout;
}

interface Served {
  url: string;
  logs: () => string;
  stop: () => Promise<void>;
}

/** The Functions Framework serving `target` from `dir`, as the runtime starts an instance. */
async function serve(dir: string, target: string, env: Record<string, string> = {}): Promise<Served> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [framework, "--source", dir, "--port", String(port)], {
    cwd: dir,
    env: { ...baseEnv(), FUNCTION_TARGET: target, NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let logs = "";
  child.stdout?.on("data", (c: Buffer) => (logs += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (logs += c.toString()));
  // The framework says nothing when it listens (NODE_ENV=production, as on the platform): ask.
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`the framework exited (${child.exitCode}): ${logs}`);
    const answered = await fetch(`http://127.0.0.1:${port}/`).then(
      (res) => res.arrayBuffer().then(() => true),
      () => false,
    );
    if (answered) break;
    if (tries > 100) {
      await stopped(child);
      throw new Error(`the framework did not answer: ${logs}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `http://127.0.0.1:${port}`, logs: () => logs, stop: () => stopped(child) };
}

const startWarnings = (logs: string) =>
  logs.split("\n").filter((line) => line.includes("started without its code cache"));

describe("the functions' bundles", () => {
  let dir: string;
  let built: string;
  beforeAll(() => {
    dir = deployedCopy();
    built = codeCache(dir);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("are one per function of the registry, each requiring nothing but Node's built-ins", () => {
    const bundles = readdirSync(bundlesDir).filter((f) => f.endsWith(".js"));
    expect(bundles.map((f) => f.replace(/\.js$/, "")).sort()).toEqual(names);
    for (const file of bundles) {
      // A require opening a string is text, not a call: ajv (in the MCP SDK) keeps the source of its
      // runtime helpers as strings for its standalone code, and passes the helpers themselves.
      const required = [
        ...readFileSync(join(bundlesDir, file), "utf8").matchAll(/(?<!['"`])\brequire\("([^"]+)"\)/g),
      ].map((m) => m[1] as string);
      expect({ file, outside: [...new Set(required)].filter((id) => !isBuiltin(id)) }).toEqual({ file, outside: [] });
      expect(readdirSync(bundlesDir)).toContain(`${file}.map`);
    }
  });

  it("get a code cache from the build, on the pinned Node, that V8 takes for every function", async () => {
    const pinned = (
      JSON.parse(readFileSync(join(functionsDir, "package.json"), "utf8")) as {
        devDependencies: Record<string, string>;
      }
    ).devDependencies.node;
    expect(process.version).toBe(`v${pinned}`);
    expect(built).toContain(`${names.length} bundles rehearsed with Node ${process.version}`);
    for (const name of names) {
      // Every function of the registry, so one the build's rehearsal left out starts without it.
      const served = await serve(dir, name);
      try {
        const res = await fetch(`${served.url}/no-such-path`);
        expect({ name, status: res.status, warnings: startWarnings(served.logs()) }).toEqual({
          name,
          status: refusal(name),
          warnings: [],
        });
      } finally {
        await served.stop();
      }
    }
  }, 120_000);

  it("start without a code cache V8 refuses, saying so once, and still serve", async () => {
    const bad = deployedCopy();
    try {
      writeFileSync(join(bad, "lib", "bundles", "status.cache"), "not V8's code of this bundle");
      const served = await serve(bad, "status");
      try {
        expect((await fetch(`${served.url}/no-such-path`)).status).toBe(404);
        expect((await fetch(`${served.url}/no-such-path`)).status).toBe(404);
        const warnings = startWarnings(served.logs());
        expect(warnings).toHaveLength(1);
        expect(JSON.parse(warnings[0] as string)).toMatchObject({ severity: "WARNING", cache: "rejected" });
      } finally {
        await served.stop();
      }
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  it("run a dynamic import inside a bundle through Node's loader", () => {
    const bare = deployedCopy();
    try {
      writeFileSync(
        join(bare, "lib", "bundles", "probe.js"),
        `exports.handler = () => {}; exports.imported = import("node:os").then((os) => typeof os.cpus);`,
      );
      const out = spawnSync(
        process.execPath,
        [
          "-e",
          `require("./lib/runtime/bundles.js").runBundle("probe").exports.imported.then(console.log, (e) => console.log(e.code))`,
        ],
        { cwd: bare, encoding: "utf8", env: baseEnv() },
      );
      expect(out.stdout.trim()).toBe("function");
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it("log stack traces that the source maps beside the bundles put back in the sources", async () => {
    // No SESSION_KEYS: checking a session throws inside the bundle, and the app logs the stack.
    const served = await serve(dir, "sessions");
    try {
      const res = await fetch(`${served.url}/auth/session/refresh`, {
        method: "POST",
        headers: { cookie: "__session=a.b.c", origin: "https://example.test" },
      });
      expect(res.status).toBe(500);
    } finally {
      await served.stop();
    }
    const logged = served
      .logs()
      .split("\n")
      .find((line) => line.includes("unhandled error")) as string;
    expect(logged).toMatch(/bundles\/sessions\.js:\d+:\d+/);
    const mapped = spawnSync(process.execPath, [join(functionsDir, "stack-trace.mts")], {
      input: logged,
      encoding: "utf8",
    });
    expect(mapped.stdout).toMatch(/at \S+ \(src\/deps\.ts:\d+:\d+\)/);
    expect(mapped.stdout).not.toMatch(/bundles\/sessions\.js/);
  });

  describe("served as deployed", () => {
    let firestorePort: number;
    let firestore: ChildProcess;
    beforeAll(async () => {
      firestorePort = await freePort();
      firestore = await startStandIn(firestorePort);
    });
    afterAll(() => stopped(firestore));

    const operations = async () =>
      (await (await fetch(`http://127.0.0.1:${firestorePort}/emulator/v1/operations`)).json()) as Record<
        string,
        number
      >;

    it("reads its params and secrets from the environment, and its gate costs the one read §3 counts", async () => {
      const { privateKey } = await import("node:crypto").then((c) =>
        c.generateKeyPairSync("rsa", { modulusLength: 2048 }),
      );
      const keys = JSON.stringify([{ ...privateKey.export({ format: "jwk" }), kid: "bundles", alg: "RS256" }]);
      const now = systemClock.now();
      const { token } = await sessionTokens(keys, "https://id.elsewhere.test", "elsewhere.test").issue(
        { uid: "u-bundles", personId: "p-bundles", sessionId: "s-bundles", authTime: now, amr: [] },
        now,
        60_000,
      );
      const served = await serve(dir, "status", {
        SESSION_KEYS: keys,
        PARENT_DOMAIN: "elsewhere.test",
        ID_URL: "https://id.elsewhere.test",
        FIRESTORE_EMULATOR_HOST: `127.0.0.1:${firestorePort}`,
      });
      try {
        await fetch(`http://127.0.0.1:${firestorePort}/emulator/v1/operations`, { method: "DELETE" });
        // Issued for the env's domain and verified with the env's key: a person nobody holds.
        const res = await fetch(`${served.url}/status`, { headers: { cookie: `__session=${token}` } });
        expect(res.status).toBe(403);
        expect(await operations()).toMatchObject({ documentReads: 1, queries: 0, commits: 0 });
      } finally {
        await served.stop();
      }
    });
  });
});
