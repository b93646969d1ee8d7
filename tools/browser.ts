/**
 * `npm run browser`: opens Chromium on the running local stack as people meet the deployed
 * service, https on the real host names. Its resolver sends every host of the parent domain to
 * the stack's https front, and it is told to trust exactly the front's certificate (by the hash
 * of its key), so nothing on the machine changes: no /etc/hosts entry, no trust store. The
 * profile is kept in .stack/browser-profile, so a session survives a restart of the browser.
 *
 * Options: CHROMIUM_PATH (default /usr/bin/chromium, else chromium or google-chrome on PATH),
 * HTTPS_PORT (the front's port, as for npm start), and a first argument for the page to open.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { profile } from "./stack/ports.ts";
import { portAnswers } from "./stack/processes.ts";
import { localTls } from "./stack/tls.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PARENT_DOMAIN = "example.test";

function chromium(): string | null {
  const candidates = [
    process.env.CHROMIUM_PATH,
    "/usr/bin/chromium",
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
  ];
  for (const c of candidates) {
    if (c === undefined || c === "") continue;
    if (c.startsWith("/") ? existsSync(c) : spawnSync("which", [c]).status === 0) return c;
  }
  return null;
}

const p = profile("dev");
if (!(await portAnswers(p.https))) {
  console.error(`Nothing answers on 127.0.0.1:${p.https}: start the stack first (npm start), then run this again.`);
  process.exit(1);
}
const browser = chromium();
if (browser === null) {
  console.error("No Chromium or Chrome found: set CHROMIUM_PATH, or install Debian's chromium package.");
  process.exit(1);
}
const tls = localTls(join(root, ".stack", "tls"), [PARENT_DOMAIN, `*.${PARENT_DOMAIN}`, "elsewhere.test"]);
const rules = [PARENT_DOMAIN, `*.${PARENT_DOMAIN}`].map((h) => `MAP ${h}:443 127.0.0.1:${p.https}`).join(", ");
const page = process.argv[2] ?? `https://id.${PARENT_DOMAIN}/`;
const args = [
  `--user-data-dir=${join(root, ".stack", "browser-profile")}`,
  `--host-resolver-rules=${rules}`,
  `--ignore-certificate-errors-spki-list=${tls.spki}`,
  "--no-first-run",
  "--no-default-browser-check",
  page,
];
spawn(browser, args, { detached: true, stdio: "ignore" }).unref();
console.log(
  `Opened ${page} in ${browser}, every *.${PARENT_DOMAIN} host sent to the stack's https front (127.0.0.1:${p.https}).`,
);
