/**
 * The bridges' state cookie in a real browser, through the stack: set for /auth/bridge on the way
 * to the provider, sent back to the callback on the identity host, gone afterwards; and two
 * sign-ins started in two tabs of one browser, finished in either order.
 *
 * @stack-project a browser reaches the stack's functions
 */
import type { Page } from "playwright-core";
import * as people from "../../src/store/people";
import { ID_HOST, useBrowserWorld } from "../support/browser";
import { firestore } from "../support/deps";
import { cryptoRandom } from "../../src/random";

const db = firestore();
const world = useBrowserWorld();

async function stateCookies(page: Page): Promise<string[]> {
  return (await page.context().cookies(`${ID_HOST}/auth/bridge/gaming/callback`))
    .filter((c) => c.name === "__session" && c.value.startsWith("bridge."))
    .map((c) => c.value);
}

const account = () => String(76561190000000000n + BigInt(cryptoRandom.int(0, 1_000_000_000)));

/** At the provider's page: signs in as `who` and waits for the identity host's answer. */
async function signInAs(page: Page, who: string): Promise<void> {
  await page.fill("input[name=account]", who);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("heading", { level: 1, name: "Your account is waiting for approval" }).waitFor();
}

describe("bridges in a browser", () => {
  it("keeps the state in a cookie for /auth/bridge while the person is at the provider, and drops it on the way back", async () => {
    const page = await (await world().context()).newPage();
    await page.goto(`${ID_HOST}/auth/bridge/gaming/start`);
    expect(page.url()).toMatch(/\/openid\/login\?/);
    expect(await stateCookies(page)).toEqual([expect.stringMatching(/^bridge\./)]);
    const who = account();
    await signInAs(page, who);
    expect(await stateCookies(page)).toEqual([]);
    expect(await people.findByUid(db, `gaming:${who}`)).toMatchObject({ status: "pending" });
  });

  it("finishes sign-ins started in two tabs of one browser, in either order", async () => {
    const context = await world().context();
    const [first, second] = [await context.newPage(), await context.newPage()];
    await first.goto(`${ID_HOST}/auth/bridge/gaming/start`);
    await second.goto(`${ID_HOST}/auth/bridge/gaming/start`);
    expect((await stateCookies(first))[0]?.slice("bridge.".length).split(".")).toHaveLength(2);
    const [a, b] = [account(), account()];
    await signInAs(second, b);
    await signInAs(first, a);
    expect(await people.findByUid(db, `gaming:${a}`)).not.toBeNull();
    expect(await people.findByUid(db, `gaming:${b}`)).not.toBeNull();
  });
});
