/**
 * Builds the functions only when their sources changed since the build in `functions/lib`: the
 * operator CLI and the stack start without the 5–7 s of a TypeScript build when nothing changed.
 *
 * Fresh means: the sources (every file tsc compiles, its configuration, and the bundler) hash as they did at
 * the last build made here, and `lib/index.js` is the file that build wrote (any other build,
 * e.g. the deploy's, rewrites it, and the next call here builds once more).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return sources(path);
      return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path] : [];
    })
    .sort();
}

function inputsHash(functions: string): string {
  const hash = createHash("sha256");
  const files = [
    ...sources(join(functions, "src")),
    ...["tsconfig.json", "tsconfig.build.json", "package.json", "bundle.mts"].map((f) => join(functions, f)),
  ];
  for (const file of files)
    hash
      .update(`${relative(functions, file)}\0`)
      .update(readFileSync(file))
      .update("\0");
  return hash.digest("hex");
}

const entry = (functions: string) => join(functions, "lib", "index.js");
const output = (functions: string) =>
  existsSync(entry(functions)) && existsSync(join(functions, "lib", "ops", "operator.js"))
    ? // Whole milliseconds: a copy that keeps the times (cp -p, cpSync) keeps no more than these.
      Math.floor(statSync(entry(functions)).mtimeMs)
    : null;

/** Builds when needed; `say` tells why. Throws when the build fails. Returns whether it built. */
export function ensureFunctionsBuilt(root: string, say: (line: string) => void): boolean {
  const functions = join(root, "functions");
  const stamp = join(root, ".stack", "functions-build.json");
  const inputs = inputsHash(functions);
  const was = existsSync(stamp)
    ? (JSON.parse(readFileSync(stamp, "utf8")) as { inputs?: string; output?: number })
    : {};
  if (was.inputs === inputs && was.output === output(functions)) return false;
  say(output(functions) === null ? "building the functions" : "the functions changed: building them again");
  const built = spawnSync("npm", ["--prefix", functions, "run", "build", "--silent"], { stdio: ["ignore", 2, 2] });
  if (built.status !== 0) throw new Error(`the functions did not build (exit ${built.status ?? built.signal})`);
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, JSON.stringify({ inputs, output: output(functions) }) + "\n");
  return true;
}
