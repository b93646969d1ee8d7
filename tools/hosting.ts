/**
 * `node tools/hosting.ts [--write | --check]`: firebase.json's Hosting rewrites and the identity
 * host's page headers, made from what declares them once: the route manifest
 * (functions/src/paths.ts: each group's paths and the sites that serve them) and the identity
 * host's page list (site/pages.ts). Everything else in firebase.json is left as it is.
 *
 * --write rewrites firebase.json; --check (what the test suite runs) fails if it is out of date.
 * The manifest is read as the functions are built (functions/lib), as the bench reads them; the
 * build is brought up to date first when it is older than the sources.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PAGES } from "../site/pages.ts";
import { compiled } from "./compiled.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** functions/src/paths.ts, as built. */
interface Route {
  path: string;
  apps?: readonly string[];
}
const { PATHS, sitesOf } = compiled<{
  PATHS: Record<string, readonly Route[]>;
  sitesOf(route: Route): string[];
}>("paths");
/** HOSTING_CONFIG names another file (the test plants a stale one in a copy). */
const file = process.env.HOSTING_CONFIG ?? join(root, "firebase.json");
/** Every function runs in one region (functions/src/runtime/function.ts, COMMON_OPTIONS). */
const REGION = "us-central1";

interface Rewrite {
  source: string;
  function: { functionId: string; region: string };
}
interface HeaderRule {
  source?: string;
  regex?: string;
  headers: Array<{ key: string; value: string }>;
}
interface SiteConfig {
  target: string;
  rewrites?: Rewrite[];
  headers?: HeaderRule[];
}

/** The rewrites of one site: every path the manifest gives it, in the manifest's order. */
export function rewritesFor(site: string): Rewrite[] {
  return Object.entries(PATHS).flatMap(([functionId, routes]) =>
    routes
      .filter((route) => sitesOf(route).includes(site))
      .map((route) => ({ source: route.path, function: { functionId, region: REGION } })),
  );
}

/** The identity host's pages by path, and the two files every page loads: the rule its page headers apply to. */
export function pagesRegex(): string {
  const names = PAGES.flatMap((p) => (p.path === null || p.path === "/" ? [] : [p.path.slice(1)]));
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return `^/(${[...names, "site-config.js", "page.css"].map(escape).join("|")})?$`;
}

/** firebase.json with its rewrites and the identity host's page rule as the declarations make them. */
export function generated(config: { hosting: SiteConfig[] }): { hosting: SiteConfig[] } {
  const hosting = config.hosting.map((site) => {
    const rewrites = rewritesFor(site.target);
    const next: SiteConfig = { ...site, rewrites };
    if (site.target === "id") {
      // The page rule is the one matched by a regex: the pages' own headers (the rest are by source).
      next.headers = (site.headers ?? []).map((rule) =>
        rule.regex === undefined ? rule : { ...rule, regex: pagesRegex() },
      );
    }
    return next;
  });
  return { ...config, hosting };
}

if (fileURLToPath(import.meta.url) === process.argv[1]) {
  const current = JSON.parse(readFileSync(file, "utf8"));
  const next = generated(current);
  if (process.argv.includes("--write")) {
    writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
    // In the repository's style, as `npm test` checks it.
    spawnSync(join(root, "functions", "node_modules", ".bin", "prettier"), ["--write", file, "--log-level", "warn"]);
    console.log("firebase.json: rewrites and page headers written from functions/src/paths.ts and site/pages.ts");
  } else if (JSON.stringify(next) !== JSON.stringify(current)) {
    console.error(
      "firebase.json: its rewrites or page headers differ from functions/src/paths.ts and site/pages.ts; run `node tools/hosting.ts --write`",
    );
    process.exitCode = 1;
  }
}
