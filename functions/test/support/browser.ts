/**
 * A real browser (Debian's Chromium through playwright-core) on the sites as people meet them:
 * https on the parent domain's hosts, through the stack's own https front (tools/stack/front.ts):
 * `example.test` is the service's Hosting site, `id.example.test` the identity host's, an app
 * host a small stand-in app, and any other host (a foreign site) a blank page of its own, from
 * which a test's scripts can run. Chromium's resolver sends each of those names to the front.
 */
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

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
  if (!page.url().startsWith(ID_HOST)) await page.goto(`${ID_HOST}/account`);
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

/** Whether that browser is still signed in, as its account page finds at its next request. */
export async function stillSignedIn(page: Page): Promise<boolean> {
  await page.goto(`${ID_HOST}/account`);
  const heading = page.getByRole("heading", { level: 1 });
  await heading.filter({ hasText: /Your account|You're not signed in/ }).waitFor();
  return (await heading.textContent()) === "Your account";
}

/**
 * Which of `pages` are still signed in, once those ended are refused: at once on the instance that
 * ended them, within the person cache's 10 seconds on any other (the emulator may start several).
 */
export async function settledSignIns(pages: Array<Page>, ended: number): Promise<boolean[]> {
  for (let waited = 0; ; waited += 1000) {
    const still = await Promise.all(pages.map(stillSignedIn));
    if (still.filter((s) => !s).length >= ended || waited >= 15_000) return still;
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
