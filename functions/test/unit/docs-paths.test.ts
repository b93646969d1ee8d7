/**
 * The docs name files that exist: every path written in backticks in README.md, docs/ and
 * bench/README.md (a source file, a test, a config), and every relative link, is found in the
 * tree. Paths the stack writes as it runs (`.stack/`, `emulator-data/local/`) and addresses on
 * the served sites (`/site-config.js`) are not files of the tree. Pure: it reads the checkout.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

const ROOT = join(__dirname, "..", "..", "..");
/** Where a doc's path may start from: the root, or the package or source tree it names a file of. */
const BASES = [".", "functions/src", "functions", "site/src", "site", "functions/test"];
const WRITTEN_AS_IT_RUNS = [/^\.stack\//, /^emulator-data\/local\//, /^\//, /^lib\//];

function markdown(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return markdown(path);
    return name.endsWith(".md") ? [path] : [];
  });
}

function missing(doc: string): string[] {
  const text = readFileSync(join(ROOT, doc), "utf8");
  const named = [...text.matchAll(/`([\w.\-/]+\.(?:ts|cjs|mts|json|md|sh|js))`/g)].map((m) => m[1] as string);
  const linked = [...text.matchAll(/\]\(((?!https?:|mailto:|#)[^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1] as string);
  const found = (path: string, from: string[]) => from.some((base) => existsSync(join(ROOT, base, path)));
  return [
    ...named
      .filter((p) => p.includes("/") && !WRITTEN_AS_IT_RUNS.some((r) => r.test(p)))
      .filter((p) => !found(p, [...BASES, dirname(doc)])),
    ...linked.filter((p) => !found(p, [dirname(doc)])),
  ].map((p) => `${doc}: ${p}`);
}

describe("the docs", () => {
  const docs = ["README.md", "bench/README.md", ...markdown("docs")];

  it("are all read here", () => {
    expect(docs.length).toBeGreaterThan(10);
  });

  it("name only files that exist, in backticks or in links", () => {
    expect(docs.flatMap(missing)).toEqual([]);
  });
});
