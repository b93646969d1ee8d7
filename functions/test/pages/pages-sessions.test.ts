/**
 * Where a person is signed in, on the account page: every browser signed in as them (this one
 * marked), signing out one of the others, and every other at once. The other browsers are real
 * browser profiles, each signed in on its own; each is refused at its next request. With a
 * pointer, the keyboard alone and on a phone's screen, every page checked by axe-core.
 *
 * @stack-project a browser reaches the stack's functions
 */
import type { BrowserContext, Page } from "playwright-core";
import { signInWithCustomToken } from "../support/auth";
import {
  ID_HOST,
  openSessionIn,
  settledSignIns,
  SETTLING_JOURNEY_MS,
  stillSignedIn,
  useBrowserWorld,
} from "../support/browser";
import { auth } from "../support/deps";
import { accountWithPerson } from "../support/people";
import { MODES, useJourneys } from "../support/visitor";

const world = useBrowserWorld();

/** What the other browsers say they are: another device than the journey's. */
const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0";

/** A profile of its own, signed in as `uid`. */
async function anotherBrowser(uid: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await world().browser.newContext({ ignoreHTTPSErrors: true, userAgent: FIREFOX_WINDOWS });
  const page = await context.newPage();
  await openSessionIn(
    page,
    await signInWithCustomToken(await auth().createCustomToken(uid, { sign_in_methods: ["otp"] })),
  );
  return { context, page };
}

describe.each(MODES)("where a person is signed in, %s", (mode) => {
  const t = useJourneys(world, mode);

  async function open(uid: string): Promise<void> {
    await openSessionIn(
      t.page,
      await signInWithCustomToken(await auth().createCustomToken(uid, { sign_in_methods: ["otp"] })),
    );
    await t.page.goto(`${ID_HOST}/account`);
    await t.visitor.reaches("Your account");
  }

  it(
    "lists this browser and the others, and signs one of the others out: it is refused at its next request",
    async () => {
      t.name = "sessions-one-ended";
      const { account } = await accountWithPerson({ name: "Sam Sessions" });
      const laptop = await anotherBrowser(account.uid);
      const desktop = await anotherBrowser(account.uid);
      try {
        await open(account.uid);
        const section = t.page.getByRole("region", { name: "Where you're signed in" });
        await section.getByText("This browser").waitFor();
        await section
          .getByText(/signed in .* with a code by email/i)
          .first()
          .waitFor();
        const ends = section.getByRole("button", { name: /^Sign out Firefox on Windows/ });
        await ends.first().waitFor();
        expect(await ends.count()).toBe(2);
        await t.visitor.press((await ends.first().getAttribute("aria-label")) as string);
        await t.page.getByRole("status").filter({ hasText: "Signed out Firefox on Windows." }).waitFor();
        expect(await section.getByRole("button", { name: /^Sign out Firefox on Windows/ }).count()).toBe(1);
        const still = await settledSignIns([laptop.page, desktop.page], 1);
        expect(still.sort()).toEqual([false, true]);
        await t.page.reload();
        await t.visitor.reaches("Your account");
      } finally {
        await laptop.context.close();
        await desktop.context.close();
      }
    },
    SETTLING_JOURNEY_MS,
  );

  it(
    "signs out everywhere else at once, and stays signed in here",
    async () => {
      t.name = "sessions-everywhere-else";
      const { account } = await accountWithPerson({ name: "Sam Sessions" });
      const others = [await anotherBrowser(account.uid), await anotherBrowser(account.uid)];
      try {
        await open(account.uid);
        await t.visitor.press("Sign out everywhere else");
        await t.page.getByRole("status").filter({ hasText: "Signed out 2 other browsers and devices." }).waitFor();
        await t.visitor.audit();
        expect(await t.page.getByRole("button", { name: "Sign out everywhere else" }).isVisible()).toBe(false);
        expect(
          await settledSignIns(
            others.map((o) => o.page),
            2,
          ),
        ).toEqual([false, false]);
        expect(await stillSignedIn(t.page)).toBe(true);
        await t.visitor.reaches("Your account");
      } finally {
        for (const o of others) await o.context.close();
      }
    },
    SETTLING_JOURNEY_MS,
  );
});
