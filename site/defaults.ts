/**
 * Every setting's default, read from the functions' own declaration of them
 * (functions/src/config/defaults.ts) as it is: it imports nothing, so esbuild strips its types
 * and it runs here, with no build of the functions first. For the identity host's build
 * (site/build.ts) and the local stack (tools/stack.ts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runInNewContext } from "node:vm";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** What functions/src/config/defaults.ts declares (its type is not imported: the functions are CommonJS). */
export interface Defaults {
  DEFAULTS: Record<string, string> & {
    PARENT_DOMAIN: string;
    ID_URL: string;
    APP_HOSTS: string;
    MAIL_FROM: string;
  };
  listOf(value: string): string[];
  originsFor(domain: string, identityUrl: string, hosts: string[]): string[];
}

export function defaults(): Defaults {
  // The functions' toolchain: one copy of esbuild.
  const esbuild = createRequire(join(root, "functions", "package.json"))("esbuild") as typeof import("esbuild", {
    with: { "resolution-mode": "require" },
  });
  const file = join(root, "functions", "src", "config", "defaults.ts");
  const { code } = esbuild.transformSync(readFileSync(file, "utf8"), { loader: "ts", format: "cjs", sourcefile: file });
  const module = { exports: {} };
  runInNewContext(code, { module, exports: module.exports, URL }, { filename: file });
  const read = module.exports as Partial<Defaults>;
  if (typeof read.DEFAULTS !== "object" || typeof read.listOf !== "function" || typeof read.originsFor !== "function")
    throw new Error(`${file} no longer declares DEFAULTS, listOf and originsFor`);
  return read as Defaults;
}
