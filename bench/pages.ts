/**
 * `npm run bench:pages`: what the identity host's pages cost a browser. For each page, the
 * JavaScript it loads (raw and gzipped, against the sign-in page's budget of 80 KB gzipped), and
 * how long until it is interactive on the local stack, in Debian's Chromium: from navigation to
 * the moment the page puts focus on its first control (every page does, once it has asked the
 * service what it needs), cold (empty cache) and warm. Beside them, in the same run: the identity
 * provider's client SDK bundled for the one call the pages make instead, and the floor, a page
 * of the same host with no script at all.
 *
 * The reviewer pages are measured as an administrator meets them: the seed's administrator's
 * session is opened once (a password sign-in at the Auth emulator, then POST /auth/verify) and
 * its cookie set in each fresh browser profile before the page is opened.
 *
 * Starts its own stack (npm start's profile on ports 53xx), and writes its section of
 * bench/RESULTS.md; `npm run bench` keeps that section as it is.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { buildSite } from "../site/build.ts";
import { root } from "./lib/functions.ts";
import { writeSection } from "./lib/results.ts";
import { fmt, median, range } from "./lib/stats.ts";

const requireFromFunctions = createRequire(join(root, "functions", "package.json"));
const esbuild = requireFromFunctions("esbuild") as typeof import("esbuild", { with: { "resolution-mode": "require" } });
const { chromium } = createRequire(join(root, "package.json"))("playwright-core") as typeof import("playwright-core", {
  with: { "resolution-mode": "require" },
});

const BUDGET_BYTES = 80 * 1024;
const ROUNDS = Number(process.env.PAGES_ROUNDS ?? 9);
/**
 * npm start's profile, every port moved by 300 so a running stack is left alone (and by
 * PAGES_PORT_OFFSET more, where another bench may be running on the same machine).
 */
const OFFSET = Number(process.env.PAGES_PORT_OFFSET ?? 0);
const PORTS = Object.fromEntries(
  Object.entries({
    HOSTING_PORT: 5300,
    FUNCTIONS_PORT: 5301,
    AUTH_PORT: 9399,
    FIRESTORE_PORT: 8380,
    HUB_PORT: 4700,
    LOGGING_PORT: 4800,
    MAIL_SMTP_PORT: 1325,
    MAIL_WEB_PORT: 1380,
    GAMING_PROVIDER_PORT: 5310,
    FEDERATED_PROVIDER_PORT: 5315,
    HTTPS_PORT: 5343,
    HOOK_INBOX_PORT: 5320,
  }).map(([name, port]) => [name, port + OFFSET]),
) as Record<string, number>;

async function sdkBundle(variant: "minimal" | "default"): Promise<{ bytes: number; gzipBytes: number }> {
  const out = await esbuild.build({
    entryPoints: [join(root, "bench", "pages", "sdk-entry.ts")],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    define: { "process.env.SDK_VARIANT": JSON.stringify(variant) },
    nodePaths: [join(root, "node_modules")],
    logLevel: "error",
  });
  const code = Buffer.from(out.outputFiles[0]?.contents ?? new Uint8Array());
  return { bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

function startStack(): Promise<() => Promise<void>> {
  const child = spawn(process.execPath, [join(root, "tools", "stack.ts"), "start"], {
    env: { ...process.env, ...Object.fromEntries(Object.entries(PORTS).map(([k, v]) => [k, String(v)])) },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      process.kill(-(child.pid as number), "SIGTERM");
    });
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes("Press Ctrl-C to stop.")) resolve(stop);
    });
    child.once("exit", (code) =>
      reject(new Error(`the stack exited (${code}) before it was ready:\n${seen.slice(-2000)}`)),
    );
  });
}

/** Milliseconds from navigation to the page's first focus on a control (or, with no script, to DOMContentLoaded). */
async function timeToInteractive(
  page: import("playwright-core").Page,
  url: string,
  scripted: boolean,
): Promise<number> {
  await page.goto(url);
  if (!scripted)
    return page.evaluate(
      () => performance.getEntriesByType("navigation")[0]?.toJSON().domContentLoadedEventEnd as number,
    );
  await page.waitForFunction(
    () => (window as unknown as { __interactive?: number }).__interactive !== undefined,
    undefined,
    { timeout: 15000 },
  );
  return page.evaluate(() => (window as unknown as { __interactive: number }).__interactive);
}

/** The seed's administrator (emulator-data/seed.json), signed in once: the cookie, and their person. */
async function adminSession(): Promise<{ cookie: string; personId: string }> {
  const seed = JSON.parse(readFileSync(join(root, "emulator-data", "seed.json"), "utf8")) as {
    admin: { email: string; password: string };
  };
  const signIn = await fetch(
    `http://127.0.0.1:${PORTS.AUTH_PORT}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=any`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...seed.admin, returnSecureToken: true }),
    },
  );
  const { idToken } = (await signIn.json()) as { idToken: string };
  // The identity host's site (the Hosting emulator puts the second site at its port + 5).
  const idSite = `http://127.0.0.1:${PORTS.HOSTING_PORT + 5}`;
  const verified = await fetch(`${idSite}/auth/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ idToken, project: "account" }),
  });
  const cookie = /^__session=([^;]+)/.exec(verified.headers.getSetCookie()[0] ?? "")?.[1];
  if (verified.status !== 200 || cookie === undefined) throw new Error(`POST /auth/verify answered ${verified.status}`);
  const found = await fetch(`${idSite}/auth/people?email=${encodeURIComponent(seed.admin.email)}`, {
    headers: { cookie: `__session=${cookie}` },
  });
  const { people } = (await found.json()) as { people: Array<{ personId: string }> };
  return { cookie, personId: people[0]?.personId as string };
}

const PAGES: Array<{ name: string; path: string; scripted: boolean; admin?: boolean }> = [
  { name: "/ (sign in)", path: "/", scripted: true },
  { name: "/account (signed out)", path: "/account", scripted: true },
  { name: "/request-access", path: "/request-access", scripted: true },
  {
    name: "/handoff (signed out)",
    path: `/handoff?app=local-desktop&redirect_uri=${encodeURIComponent("http://127.0.0.1:8766/handoff")}`,
    scripted: true,
  },
  { name: "/review (administrator)", path: "/review", scripted: true, admin: true },
  { name: "/people (administrator)", path: "/people", scripted: true, admin: true },
  { name: "/person (administrator)", path: "/person?id=", scripted: true, admin: true },
  { name: "floor: a page with no script (404)", path: "/no-such-page", scripted: false },
];

export async function runPagesBench(): Promise<string[]> {
  const lines: string[] = [];
  const say = (line = "") => {
    console.log(line);
    lines.push(line);
  };
  const stop = await startStack();
  try {
    const out = mkdtempSync(join(tmpdir(), "pages-"));
    const weights = await buildSite({
      projectId: "demo-identity",
      authEmulator: `127.0.0.1:${PORTS.AUTH_PORT}`,
      outDir: out,
    });
    rmSync(out, { recursive: true, force: true });
    const [minimal, standard] = [await sdkBundle("minimal"), await sdkBundle("default")];

    const rules = ["example.test", "*.example.test"]
      .map((h) => `MAP ${h}:443 127.0.0.1:${PORTS.HTTPS_PORT}`)
      .join(", ");
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        `--host-resolver-rules=${rules}`,
      ],
    });
    const admin = await adminSession();
    const timings = new Map<string, { cold: number[]; warm: number[] }>();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (const p of PAGES) {
          const context = await browser.newContext({ ignoreHTTPSErrors: true });
          await context.addInitScript(() => {
            document.addEventListener(
              "focusin",
              () => ((window as unknown as { __interactive?: number }).__interactive ??= performance.now()),
              { once: true },
            );
          });
          if (p.admin)
            await context.addCookies([
              {
                name: "__session",
                value: admin.cookie,
                domain: ".example.test",
                path: "/",
                httpOnly: true,
                secure: true,
                sameSite: "Lax",
              },
            ]);
          const page = await context.newPage();
          const url = `https://id.example.test${p.path}${p.path.endsWith("?id=") ? admin.personId : ""}`;
          const cold = await timeToInteractive(page, url, p.scripted);
          const warm = await timeToInteractive(page, url, p.scripted);
          await context.close();
          const t = timings.get(p.name) ?? { cold: [], warm: [] };
          // The first round warms the stack's functions; it is not counted.
          if (round > 0) {
            t.cold.push(cold);
            t.warm.push(warm);
          }
          timings.set(p.name, t);
        }
      }
    } finally {
      await browser.close();
    }

    say("## 6. The identity host's pages in a browser (`npm run bench:pages`, Debian's Chromium on the local stack)");
    say();
    say(
      "| Page | scripts | JavaScript | gzipped | + when a passkey is used, gzipped | interactive, cold (ms, median) | range | warm (ms, median) | range |",
    );
    say("|---|---|---|---|---|---|---|---|---|");
    for (const p of PAGES) {
      const w = weights.find((x) => p.path.split("?")[0] === x.page);
      const t = timings.get(p.name) as { cold: number[]; warm: number[] };
      const size =
        w === undefined
          ? ["0", "0 B", "0 B", "0 B"]
          : [
              String(w.scripts.length),
              `${(w.bytes / 1024).toFixed(1)} KB`,
              `${(w.gzipBytes / 1024).toFixed(1)} KB`,
              w.lazyScripts.length === 0 ? "–" : `${(w.lazyGzipBytes / 1024).toFixed(1)} KB`,
            ];
      say(
        `| ${p.name} | ${size.join(" | ")} | ${fmt(median(t.cold))} | ${range(t.cold)} | ${fmt(median(t.warm))} | ${range(t.warm)} |`,
      );
    }
    say();
    const signIn = weights.find((w) => w.page === "/") as { gzipBytes: number; lazyGzipBytes: number };
    const whole = signIn.gzipBytes + signIn.lazyGzipBytes;
    say(
      `**Sign-in page: ${(signIn.gzipBytes / 1024).toFixed(1)} KB of JavaScript gzipped, ${(whole / 1024).toFixed(1)} KB with the WebAuthn helpers it fetches when a passkey is used** (budget ≤ 80 KB, identity provider code included: ${whole <= BUDGET_BYTES ? "met" : "not met"}).`,
    );
    say(
      "The WebAuthn helpers (`@simplewebauthn/browser`) are a chunk of their own, fetched only by a browser that can use a passkey: at once where it offers passkeys in the email field's autofill, else on the button.",
    );
    say(
      `Interactive is when the page first puts focus on a control or its heading, after it has asked the service what it needs (the session, the bridges; for the reviewer pages, an administrator's session and the queue, the list or the person); ${ROUNDS - 1} rounds after one that warms the functions.`,
    );
    say();
    say(
      "The identity provider's client SDK for the one call the pages make (custom token to ID token), bundled and minified the same way:",
    );
    say();
    say("| Exchange | JavaScript | gzipped | × ours (the whole sign-in page) |");
    say("|---|---|---|---|");
    say(
      `| SDK, \`initializeAuth\` with in-memory persistence (\`@firebase/auth\`) | ${(minimal.bytes / 1024).toFixed(1)} KB | ${(minimal.gzipBytes / 1024).toFixed(1)} KB | ${(minimal.gzipBytes / signIn.gzipBytes).toFixed(1)}× |`,
    );
    say(
      `| SDK, \`getAuth\` as documented (persistence in IndexedDB, popup and redirect support) | ${(standard.bytes / 1024).toFixed(1)} KB | ${(standard.gzipBytes / 1024).toFixed(1)} KB | ${(standard.gzipBytes / signIn.gzipBytes).toFixed(1)}× |`,
    );
    say();
    const fits =
      minimal.gzipBytes + signIn.gzipBytes <= BUDGET_BYTES
        ? "Either SDK build would fit the budget beside the page"
        : "Neither SDK build fits the budget beside the page";
    say(
      `${fits}; the pages make that call themselves (\`accounts:signInWithCustomToken\`, one \`fetch\`), so the smallest SDK build alone would be`,
    );
    say(
      `${(minimal.gzipBytes / signIn.gzipBytes).toFixed(1)}× the whole sign-in page, and the refresh token the provider returns is dropped unread, where the SDK would keep it (in memory or in IndexedDB).`,
    );
    say();
  } finally {
    await stop();
  }
  return lines;
}

if (import.meta.main) {
  const lines = await runPagesBench();
  writeSection("pages", lines, "soak");
  console.log("\nwritten to bench/RESULTS.md");
  process.exit(0);
}
