/**
 * A person changes their address on the account page, in the browser: adds a new one with the
 * code mailed to it (a wrong code first, which is refused), makes it the address they are mailed
 * at, and removes the old one, which is told so, and which takes this browser's sign-in with it;
 * and unlinks a Google account from "Other ways you sign in". With the keyboard alone and on a
 * phone's screen, every page checked by axe-core.
 *
 * @stack-project a browser reaches the stack's functions
 */
import { ID_HOST, openSessionIn, useBrowserWorld } from "../support/browser";
import request from "supertest";
import { signedInWithGoogle, signedUp, signInWithCustomToken } from "../support/auth";
import { appFor, auth, firestore, testDeps, unique } from "../support/deps";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import { codeIn, settledCount, waitForSubject } from "../support/inbox";
import { accountWithPerson, personFor } from "../support/people";
import { otherThan } from "../support/email-codes";
import { MODES, useJourneys } from "../support/visitor";
import * as people from "../../src/store/people";

const world = useBrowserWorld();
const db = firestore();

describe.each(MODES)("a person's addresses, %s", (mode) => {
  const t = useJourneys(world, mode);

  it("adds an address with the code mailed to it, makes it the one mailed, and removes the old one", async () => {
    t.name = "addresses-change";
    const { account, person } = await accountWithPerson({ name: "Ada Address", projects: ["startpage"] });
    const old = account.email;
    const added = `${unique("moved")}@example.test`;
    const idToken = await signInWithCustomToken(
      await auth().createCustomToken(account.uid, { sign_in_methods: ["otp"] }),
    );
    await openSessionIn(t.page, idToken);
    await t.page.goto(`${ID_HOST}/account`);
    await t.visitor.reaches("Your account");
    await t.page.getByRole("heading", { name: "Email addresses" }).waitFor();
    await t.page.getByText("We email this one").waitFor();

    await t.visitor.fill("New email address", added);
    await t.visitor.press("Send a code");
    await t.page.getByText(`We've sent a code to ${added}.`).waitFor();
    const code = codeIn(await waitForSubject(added, "Confirm your new email address"));
    expect(await settledCount(old)).toBe(0);
    await t.visitor.fill("Code from the email", otherThan(code));
    await t.visitor.press("Add this address");
    await t.page.getByText("That code isn't right. Check the email and try again.").waitFor();
    await t.visitor.audit();
    await t.visitor.screenshot("addresses-wrong-code");
    await t.visitor.fill("Code from the email", code);
    await t.visitor.press("Add this address");
    await t.page
      .getByRole("status")
      .filter({ hasText: `Added ${added}.` })
      .waitFor();
    expect((await people.findById(db, person.id))?.emails).toEqual([old, added]);
    await t.visitor.audit();
    await t.visitor.screenshot("addresses-added");

    const escaped = added.replace(/[.+]/g, "\\$&");
    await t.visitor.press(new RegExp(`^Make this the address we mail\\W*${escaped}$`));
    await t.page
      .getByRole("status")
      .filter({ hasText: `We'll email ${added} from now on.` })
      .waitFor();
    expect((await people.findById(db, person.id))?.emails).toEqual([added, old]);
    // The account's own summary names the address mail goes to.
    await t.page.getByRole("definition").filter({ hasText: added }).first().waitFor();

    // This browser signed in with the old address's own account: it goes with the address.
    await t.visitor.press(`Remove ${old}`);
    await t.visitor.reaches("You're signed out here");
    await t.page.getByText(`Removed ${old}. This browser was signed in through it, so it's signed out too.`).waitFor();
    expect(await people.findById(db, person.id)).toMatchObject({
      id: person.id,
      uids: [],
      emails: [added],
      projects: ["startpage"],
    });
    // The old address is told it was removed.
    await waitForSubject(old, "This address was removed from an account");
    await t.visitor.audit();
    await t.visitor.screenshot("addresses-removed-signed-out");
    await t.page.getByRole("link", { name: "Sign in again" }).waitFor();
  }, 120_000);

  it("lists the other ways they sign in, and unlinks one: it signs in as them no more", async () => {
    t.name = "accounts-unlink";
    const account = await signedUp();
    const work = `${unique("work")}@example.test`;
    const person = await personFor(account, {
      name: "Ada Accounts",
      emails: [account.email, work],
      projects: ["startpage"],
    });
    // A Google account of the work address, linked by its first sign-in.
    const google = await signedInWithGoogle(work);
    const sessions = appFor(sessionRoutes, testDeps());
    const linked = await request(sessions).post("/auth/verify").send({ idToken: google.idToken, project: "startpage" });
    expect(linked.body.personId).toBe(person.id);

    const idToken = await signInWithCustomToken(
      await auth().createCustomToken(account.uid, { sign_in_methods: ["otp"] }),
    );
    await openSessionIn(t.page, idToken);
    await t.page.goto(`${ID_HOST}/account`);
    await t.visitor.reaches("Your account");
    await t.page.getByRole("heading", { name: "Other ways you sign in" }).waitFor();
    await t.page
      .getByRole("paragraph")
      .filter({ hasText: `Google (${work})` })
      .waitFor();
    await t.page.getByText("This browser signed in with it").waitFor();
    await t.visitor.audit();
    await t.visitor.screenshot("accounts-listed");

    await t.visitor.press(new RegExp(`^Unlink\\W*Google \\(${work.replace(/[.+]/g, "\\$&")}\\)$`));
    await t.page
      .getByRole("status")
      .filter({ hasText: `Unlinked Google (${work}). It no longer signs in as you.` })
      .waitFor();
    expect((await people.findById(db, person.id))?.uids).toEqual([account.uid]);
    await t.visitor.audit();
    await t.visitor.screenshot("accounts-unlinked");
  }, 120_000);
});
