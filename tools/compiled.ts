/**
 * A module of the functions as built (`functions/lib/<name>.js`), for the tools that share the
 * functions' own declarations (the route manifest) rather than copy them:
 * the functions are CommonJS TypeScript, which Node runs only once compiled. Built first when the
 * source is newer than what was built.
 */
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

export function compiled<T>(name: string): T {
  const built = join(root, "functions", "lib", `${name}.js`);
  const source = join(root, "functions", "src", `${name}.ts`);
  if (!existsSync(built) || statSync(built).mtimeMs < statSync(source).mtimeMs) {
    const build = spawnSync("npm", ["--prefix", join(root, "functions"), "run", "build", "--silent"], {
      stdio: "inherit",
    });
    if (build.status !== 0) throw new Error(`the functions did not build (exit ${build.status})`);
  }
  return createRequire(import.meta.url)(built) as T;
}
