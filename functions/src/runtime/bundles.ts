import { existsSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Script, constants } from "node:vm";
import { consoleLogger } from "../logger";

/**
 * Each function's code as one file, `lib/bundles/<name>.js` (built by `bundle.mts`): its group's
 * routes with the app, the dependencies and the SDKs they use, requiring nothing but Node's
 * built-ins. Beside it, `<name>.js.map` (read by no instance) and `<name>.cache`: V8's code of
 * the bundle after it has served a request, written by the platform's build (gcp-build.ts) with
 * the Node the instances run. Node's own compile cache keeps only a script's top level; this one
 * also holds every function that ran, so a fresh instance compiles almost none of its first
 * request (bench/RESULTS.md §4b).
 */
// lib/bundles/, beside the compiled runtime/ rather than in it: the path the deploy, the tools and the tests name.
export const BUNDLES_DIR = join(__dirname, "..", "bundles");

export const bundleFile = (name: string): string => join(BUNDLES_DIR, `${name}.js`);
export const codeCacheFile = (name: string): string => join(BUNDLES_DIR, `${name}.cache`);

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** What a bundle exports (the virtual entry bundle.mts writes for each group). */
export interface BundleExports {
  handler: NodeHandler;
  /** Run once by the platform's build before it keeps V8's code of the bundle (rehearsal.ts). */
  rehearse: () => Promise<void>;
}

/** CommonJS's module wrapper: the bundle runs as Node would run it, with a require of its own. */
type ModuleFunction = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
) => void;

/**
 * Compiles the bundle, with `cachedData` when given (V8 checks it against the source and its own
 * version and flags, and compiles afresh when it does not match), and runs it. Dynamic `import()`
 * inside the bundle (of Node's built-ins) goes through Node's own loader, as in a module.
 */
export function runBundle(name: string, cachedData?: Buffer): { exports: BundleExports; script: Script } {
  const file = bundleFile(name);
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, "utf8")}\n})`,
    {
      filename: file,
      cachedData,
      importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    },
  );
  const module = { exports: {} };
  (script.runInThisContext() as ModuleFunction)(module.exports, createRequire(file), module, file, BUNDLES_DIR);
  return { exports: module.exports as BundleExports, script };
}

/**
 * An instance's start: its function's bundle with the build's code cache. Without one, or with
 * one V8 refuses (another Node, other V8 flags), it compiles as any script does and says so once.
 */
export function startBundle(name: string): NodeHandler {
  const cache = codeCacheFile(name);
  const cachedData = existsSync(cache) ? readFileSync(cache) : undefined;
  const bundle = runBundle(name, cachedData);
  if (cachedData === undefined || bundle.script.cachedDataRejected === true)
    consoleLogger.warn(`the ${name} function started without its code cache`, {
      cache: cachedData === undefined ? "missing" : "rejected",
      node: process.version,
    });
  return bundle.exports.handler;
}
