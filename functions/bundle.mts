/**
 * `node bundle.mts`, the second half of `npm run build` (after tsc): one bundle per function,
 * `lib/bundles/<name>.js` (src/runtime/bundles.ts says how an instance loads it), each holding its
 * group's routes, the app, the dependencies and the SDKs, so that it requires nothing but Node's
 * built-ins, with its source map beside it. The groups and tasks are those of the registry
 * (src/groups.ts): one added there is bundled here and rehearsed by the platform's build
 * (src/runtime/gcp-build.ts).
 *
 * esbuild: it bundles the TypeScript sources as they are, CommonJS for Node 24, minified; the
 * twelve bundles (eleven groups, one task) take a few seconds.
 */
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, "src");
const lib = join(here, "lib");
const fromLib = createRequire(join(lib, "index.js"));
const { GROUPS, TASKS } = fromLib("./groups.js") as {
  GROUPS: Record<string, () => unknown>;
  TASKS: Record<string, () => unknown>;
};
const { BUNDLES_DIR } = fromLib("./runtime/bundles.js") as { BUNDLES_DIR: string };

/** The source of the module a group's loader returns: its compiled module, found by its exports, back in src/. */
function moduleOf(name: string, load: () => unknown): string {
  const exported = load();
  const compiled = Object.values(fromLib.cache).find((m) => m?.exports === exported)?.filename;
  if (compiled === undefined) throw new Error(`the ${name} group's loader returned no module of lib/`);
  return `./${relative(lib, compiled).replace(/\.js$/, "")}`;
}

/**
 * Each bundle's entry: the group's handler (runtime/serve.ts) or the task's (runtime/task.ts), its
 * module loaded with the bundle, and what the platform's build runs once before keeping V8's code
 * (runtime/rehearsal.ts).
 */
const entry = (name: string, load: () => unknown, handler: string, from: string) =>
  [
    name,
    `import { ${handler} } from "${from}";
     export { rehearse } from "./runtime/rehearsal";
     import * as unit from ${JSON.stringify(moduleOf(name, load))};
     export const handler = ${handler}(${JSON.stringify(name)}, unit);`,
  ] as const;
const entries: Record<string, string> = Object.fromEntries([
  ...Object.entries(GROUPS).map(([name, load]) => entry(name, load, "serve", "./runtime/serve")),
  ...Object.entries(TASKS).map(([name, load]) => entry(name, load, "taskHandler", "./runtime/task")),
]);

const groupEntries: esbuild.Plugin = {
  name: "group-entries",
  setup(build) {
    build.onResolve({ filter: /^group:/ }, (args) => ({ path: args.path.slice("group:".length), namespace: "group" }));
    build.onLoad({ filter: /.*/, namespace: "group" }, (args) => ({
      contents: entries[args.path],
      resolveDir: src,
      loader: "ts",
    }));
  },
};

rmSync(BUNDLES_DIR, { recursive: true, force: true });
await esbuild.build({
  entryPoints: Object.fromEntries(Object.keys(entries).map((name) => [name, `group:${name}`])),
  outdir: BUNDLES_DIR,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node24",
  minify: true,
  // Beside each bundle, for mapping a stack trace from the logs (docs/deploying.md); no instance reads it.
  sourcemap: "linked",
  sourcesContent: false,
  plugins: [groupEntries],
  logLevel: "warning",
});
