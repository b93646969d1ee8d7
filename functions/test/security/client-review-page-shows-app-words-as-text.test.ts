/**
 * An app that registered itself writes its own name, addresses and home page. On the reviewers'
 * page they are text: a name that is markup shows as the characters it is, makes no element and
 * runs nothing, and no address it gave becomes a link.
 *
 * @stack-project a browser reaches the stack's functions
 */
import { signInWithCustomToken } from "../support/auth";
import { ID_HOST, openSessionIn, useBrowserWorld } from "../support/browser";
import { auth, firestore, unique } from "../support/deps";
import { accountWithPerson } from "../support/people";
import { selfRegisteredClient } from "../support/consent";
import { systemClock } from "../../src/clock";

const world = useBrowserWorld();
const HOSTILE = "<img src=x onerror=alert(1)>";

describe("an app's own words on the reviewers' page", () => {
  it("are shown as text: its markup makes no element, runs nothing, and links nowhere", async () => {
    const { account } = await accountWithPerson({ role: "admin", projects: ["*"], name: "Rita Reviewer" });
    const clientId = `dyn_${unique("c")}`;
    // The oldest waiting app, so it is on the first page whatever else waits.
    await selfRegisteredClient({ store: firestore(), clock: systemClock }, clientId, {
      name: HOSTILE,
      review: "waiting",
      redirectUris: ["https://x.example.test/<b>cb</b>"],
      clientUri: "javascript:alert(2)",
      createdAt: new Date(0),
    });
    const page = await (await world().context()).newPage();
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await openSessionIn(page, await signInWithCustomToken(await auth().createCustomToken(account.uid)));
    await page.goto(`${ID_HOST}/review`);
    const item = page.locator("section[aria-labelledby=apps] li.app", { hasText: HOSTILE });
    await item.waitFor();
    expect(await item.locator("h3.who").innerText()).toBe(`${HOSTILE}Unverified`);
    expect(await item.locator("img, b, a").count()).toBe(0);
    expect(await item.innerText()).toContain("https://x.example.test/<b>cb</b>");
    expect(await item.innerText()).toContain("javascript:alert(2)");
    await page.getByRole("button", { name: `Approve ${HOSTILE}` }).waitFor();
    expect(dialogs).toEqual([]);
    await page.context().close();
  });
});
