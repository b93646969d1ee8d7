/** Loads the compiled functions code and its dependencies (they live in functions/node_modules). */
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(fileURLToPath(import.meta.url), "..", "..", "..");
export const functionsDir = join(root, "functions");
export const requireFromFunctions = createRequire(join(functionsDir, "package.json"));

/** A module of the compiled service (`npm run build` first), e.g. `core/session-token`. */
export function service<T>(module: string): T {
  return requireFromFunctions(join(functionsDir, "lib", module)) as T;
}
