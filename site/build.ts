/**
 * Builds the identity host's site into hosting/id: the pages' TypeScript bundled by esbuild
 * (one module per page, shared code split into common chunks, names hashed for caching), the
 * HTML pages pointing at them, and `/site-config.js` with this deployment's settings, read from
 * the same files the functions read theirs from (functions/.env, functions/.env.<project>).
 *
 *   node site/build.ts --project <id> [--auth-emulator 127.0.0.1:9099] [--out hosting/id]
 *
 * esbuild: it bundles TypeScript as it is (no separate compile), splits shared code, and runs in
 * well under a second; the pages need nothing a larger toolchain adds (no framework, no JSX).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { defaults } from "./defaults.ts";
import { PAGES, pageFile } from "./pages.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// The functions' toolchain: one copy of esbuild (its platform binary is an optional dependency,
// which the root install leaves out).
const esbuild = createRequire(join(root, "functions", "package.json"))("esbuild") as typeof import("esbuild", {
  with: { "resolution-mode": "require" },
});

export interface BuildOptions {
  projectId: string;
  /** host:port of the Auth emulator; absent in production. */
  authEmulator?: string | undefined;
  outDir?: string;
}

export interface PageWeight {
  page: string;
  /** Every script the page loads (its module, the chunks it imports, the config), raw and gzipped. */
  scripts: string[];
  bytes: number;
  gzipBytes: number;
  /** What it loads only when needed (`import()`: the WebAuthn helpers once a passkey is wanted), raw and gzipped. */
  lazyScripts: string[];
  lazyBytes: number;
  lazyGzipBytes: number;
}

type Outputs = Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }>;

/** The chunks `from` imports of `kind` (static or dynamic), and what those import statically in turn. */
function reached(outputs: Outputs, from: string[], kind: "import-statement" | "dynamic-import"): string[] {
  const found = new Set<string>();
  const visit = (file: string, via: string) => {
    for (const i of outputs[file]?.imports ?? []) {
      if (i.external || i.kind !== via || found.has(i.path) || from.includes(i.path)) continue;
      found.add(i.path);
      visit(i.path, "import-statement");
    }
  };
  for (const file of from) visit(file, kind);
  return [...found];
}

function weigh(files: Buffer[]): { bytes: number; gzipBytes: number } {
  return {
    bytes: files.reduce((sum, s) => sum + s.length, 0),
    gzipBytes: files.reduce((sum, s) => sum + gzipSync(s, { level: 9 }).length, 0),
  };
}

/** KEY=value lines, values optionally in single or double quotes, as the Functions runtime reads them. */
export function readEnvFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    const raw = match[2] as string;
    out[match[1] as string] = /^'.*'$|^".*"$/.test(raw) ? raw.slice(1, -1) : raw;
  }
  return out;
}

/** The settings the pages need, from the functions' parameter files for this project. */
export function siteSettings(options: BuildOptions): Record<string, unknown> {
  const env = {
    ...readEnvFile(join(root, "functions", ".env")),
    ...readEnvFile(join(root, "functions", `.env.${options.projectId}`)),
  };
  // The functions' own defaults, and their rule for the origins allowed to call.
  const { DEFAULTS, listOf, originsFor } = defaults();
  const value = (name: string) => (env[name] ?? "").trim() || (DEFAULTS[name] ?? "");
  const idUrl = new URL(value("ID_URL")).origin;
  const allowedOrigins = originsFor(value("PARENT_DOMAIN"), idUrl, listOf(value("APP_HOSTS")));
  const apiKey = value("IDP_API_KEY");
  if (apiKey === "")
    throw new Error(
      `IDP_API_KEY is not set for ${options.projectId} (functions/.env.${options.projectId}): the sign-in pages need the identity provider's web API key`,
    );
  const identityToolkit =
    options.authEmulator === undefined
      ? "https://identitytoolkit.googleapis.com/v1"
      : `http://${options.authEmulator}/identitytoolkit.googleapis.com/v1`;
  return { idUrl, allowedOrigins, identityToolkit, apiKey };
}

export async function buildSite(options: BuildOptions): Promise<PageWeight[]> {
  const out = options.outDir ?? join(root, "hosting", "id");
  const settings = siteSettings(options);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const entries = PAGES.map((p) => p.entry).filter((p): p is string => p !== null);
  const result = await esbuild.build({
    entryPoints: [
      ...entries.map((name) => ({ in: join(root, "site", "src", "pages", `${name}.ts`), out: name })),
      { in: join(root, "site", "style.css"), out: "style" },
    ],
    outdir: join(out, "assets"),
    entryNames: "[name]-[hash]",
    chunkNames: "shared-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    target: ["es2022", "chrome110", "firefox115", "safari16"],
    minify: true,
    // `site:config` is this deployment's /site-config.js, loaded by the browser, not bundled.
    plugins: [
      {
        name: "site-config",
        setup: (b) => b.onResolve({ filter: /^site:config$/ }, () => ({ path: "/site-config.js", external: true })),
      },
    ],
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
  });
  const outputs = result.metafile.outputs;
  const pathOf = (file: string) => `/${relative(out, join(root, file)).split("\\").join("/")}`;
  const outputFor = (entry: string) =>
    Object.keys(outputs).find((file) => outputs[file]?.entryPoint?.endsWith(entry)) as string;
  const style = pathOf(outputFor("site/style.css"));
  // The same stylesheet under a name that stays put, for the service's own error pages (http/presenters.ts).
  writeFileSync(join(out, "page.css"), readFileSync(join(out, style)));
  const configJs = `export default ${JSON.stringify(settings, null, 2)};\n`;
  writeFileSync(join(out, "site-config.js"), configJs);
  const brand = new URL(settings.idUrl as string).host.replace(/^id\./, "");
  const weights: PageWeight[] = [];
  const template = readFileSync(join(root, "site", "page.html"), "utf8");
  for (const page of PAGES) {
    const { title, entry, body } = page;
    const file = pageFile(page);
    let html = template
      .replaceAll("{{style}}", style)
      .replaceAll("{{brand}}", brand)
      .replaceAll("{{title}}", title)
      // A page with a script names its step once the script has looked: until then its heading says so.
      .replace(" {{placeholder}}", entry === null ? "" : " data-placeholder")
      .replace("{{body}}", body);
    if (entry !== null) {
      const main = outputFor(`site/src/pages/${entry}.ts`);
      const chunks = reached(outputs, [main], "import-statement");
      const statics = [main, ...chunks];
      const lazy = reached(outputs, statics, "dynamic-import");
      // Preload the shared chunks and the config with the page's module: one round of requests, not a waterfall.
      const preload = [...chunks.map(pathOf), "/site-config.js"]
        .map((href) => `<link rel="modulepreload" href="${href}">`)
        .join("\n");
      html = html.replace("{{scripts}}", `${preload}\n<script type="module" src="${pathOf(main)}"></script>`);
      const scripts = [...statics.map((f) => readFileSync(join(root, f))), Buffer.from(configJs)];
      const later = weigh(lazy.map((f) => readFileSync(join(root, f))));
      weights.push({
        page: page.path ?? "/404",
        scripts: [...statics.map(pathOf), "/site-config.js"],
        ...weigh(scripts),
        lazyScripts: lazy.map(pathOf),
        lazyBytes: later.bytes,
        lazyGzipBytes: later.gzipBytes,
      });
    } else {
      html = html.replace("{{scripts}}", "");
    }
    writeFileSync(join(out, file), html);
  }
  return weights;
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const projectId = argument("project") ?? process.env.GCLOUD_PROJECT;
  if (projectId === undefined || projectId === "") {
    console.error("usage: node site/build.ts --project <id> [--auth-emulator host:port] [--out dir]");
    process.exit(2);
  }
  try {
    const weights = await buildSite({ projectId, authEmulator: argument("auth-emulator"), outDir: argument("out") });
    for (const w of weights)
      console.log(
        `site: ${w.page.padEnd(16)} ${(w.gzipBytes / 1024).toFixed(1)} KiB of script gzipped (${(w.bytes / 1024).toFixed(1)} KiB)${w.lazyScripts.length === 0 ? "" : `, and ${(w.lazyGzipBytes / 1024).toFixed(1)} KiB when needed`}`,
      );
  } catch (err) {
    console.error(`site: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
