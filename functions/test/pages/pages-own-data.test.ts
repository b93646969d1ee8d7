/**
 * A person's own data on the account page, in the browser: changing their name, downloading a
 * copy of everything kept about them (their history in it), and deleting their account. After a
 * deletion their other browser is signed out, their address can ask for access afresh as a
 * stranger, and an administrator's search finds nobody. With a pointer, the keyboard alone and
 * on a phone's screen, every page checked by axe-core.
 *
 * @stack-project a browser reaches the stack's functions
 */
import { readFileSync } from "node:fs";
import request from "supertest";
import type { BrowserContext, Page } from "playwright-core";
import * as otpRoutes from "../../src/routes/otp/otp";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import * as people from "../../src/store/people";
import { adminCookie } from "../support/admin";
import { signInWithCustomToken } from "../support/auth";
import { ID_HOST, openSessionIn, settledSignIns, SETTLING_JOURNEY_MS, useBrowserWorld } from "../support/browser";
import { appFor, auth, firestore, testDeps, unique } from "../support/deps";
import { codeIn, waitForSubject } from "../support/inbox";
import { accountWithPerson } from "../support/people";
import { MODES, useJourneys } from "../support/visitor";

const world = useBrowserWorld();
const deps = testDeps();
const db = firestore();

const tokenFor = async (uid: string) =>
  signInWithCustomToken(await auth().createCustomToken(uid, { sign_in_methods: ["otp"] }));

async function anotherBrowser(uid: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await world().browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await openSessionIn(page, await tokenFor(uid));
  return { context, page };
}

describe.each(MODES)("a person's own data, %s", (mode) => {
  const t = useJourneys(world, mode);

  async function open(uid: string): Promise<void> {
    await openSessionIn(t.page, await tokenFor(uid));
    await t.page.goto(`${ID_HOST}/account`);
    await t.visitor.reaches("Your account");
  }

  it("changes their name, then downloads their data and finds the change in its history", async () => {
    t.name = "own-data-download";
    const { account, person } = await accountWithPerson({ name: "Dana Data" });
    await open(account.uid);
    await t.visitor.fill("Name (optional)", "Dana Q. Data");
    await t.visitor.press("Save name");
    await t.page.getByRole("status").filter({ hasText: "Saved: Dana Q. Data." }).waitFor();
    expect((await people.findById(db, person.id))?.name).toBe("Dana Q. Data");

    const downloading = t.page.waitForEvent("download");
    await t.visitor.press("Download my data");
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^account-data-\d{4}-\d{2}-\d{2}\.json$/);
    const data = JSON.parse(readFileSync(await download.path(), "utf8"));
    expect(data.person).toMatchObject({ personId: person.id, name: "Dana Q. Data", emails: [account.email] });
    expect(data.history).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ event: "changed", changes: { name: { from: "Dana Data", to: "Dana Q. Data" } } }),
        expect.objectContaining({ event: "exported", via: "account" }),
      ]),
    );
    expect(data.sessions.length).toBeGreaterThan(0);
    await t.page
      .getByRole("status")
      .filter({ hasText: /^Downloaded account-data-/ })
      .waitFor();
    await t.visitor.audit();
  });

  it(
    "deletes their account after saying what goes: signed out everywhere, their address a stranger's again, found by nobody",
    async () => {
      t.name = "own-data-delete";
      const name = `Del ${unique("Name")}`;
      const { account, person } = await accountWithPerson({ name });
      const laptop = await anotherBrowser(account.uid);
      try {
        await open(account.uid);
        // Asked, then kept: nothing happens.
        await t.visitor.press("Delete my account…");
        await t.page.getByRole("heading", { name: "Delete your account?" }).waitFor();
        await t.page.getByText("This can't be undone.").waitFor();
        await t.visitor.audit();
        await t.visitor.screenshot("own-data-delete-asked");
        await t.visitor.press("Keep my account");
        await t.page.getByRole("status").filter({ hasText: "Your account is kept." }).waitFor();
        expect(await people.findById(db, person.id)).not.toBeNull();

        await t.visitor.press("Delete my account…");
        await t.visitor.press("Delete my account");
        await t.visitor.reaches("Your account is deleted");
        expect(await people.findById(db, person.id)).toBeNull();
        expect(await settledSignIns([laptop.page], 1)).toEqual([false]);
        await t.page.goto(`${ID_HOST}/account`);
        await t.visitor.reaches("You're not signed in");

        // Their address asks for access afresh: a stranger's request, a new pending person.
        const otp = appFor(otpRoutes, deps);
        const sent = await request(otp)
          .post("/auth/otp/send")
          .send({ email: account.email, purpose: "request-access" });
        expect(sent.status).toBe(200);
        // The code's mail, not the notice of the other browser's sign-in (mailed to the same address).
        const code = codeIn(await waitForSubject(account.email, "Confirm your email address"));
        const verified = await request(otp)
          .post("/auth/otp/verify")
          .send({ email: account.email, otp: code, purpose: "request-access" });
        expect(verified.status).toBe(200);
        const again = await people.findByEmail(db, account.email);
        expect(again).toMatchObject({ status: "pending" });
        expect(again?.id).not.toBe(person.id);

        // An administrator's search finds nobody by their old name.
        const admin = await adminCookie(appFor(sessionRoutes, deps));
        const found = await request(appFor(peopleRoutes, deps))
          .get("/auth/people")
          .query({ q: name })
          .set("Cookie", admin);
        expect(found.status).toBe(200);
        expect(found.body.people).toEqual([]);
      } finally {
        await laptop.context.close();
      }
    },
    SETTLING_JOURNEY_MS,
  );
});
