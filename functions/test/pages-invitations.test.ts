/**
 * Inviting people, in a real browser over https on the real host names: an administrator invites
 * a person on /invite; opening the mail's link (as a scanner would, GET and HEAD) changes nothing;
 * the person opens it, signs in by code and reaches their account approved, never queued, and
 * moves their account to a new address by the code mailed to it. A file
 * checked row by row, then invited; an invitation sent again and revoked. With the keyboard alone
 * and on a phone's screen, every page checked by axe-core.
 *
 * @stack-project a browser reaches the stack's functions, whose database this test reads
 */
import type { Page } from "playwright-core";
import * as people from "../src/store/people";
import * as invitations from "../src/store/invitations";
import { signInWithCustomToken } from "./support/auth";
import { ID_HOST, openSessionIn, useBrowserWorld } from "./support/browser";
import { auth, firestore, unique } from "./support/deps";
import { codeIn, hasCode, mailAfter, type Mail } from "./support/inbox";
import { accountWithPerson } from "./support/people";
import { MODES, secondVisitor, sessionCookie, useJourneys } from "./support/visitor";

const db = firestore();
const world = useBrowserWorld();
const stackId = () => process.env.STACK_ID_URL as string;

const isInvitation = (m: Mail) => m.subject.startsWith("You're invited");

describe.each(MODES)("inviting people, %s", (mode) => {
  const t = useJourneys(world, mode);
  const said = (page: Page, words: string | RegExp) => page.getByRole("status").filter({ hasText: words }).waitFor();

  async function asAdministrator(name: string): Promise<void> {
    const { account } = await accountWithPerson({ role: "admin", projects: ["*"], name });
    await openSessionIn(t.page, await signInWithCustomToken(await auth().createCustomToken(account.uid)));
  }

  it("invites a person on /invite, whose mail's link leads them to sign in and to their account, approved", async () => {
    t.name = "invite-one";
    await asAdministrator("Ivy Inviter");
    const email = `${unique("invitee")}@example.test`;
    const name = `Ines ${unique("Invitee")}`;
    await t.page.goto(`${ID_HOST}/people`);
    await t.visitor.reaches("People");
    await t.visitor.press("Invite people");
    await t.visitor.reaches("Invite people");
    await t.visitor.fill("Email address", email);
    await t.visitor.fill(/^Name/, name);
    await t.visitor.fill(/^Projects/, "startpage, calendar");
    await t.visitor.fill(/^A note to them/, "See you on Monday.");
    await t.visitor.press("Invite");
    await said(t.page, `Invited ${email}.`);
    const listed = t.page.locator("li.invitation", { hasText: email });
    await listed.waitFor();
    expect(await listed.innerText()).toContain("Member · startpage, calendar");
    await t.visitor.screenshot("invite-one");

    const mail = await mailAfter(email, 0, isInvitation);
    expect(mail.text).toContain("See you on Monday.");
    const link = /Sign in: (\S+)/.exec(mail.text)?.[1] as string;
    expect(link).toBe("https://id.example.test/");
    // A scanner opens every link, by GET and by HEAD: the page answers, and nothing changes.
    for (const method of ["GET", "HEAD"]) expect((await fetch(`${stackId()}/`, { method })).status).toBe(200);
    expect(await people.findByEmail(db, email)).toBeNull();
    expect(await invitations.findByAddress(db, email)).toMatchObject({ sends: 1, projects: ["startpage", "calendar"] });

    const invitee = await secondVisitor(world, mode);
    await invitee.page.goto(link);
    await invitee.visitor.reaches("Sign in");
    expect(await sessionCookie(invitee.page)).toBeNull();
    await invitee.visitor.fill("Email address", email);
    await invitee.visitor.press("Email me a code");
    await invitee.visitor.reaches("Check your email");
    await invitee.visitor.fill("Code from the email", codeIn(await mailAfter(email, 1, hasCode)));
    await invitee.visitor.press("Sign in");
    await invitee.visitor.reaches("Your account");
    await invitee.page.getByText(email).first().waitFor();
    await invitee.visitor.screenshot("invite-one-arrived");
    const person = await people.findByEmail(db, email);
    expect(person).toMatchObject({ status: "approved", name, projects: ["startpage", "calendar"] });
    expect(person?.awaitingNotice).toBeUndefined();
    expect(await invitations.findByAddress(db, email)).toBeNull();

    // Their address changes: the new one is added by the code mailed to it, and the account stays theirs.
    const moved = `${unique("moved")}@example.test`;
    await invitee.visitor.fill("New email address", moved);
    await invitee.visitor.press("Send a code");
    const code = codeIn(await mailAfter(moved, 0, hasCode));
    await invitee.visitor.fill("Code from the email", code);
    await invitee.visitor.press("Add this address");
    await said(invitee.page, `Added ${moved}.`);
    await invitee.visitor.press(new RegExp(`^Make this the address we mail\\W*${moved.replace(/[.+]/g, "\\$&")}$`));
    await said(invitee.page, `We'll email ${moved} from now on.`);
    // This browser signed in with a code to the old address: its sign-in goes with the address,
    // and so does the account that address signed in through.
    await invitee.visitor.press(`Remove ${email}`);
    await invitee.visitor.reaches("You're signed out here");
    await invitee.page
      .getByText(`Removed ${email}. This browser was signed in through it, so it's signed out too.`)
      .waitFor();
    await invitee.visitor.screenshot("invite-one-moved");
    expect(await people.findById(db, person?.id as string)).toMatchObject({
      uids: [],
      emails: [moved],
      status: "approved",
      projects: ["startpage", "calendar"],
    });
    await mailAfter(email, 2, (m) => m.subject === "This address was removed from an account");
    await invitee.context.close();
    expect(invitee.visitor.serious()).toEqual([]);
  }, 180_000);

  it("checks a file row by row, invites its people, and sends an invitation again and revokes one", async () => {
    t.name = "invite-file";
    await asAdministrator("Fay File");
    const [a, b] = [`${unique("filea")}@example.test`, `${unique("fileb")}@example.test`];
    const good = `address,name,projects,groups\n${a},Ann File,startpage,class-a\n${b},Bo File,startpage;calendar,\n`;
    await t.page.goto(`${ID_HOST}/invite`);
    await t.visitor.reaches("Invite people");

    const input = t.page.getByLabel("A CSV file");
    // The system's file picker is not the page's: the file is given to the control as the picker would.
    const choose = (text: string) =>
      input.setInputFiles({ name: "people.csv", mimeType: "text/csv", buffer: Buffer.from(text) });
    await choose(`address,role\nnot-an-address,user\n${a},owner\n`);
    await t.visitor.press("Check the file");
    await said(t.page, "2 rows need fixing first");
    expect(await t.page.locator("table.rows").innerText()).toContain("the address is not an email address");
    expect(await t.page.getByRole("button", { name: /^Invite \d/ }).count()).toBe(0);

    await choose(good);
    await t.visitor.press("Check the file");
    await said(t.page, "2 people will be invited.");
    expect(await invitations.findByAddress(db, a)).toBeNull();
    await t.visitor.screenshot("invite-file-checked");
    await t.visitor.press("Invite 2 people");
    await said(t.page, "Invited 2 people.");
    for (const address of [a, b]) await mailAfter(address, 0, isInvitation);
    expect(await invitations.findByAddress(db, b)).toMatchObject({ projects: ["startpage", "calendar"] });

    // The same file again: nobody twice.
    await t.visitor.press("Check the file");
    await said(t.page, "0 people will be invited.");

    // Sent again after ten minutes at the soonest: the stack's clock is real, so the last mail is made older.
    await db
      .collection("invitations")
      .doc(invitations.invitationId(a))
      // eslint-disable-next-line no-restricted-syntax -- the stack keeps the real clock
      .update({ sentAt: new Date(Date.now() - 11 * 60_000) });
    await t.page.reload();
    await t.visitor.reaches("Invite people");
    await t.visitor.press(`Send again to ${a}`);
    await said(t.page, `Sent the invitation to ${a} again.`);
    await mailAfter(a, 1, isInvitation);
    await t.visitor.press(`Revoke the invitation of ${b}`);
    await said(t.page, `Revoked the invitation of ${b}.`);
    expect(await invitations.findByAddress(db, b)).toBeNull();
    await t.visitor.screenshot("invite-file-managed");
  }, 180_000);
});
