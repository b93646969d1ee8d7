/**
 * Bridge sign-ins in a real browser: the state cookie, the provider's own page, the way back and
 * the hand-over to the identity host, as a person clicks through them; two tabs at once.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { federatedConfig } from "../src/config";
import { cryptoRandom } from "../src/random";
import * as bridge from "../src/routes/bridge";
import { signInWithCustomToken } from "./support/auth";
import { startBrowserWorld, type BrowserWorld } from "./support/browser";
import { appFor, auth, ID_URL, SERVICE_URL, testConfig, testDeps } from "./support/deps";
import { startFederatedProvider, type FederatedProvider } from "./support/federated-provider";
import { startGamingProvider, type GamingProvider } from "./support/gaming-provider";

let world: BrowserWorld;
let gaming: GamingProvider;
let federated: FederatedProvider;
let service: Server;

beforeAll(async () => {
  [gaming, federated] = await Promise.all([startGamingProvider(), startFederatedProvider()]);
  // The bridge function, at the service's own address (https://example.test) as the browser sees it.
  const config = testConfig({
    gamingEndpoint: gaming.endpoint,
    federated: federatedConfig(JSON.stringify({ search: { issuer: federated.issuer, clientId: federated.clientId, providerId: "google.com" } }), JSON.stringify({ search: federated.clientSecret }), "test-api-key"),
  });
  service = createServer(appFor(bridge, testDeps({ config })));
  await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
  world = await startBrowserWorld({ "example.test": `http://127.0.0.1:${(service.address() as AddressInfo).port}` });
});
afterAll(async () => {
  await world.close();
  service.closeAllConnections();
  await new Promise<void>((resolve) => service.close(() => resolve()));
  await Promise.all([gaming.stop(), federated.stop()]);
});

/** Where the browser ends up: the identity host, with a custom token for the account that signed in. */
async function landedAs(page: Page): Promise<string> {
  await page.waitForURL((url) => url.origin === ID_URL);
  const url = new URL(page.url());
  expect(url.searchParams.get("redirect")).toBe(`${ID_URL}/account`);
  const idToken = await signInWithCustomToken(url.searchParams.get("customToken") as string);
  return (await auth().verifyIdToken(idToken)).uid;
}

async function stateCookies(page: Page): Promise<string[]> {
  return (await page.context().cookies(`${SERVICE_URL}/auth/bridge/gaming/callback`)).filter((c) => c.name === "__session").map((c) => c.value);
}

describe("bridges in a browser", () => {
  it("signs in through the gaming provider's page, and the state cookie is gone afterwards", async () => {
    const page = await (await world.context()).newPage();
    await page.goto(`${SERVICE_URL}/auth/bridge/gaming/start`);
    expect(page.url()).toContain(gaming.endpoint);
    expect(await stateCookies(page)).toEqual([expect.stringMatching(/^bridge\./)]);
    await page.fill("input[name=account]", "76561190000424242");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    expect(await landedAs(page)).toBe("gaming:76561190000424242");
    expect(await stateCookies(page)).toEqual([]);
  });

  it("finishes sign-ins started in two tabs of one browser, in either order", async () => {
    const context = await world.context();
    const [first, second] = [await context.newPage(), await context.newPage()];
    await first.goto(`${SERVICE_URL}/auth/bridge/gaming/start`);
    await second.goto(`${SERVICE_URL}/auth/bridge/gaming/start`);
    expect((await stateCookies(first))[0]?.split(".")).toHaveLength(3);
    await second.fill("input[name=account]", "76561190000000222");
    await second.getByRole("button", { name: "Sign in", exact: true }).click();
    expect(await landedAs(second)).toBe("gaming:76561190000000222");
    await first.fill("input[name=account]", "76561190000000111");
    await first.getByRole("button", { name: "Sign in", exact: true }).click();
    expect(await landedAs(first)).toBe("gaming:76561190000000111");
  });

  it("signs in through the federated bridge and the OpenID Connect provider's page", async () => {
    const page = await (await world.context()).newPage();
    await page.goto(`${SERVICE_URL}/auth/bridge/federated/start?idp=search`);
    expect(page.url()).toContain(`${federated.issuer}/authorize`);
    const sub = String(cryptoRandom.int(1, 2_000_000_000));
    await page.fill("input[name=account]", sub);
    await page.fill("input[name=email]", `browser-${sub}@example.test`);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    const uid = await landedAs(page);
    expect((await auth().getUser(uid)).providerData.map((p) => [p.providerId, p.uid])).toContainEqual(["google.com", sub]);
  });

  it("shows the person a page when they cancel at the provider", async () => {
    const page = await (await world.context()).newPage();
    await page.goto(`${SERVICE_URL}/auth/bridge/gaming/start`);
    const [answer] = await Promise.all([page.waitForResponse((r) => r.url().startsWith(`${SERVICE_URL}/auth/bridge/gaming/callback`)), page.getByRole("button", { name: "Cancel", exact: true }).click()]);
    expect(answer.status()).toBe(401);
    expect(await page.textContent("body")).toMatch(/did not confirm/);
  });
});
