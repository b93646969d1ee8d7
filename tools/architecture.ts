/**
 * `node tools/architecture.ts [--write | --check]`: the functions' picture of themselves, drawn
 * from their imports (static imports, `import()` types and `require()` of relative paths alike).
 * Each source file belongs to one part of the house (below); the parts stand in layers, and an
 * import may only point down them. Core's feature folders share a layer: they may use each other,
 * but never in a circle. No circle is allowed between files either.
 *
 * --write puts the picture (a mermaid diagram) into docs/architecture.md between its markers;
 * --check (what the test suite runs) fails if a rule is broken or the picture is out of date.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** ARCHITECTURE_SRC and ARCHITECTURE_DOC name another tree and page (the test plants a broken rule in a copy). */
const src = process.env.ARCHITECTURE_SRC ?? join(root, "functions", "src");
const doc = process.env.ARCHITECTURE_DOC ?? join(root, "docs", "architecture.md");

/** The parts, top to bottom; a part may import only parts below it (features: see above). */
const LAYERS: Array<{ part: string; rank: number }> = [
  { part: "runtime", rank: 0 },
  { part: "ops", rank: 0 },
  { part: "groups", rank: 1 },
  { part: "routes", rank: 2 },
  { part: "tasks", rank: 2 },
  { part: "http", rank: 3 },
  { part: "deps", rank: 4 },
  { part: "config", rank: 5 },
  { part: "adapters", rank: 5 },
  { part: "core/*", rank: 6 },
  { part: "core", rank: 7 },
  { part: "store", rank: 8 },
  { part: "model", rank: 9 },
  { part: "base", rank: 10 },
];

export function partOf(file: string): string {
  const rel = relative(src, file).split("\\").join("/");
  const [first, second] = rel.split("/");
  // The deploy manifest stays at the top of src/, where the conventions put it, and runs with runtime/.
  if (rel === "index.ts") return "runtime";
  if (rel === "groups.ts" || rel === "paths.ts") return "groups";
  if (rel === "deps.ts") return "deps";
  if (["clock.ts", "random.ts", "logger.ts", "trace.ts"].includes(rel)) return "base";
  if (first === "core" && second === "model") return "model";
  if (first === "core") return second !== undefined && second.endsWith(".ts") ? "core" : `core/${second}`;
  return first as string;
}

function rankOf(part: string): number {
  const row = LAYERS.find((l) => l.part === part || (l.part === "core/*" && part.startsWith("core/")));
  if (!row) throw new Error(`no layer for ${part}`);
  return row.rank;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [path] : [];
  });
}

const SPECIFIER = /(?:\bfrom\s+|\bimport\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g;

/** The files `text` (the source of `file`) imports by a relative specifier, each resolved. */
function relativeImportsOf(file: string, text: string): string[] {
  const targets = [...text.matchAll(SPECIFIER)].map((m) => resolveSpecifier(file, m[1] as string));
  return targets.filter((t): t is string => t !== null);
}

/** Every relative import of every source file, resolved to the file it names. */
export function imports(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(src)) {
    const targets = relativeImportsOf(file, readFileSync(file, "utf8"));
    // An import out of functions/src is the repository check's to judge (repositoryImports).
    graph.set(file, [...new Set(targets.filter((t) => !relative(src, t).startsWith("..")))]);
  }
  return graph;
}

/** The rules, as a list of what breaks them (empty: the house stands). */
export function broken(graph: Map<string, string[]>): string[] {
  const problems: string[] = [];
  const name = (f: string) => relative(src, f);
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const [a, b] = [partOf(from), partOf(to)];
      if (a === b) continue;
      const sideways = a.startsWith("core/") && b.startsWith("core/");
      if (!sideways && rankOf(b) <= rankOf(a))
        problems.push(`${name(from)} (${a}) imports ${name(to)} (${b}): an arrow running up or across`);
    }
  }
  // Circles: between core's features, and between files anywhere.
  const features = edgesBetweenParts(graph).filter(([a, b]) => a.startsWith("core/") && b.startsWith("core/"));
  for (const cycle of cycles(features)) problems.push(`core's features in a circle: ${cycle.join(" → ")}`);
  const files = [...graph].flatMap(([from, targets]) => targets.map((to): [string, string] => [name(from), name(to)]));
  for (const cycle of cycles(files)) problems.push(`files in a circle: ${cycle.join(" → ")}`);
  return problems;
}

function edgesBetweenParts(graph: Map<string, string[]>): Array<[string, string]> {
  const edges = new Set<string>();
  for (const [from, targets] of graph)
    for (const to of targets) if (partOf(from) !== partOf(to)) edges.add(`${partOf(from)}\u0000${partOf(to)}`);
  return [...edges].sort().map((e) => e.split("\u0000") as [string, string]);
}

/** Each circle found by a depth-first walk, once. */
function cycles(edges: Array<[string, string]>): string[][] {
  const next = new Map<string, string[]>();
  for (const [a, b] of edges) next.set(a, [...(next.get(a) ?? []), b]);
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const to of next.get(node) ?? []) {
      if (state.get(to) === "open") found.push([...stack.slice(stack.indexOf(to)), to]);
      else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of next.keys()) if (!state.has(node)) visit(node);
  return found;
}

const LABELS: Record<string, string> = {
  runtime:
    "runtime/, index.ts<br/>the entry, the deploy manifest, the bundles,<br/>serving a group, the build's rehearsal",
  ops: "ops/<br/>operator tools",
  groups: "groups.ts, paths.ts<br/>the endpoint groups and tasks,<br/>the route manifest",
  routes: "routes/<br/>one folder per group,<br/>a file per audience",
  tasks: "tasks/<br/>one file per task-queue function",
  http: "http/<br/>express plumbing, the gate,<br/>the caller, the presenters",
  deps: "deps.ts<br/>buildDeps",
  config: "config/<br/>every setting: its name, default,<br/>reading and check",
  adapters: "adapters/<br/>identity provider, mail",
  core: "core/<br/>shared: the error catalogue, ports, deps,<br/>settings, secrets, the pepper and its seal, failures …",
  store: "store/<br/>one module per collection,<br/>the transaction runner",
  model: "core/model/<br/>the domain's records",
  base: "clock, random, logger, trace",
};

/** The picture: parts as boxes, one arrow per pair of parts that import each other's files. */
export function picture(graph: Map<string, string[]>): string {
  const id = (part: string) => part.replace(/[^a-z]/g, "_");
  const parts = [...new Set([...graph.keys()].map(partOf))].sort((a, b) => rankOf(a) - rankOf(b) || a.localeCompare(b));
  const lines = ["```mermaid", "flowchart TD"];
  const features = parts.filter((p) => p.startsWith("core/"));
  for (const part of parts.filter((p) => !p.startsWith("core/")))
    lines.push(`  ${id(part)}["${LABELS[part] ?? part}"]`);
  lines.push('  subgraph features["core/: the rules, a folder per feature"]');
  for (const part of features) lines.push(`    ${id(part)}["${part.slice("core/".length)}/"]`);
  lines.push("  end");
  for (const [a, b] of edgesBetweenParts(graph)) lines.push(`  ${id(a)} --> ${id(b)}`);
  lines.push("```");
  return lines.join("\n");
}

/**
 * The repository's areas, top to bottom: the benches; the tools (the stack, the checks, the
 * functions' build scripts); the site; the functions. A file may import files of its own area and
 * of areas below it, never above, and no files anywhere import each other in a circle. Tests are
 * left out: they reach into every area to hold it to its word. ARCHITECTURE_ROOT names another
 * tree (the test plants a broken rule in a copy).
 */
const repo = process.env.ARCHITECTURE_ROOT ?? root;
const AREAS = ["bench", "tools", "site", "functions"] as const;

export function areaOf(file: string): (typeof AREAS)[number] {
  const rel = relative(repo, file).split("\\").join("/");
  if (rel.startsWith("functions/src/")) return "functions";
  // functions/bundle.mts and stack-trace.mts: the functions' build, run beside them like a tool.
  if (rel.startsWith("functions/") || rel.startsWith("tools/")) return "tools";
  if (rel.startsWith("site/")) return "site";
  if (rel.startsWith("bench/")) return "bench";
  throw new Error(`no area for ${rel}`);
}

function repositorySources(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === "node_modules" ? [] : walk(path);
      return /\.m?ts$/.test(name) && !/\.(test|d)\.m?ts$/.test(name) ? [path] : [];
    });
  const functionsTools = readdirSync(join(repo, "functions"))
    .filter((name) => name.endsWith(".mts"))
    .map((name) => join(repo, "functions", name));
  return [
    ...walk(join(repo, "functions", "src")),
    ...functionsTools,
    ...["site", "tools", "bench"].flatMap((d) => walk(join(repo, d))),
  ];
}

/** The file a relative specifier names, as TypeScript finds it; null for none (an asset, say). */
function resolveSpecifier(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  const candidates = /\.m?[jt]s$/.test(base)
    ? [base.replace(/\.js$/, ".ts").replace(/\.mjs$/, ".mts"), base]
    : [`${base}.ts`, `${base}.mts`, join(base, "index.ts")];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
}

/** A module of the functions loaded by name, as built (tools/compiled.ts's `compiled`, the benches' `service`). */
const LOADED_BY_NAME = /\b(?:compiled|service)\s*(?:<[\s\S]*?>)?\s*\(\s*["']([a-z0-9/-]+)["']/g;

/** Every import of every source file of the repository, resolved to the file it names. */
export function repositoryImports(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of repositorySources()) {
    const text = readFileSync(file, "utf8");
    const byName = [...text.matchAll(LOADED_BY_NAME)]
      .map((m) => join(repo, "functions", "src", `${m[1] as string}.ts`))
      .filter((target) => existsSync(target));
    graph.set(file, [...new Set([...relativeImportsOf(file, text), ...byName])]);
  }
  return graph;
}

/** The repository's rules, as a list of what breaks them. */
export function brokenInRepository(graph: Map<string, string[]>): string[] {
  const problems: string[] = [];
  const name = (f: string) => relative(repo, f);
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const [a, b] = [areaOf(from), areaOf(to)];
      if (AREAS.indexOf(b) < AREAS.indexOf(a))
        problems.push(`${name(from)} (${a}) imports ${name(to)} (${b}): an import running up the repository`);
    }
  }
  const files = [...graph].flatMap(([from, targets]) => targets.map((to): [string, string] => [name(from), name(to)]));
  for (const cycle of cycles(files)) problems.push(`files in a circle: ${cycle.join(" → ")}`);
  return problems;
}

const START = "<!-- architecture:graph:start (tools/architecture.ts --write) -->";
const END = "<!-- architecture:graph:end -->";

if (fileURLToPath(import.meta.url) === process.argv[1]) {
  const graph = imports();
  const whole = repositoryImports();
  const problems = [...new Set([...broken(graph), ...brokenInRepository(whole)])];
  for (const p of problems) console.error(p);
  const current = readFileSync(doc, "utf8");
  const at = current.indexOf(START);
  const end = current.indexOf(END);
  if (at < 0 || end < 0) {
    console.error(`docs/architecture.md has no ${START} … ${END} markers`);
    process.exit(1);
  }
  const next = `${current.slice(0, at + START.length)}\n${picture(graph)}\n${current.slice(end)}`;
  if (process.argv.includes("--write")) {
    writeFileSync(doc, next);
    console.log("docs/architecture.md: picture written");
  } else if (next !== current) {
    console.error(
      "docs/architecture.md: the picture is out of date with the imports; run `node tools/architecture.ts --write`",
    );
    process.exit(1);
  }
  process.exit(problems.length === 0 ? 0 : 1);
}
