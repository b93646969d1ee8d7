/**
 * Security notices as a person meets them: a sign-in from a second browser is mailed (to the
 * stack's dev inbox, sent by the stack's own `mail` task), and the mail's one link leads to the
 * account page's list of sessions, where they sign that browser out; and the account page's
 * choice of new-browser notices. With a pointer, the keyboard alone and on a phone's screen,
 * every page checked by axe-core.
 *
 * @stack-project a browser reaches the stack's functions
 */
import type { BrowserContext, Page } from "playwright-core";
import * as people from "../../src/store/people";
import { signInWithCustomToken } from "../support/auth";
import { ID_HOST, openSessionIn, settledSignIns, SETTLING_JOURNEY_MS, useBrowserWorld } from "../support/browser";
import { auth, firestore } from "../support/deps";
import { waitForSubject } from "../support/inbox";
import { accountWithPerson } from "../support/people";
import { MODES, useJourneys } from "../support/visitor";

const world = useBrowserWorld();
const db = firestore();

/** What the second browser says it is: another device than the journey's. */
const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const idToken = async (uid: string) =>
  signInWithCustomToken(await auth().createCustomToken(uid, { sign_in_methods: ["otp"] }));

/** Once the person's first browser is remembered (by the stack's mail task), a second one is new. */
async function browsersKnown(personId: string, count: number): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 250) {
    const person = await people.findById(db, personId);
    if (Object.keys(person?.knownBrowsers ?? {}).length >= count) return;
    await pause(250);
  }
  throw new Error(`the person's browsers were not remembered`);
}

describe.each(MODES)("security notices, %s", (mode) => {
  const t = useJourneys(world, mode);

  it(
    "mails a sign-in from a second browser; the mail's link leads to the sessions, where that browser is signed out",
    async () => {
      t.name = "notice-new-browser";
      const { account, person } = await accountWithPerson({ name: "Nora Notices" });
      await openSessionIn(t.page, await idToken(account.uid));
      await browsersKnown(person.id, 1);

      let other: { context: BrowserContext; page: Page } | undefined;
      try {
        const context = await world().browser.newContext({ ignoreHTTPSErrors: true, userAgent: FIREFOX_WINDOWS });
        other = { context, page: await context.newPage() };
        await openSessionIn(other.page, await idToken(account.uid));
        const mail = await waitForSubject(account.email, "New sign-in to your account");
        expect(mail.text).toContain("From: Firefox on Windows");
        const links = [...mail.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1] as string);
        expect(links).toEqual([`${ID_HOST}/account`]);

        await t.page.goto(links[0] as string);
        await t.visitor.reaches("Your account");
        const section = t.page.getByRole("region", { name: "Where you're signed in" });
        const end = section.getByRole("button", { name: /^Sign out Firefox on Windows/ });
        await end.first().waitFor();
        await t.visitor.audit();
        await t.visitor.press((await end.first().getAttribute("aria-label")) as string);
        await t.page.getByRole("status").filter({ hasText: "Signed out Firefox on Windows." }).waitFor();
        expect(await settledSignIns([other.page], 1)).toEqual([false]);
        await t.visitor.screenshot("notice-browser-signed-out");
      } finally {
        await other?.context.close();
      }
    },
    SETTLING_JOURNEY_MS,
  );

  it("lets a person turn off the mails about new browsers on the account page", async () => {
    t.name = "notice-choice";
    const { account, person } = await accountWithPerson({ name: "Nora Notices" });
    await openSessionIn(t.page, await idToken(account.uid));
    await t.page.goto(`${ID_HOST}/account`);
    await t.visitor.reaches("Your account");
    const box = t.page.getByRole("checkbox", { name: "Email me when someone signs in from a browser not seen before" });
    await box.and(t.page.locator(":enabled")).waitFor();
    expect(await box.isChecked()).toBe(true);
    await t.visitor.check("Email me when someone signs in from a browser not seen before", false);
    await t.page.getByRole("status").filter({ hasText: "You won't be emailed about new browsers." }).waitFor();
    await t.visitor.audit();
    expect((await people.findById(db, person.id))?.newBrowserNotices).toBe(false);
    // Turning them off is told by mail, so a stolen session that does it is heard of.
    expect((await waitForSubject(account.email, "Your access changed")).text).toContain(
      "Notices of sign-ins from new browsers were turned off",
    );
    await t.page.reload();
    await t.visitor.reaches("Your account");
    await box.and(t.page.locator(":enabled")).waitFor();
    expect(await box.isChecked()).toBe(false);
  });
});
