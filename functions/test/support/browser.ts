/**
 * A real browser (Debian's Chromium through playwright-core) on the sites as people meet them:
 * https on the parent domain's hosts, through the stack's own https front (tools/stack/front.ts):
 * `example.test` is the service's Hosting site, `id.example.test` the identity host's, an app
 * host a small stand-in app, and any other host (a foreign site) a blank page of its own, from
 * which a test's scripts can run. Chromium's resolver sends each of those names to the front.
 */
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Hosts outside the parent domain, for a foreign site. */
export const FOREIGN_HOST = "elsewhere.test";
export const SERVICE = "https://example.test";
export const ID_HOST = "https://id.example.test";

export interface BrowserWorld {
  browser: Browser;
  /** A fresh profile: its own cookies. A phone's screen when asked. */
  context(options?: { phone?: boolean }): Promise<BrowserContext>;
  close(): Promise<void>;
}

export async function startBrowserWorld(): Promise<BrowserWorld> {
  const port = Number(process.env.STACK_HTTPS_PORT);
  const rules = ["example.test", "*.example.test", FOREIGN_HOST]
    .map((h) => `MAP ${h}:443 127.0.0.1:${port}`)
    .join(", ");
  // Without the background-networking flags Chromium keeps dialling out, and this machine refuses.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
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
  return {
    browser,
    context: (options = {}) =>
      browser.newContext({
        ignoreHTTPSErrors: true,
        ...(options.phone
          ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true }
          : { viewport: { width: 1280, height: 800 } }),
      }),
    close: () => browser.close(),
  };
}

/**
 * Opens a session in this page's browser for `uid`, as the identity host's own pages do at the end
 * of a sign-in: an ID token for the account, posted to POST /auth/verify from the identity host.
 * For journeys that need someone already signed in, without walking through a sign-in first.
 */
export async function openSessionIn(page: Page, idToken: string, project = "account"): Promise<void> {
  // Once the page's own requests are answered: one more beside them would start the emulator's
  // function another process of its own (one per request in flight), a cold one, on a loaded machine.
  if (!page.url().startsWith(ID_HOST)) await page.goto(`${ID_HOST}/account`, { waitUntil: "networkidle" });
  const status = await page.evaluate(
    async ({ token, project }) =>
      (
        await fetch("/auth/verify", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ idToken: token, project }),
        })
      ).status,
    { token: idToken, project },
  );
  if (status !== 200) throw new Error(`POST /auth/verify answered ${status}`);
}

/**
 * The page's heading once its script has named the step. The HTML a page is served with holds its
 * title as a placeholder (`data-placeholder`) until the script has asked who is signed in, so
 * "Your account" there says nothing of the session yet.
 */
export function scriptHeading(page: Page, name?: string | RegExp): Locator {
  return page.getByRole("heading", { level: 1, name }).and(page.locator(":not([data-placeholder])"));
}

/** Whether that browser is still signed in, as its account page finds at its next request. */
export async function stillSignedIn(page: Page): Promise<boolean> {
  await page.goto(`${ID_HOST}/account`);
  const heading = scriptHeading(page, /Your account|You're not signed in/);
  await heading.waitFor();
  return (await heading.textContent()) === "Your account";
}

/** How long another instance may still let an ended session in: the person cache's 10 s, and a margin. */
const SETTLE_MS = 12_000;

/**
 * A test budget for a journey that waits for `settledSignIns`: the settle bound by wall clock, and
 * the journey's own steps on a loaded machine (four workers and their browsers on two cores).
 */
export const SETTLING_JOURNEY_MS = 90_000;

/**
 * Which of `pages` are still signed in, once those ended are refused: at once on the instance that
 * ended them, within the person cache's 10 seconds on any other (the emulator may start several).
 * The bound is wall-clock time since the first look, whatever the page loads themselves take.
 */
export async function settledSignIns(pages: Array<Page>, ended: number): Promise<boolean[]> {
  // Elapsed time on the machine's monotonic clock: the stack's person cache runs on real time.
  const started = performance.now();
  for (;;) {
    const still = await Promise.all(pages.map(stillSignedIn));
    if (still.filter((s) => !s).length >= ended || performance.now() - started >= SETTLE_MS) return still;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The browser of this test file: started before its tests, closed after them. */
export function useBrowserWorld(): () => BrowserWorld {
  let world: BrowserWorld | undefined;
  beforeAll(async () => {
    world = await startBrowserWorld();
  });
  afterAll(async () => {
    await world?.close();
  });
  return () => world as BrowserWorld;
}
