/**
 * The compile cache (src/compile-cache.ts), on the compiled functions as an instance loads them:
 * enabled beside the code before anything else loads, and filled by the build's warm-up
 * (`npm run gcp-build`) with everything a group's first request and first Firestore read load,
 * so a fresh instance compiles none of it: every module such a request loads was loaded by the
 * build, and Node reports (NODE_DEBUG_NATIVE=COMPILE_CACHE) that V8 took their cached code.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "./support/env";

const functionsDir = join(__dirname, "..");
const lib = (m: string) => JSON.stringify(join(functionsDir, "lib", m));

function node(args: string[], env: Record<string, string>) {
  const out = spawnSync(process.execPath, args, {
    cwd: functionsDir,
    encoding: "utf8",
    env: { PATH: process.env.PATH, GCLOUD_PROJECT: "demo-compile-cache", ...env },
    timeout: 60_000,
  });
  if (out.status !== 0) throw new Error(out.stderr);
  return out;
}

/** The modules a process has loaded (its -e script is not one). */
const LOADED = "Object.keys(require.cache)";

/** A fresh instance of `group`: its entry, its app built, and its first Firestore read. */
const firstRequest = (group: string) => `
  require(${lib("index.js")});
  const { productionDeps } = require(${lib("deps.js")});
  const { createApp } = require(${lib("http/app.js")});
  const g = require(${lib(`routes/${group}.js`)});
  const deps = productionDeps();
  createApp(g.routes(deps), { presenter: g.presenter, allowedOrigins: [], log: deps.log });
  deps.store.doc("people/compile-cache-probe").get().then(() => console.log(JSON.stringify(${LOADED})));
`;

describe("the compile cache", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "compile-cache-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is enabled, beside the code, by an instance's entry before anything else loads", () => {
    const out = node(["-e", `require(${lib("index.js")}); console.log(require("node:module").getCompileCacheDir())`], {
      FUNCTION_TARGET: "sessions",
    });
    expect(out.stdout.trim().startsWith(join(functionsDir, ".compile-cache"))).toBe(true);
  });

  it("is filled by the build with everything the first request and first read of a group load", () => {
    const cache = { NODE_COMPILE_CACHE: dir, NODE_COMPILE_CACHE_PORTABLE: "1" };
    const warm = node(["-e", `require(${lib("gcp-build.js")}); console.log(JSON.stringify(${LOADED}))`], cache);
    expect(warm.stdout).toMatch(/compile cache: \d{3,} entries/);
    const built = new Set(JSON.parse(warm.stdout.trim().split("\n").pop() as string) as string[]);

    for (const group of ["sessions", "startpage", "people", "status", "otp", "oidc"]) {
      const out = node(["-e", firstRequest(group)], {
        ...cache,
        NODE_DEBUG_NATIVE: "COMPILE_CACHE",
        FUNCTION_TARGET: group,
        FIRESTORE_EMULATOR_HOST: process.env.FIRESTORE_EMULATOR_HOST as string,
        SESSION_KEYS: "",
        METADATA_SERVER_DETECTION: "none",
      });
      // The read answered; every module it loaded, the build loaded too.
      const first = JSON.parse(out.stdout.trim()) as string[];
      expect(first.length).toBeGreaterThan(300);
      const missed = first.filter((file) => !built.has(file));
      // And V8 took the cached code. Node's report comes from more than one thread and its lines
      // can interleave, so this counts whole "accepted" facts rather than pairing each lookup.
      const accepted = [...out.stderr.matchAll(/V8 code cache for CommonJS \S+ was accepted/g)].length;
      expect({ group, missed, most: accepted > first.length * 0.9 }).toEqual({ group, missed: [], most: true });
    }
  });
});
