/**
 * The identity host's pages in a real browser, by email code: each journey clicked through with
 * a pointer, with the keyboard alone, and on a phone's screen, every page checked by axe-core.
 *
 * @stack-project a browser reaches the stack's functions
 */
import * as people from "../../src/store/people";
import { ID_HOST, openSessionIn, useBrowserWorld } from "../support/browser";
import { signInWithCustomToken } from "../support/auth";
import { auth, firestore, unique } from "../support/deps";
import { codeFor } from "../support/inbox";
import { otherThan } from "../support/email-codes";
import { personFor } from "../support/people";
import { MODES, sessionCookie, useJourneys } from "../support/visitor";
import { type NewPerson } from "../../src/core/model/person";

const db = firestore();

const world = useBrowserWorld();

/** A person the service knows by this address, with no account at the identity provider yet. */
async function known(fields: Partial<NewPerson> = {}): Promise<string> {
  const email = `${unique("page")}@example.test`;
  await personFor({ uid: unique("uid"), email }, { name: "Page Person", projects: ["startpage"], ...fields });
  return email;
}

describe.each(MODES)("the sign-in pages, %s", (mode) => {
  const t = useJourneys(world, mode);

  /** Up to the code step for `email`, from the sign-in page. */
  async function askForCode(email: string): Promise<void> {
    await t.page.goto(`${ID_HOST}/`);
    await t.visitor.reaches("Sign in");
    await t.visitor.fill("Email address", email);
    await t.visitor.press("Email me a code");
    await t.visitor.reaches("Check your email");
  }

  async function enterCode(code: string): Promise<void> {
    await t.visitor.fill("Code from the email", code);
    await Promise.all([
      t.page.waitForResponse((r) => r.url().endsWith("/auth/otp/sign-in")),
      t.visitor.press("Sign in"),
    ]);
  }

  /** The refusal shown under the field once the page has read the answer (it clears the last one when it asks). */
  async function fieldError(): Promise<string> {
    const error = t.page.locator(".error:not([hidden])");
    await error.waitFor();
    return error.innerText();
  }

  it("signs in by a code from the mail, pasted with a space in it, and lands on the account page", async () => {
    t.name = "email-code-sign-in";
    const email = await known({ name: "Ada Lovelace", projects: ["startpage", "status"] });
    await askForCode(email);
    const field = t.page.getByLabel("Code from the email");
    expect([await field.getAttribute("inputmode"), await field.getAttribute("autocomplete")]).toEqual([
      "numeric",
      "one-time-code",
    ]);
    const code = await codeFor(email);
    await enterCode(`${code.slice(0, 3)} ${code.slice(3)}`);
    await t.visitor.reaches("Your account");
    expect(t.page.url()).toBe(`${ID_HOST}/account`);
    const details = await t.page.locator("dl").innerText();
    for (const shown of ["Ada Lovelace", email, "Approved", "Member", "startpage", "status"])
      expect(details).toContain(shown);
    expect(await sessionCookie(t.page)).not.toBeNull();
  });

  it("requests access for a new address, and ends saying a reviewer decides", async () => {
    t.name = "request-access";
    const email = `${unique("new")}@example.test`;
    await t.page.goto(`${ID_HOST}/`);
    await t.visitor.reaches("Sign in");
    await t.visitor.press("Request access");
    await t.visitor.reaches("Request access");
    await t.visitor.fill("Email address", email);
    await t.visitor.press("Email me a code");
    await t.visitor.reaches("Check your email");
    await t.visitor.fill("Code from the email", await codeFor(email));
    await t.visitor.press("Confirm my address");
    await t.visitor.reaches("Your request is in");
    expect(await t.page.locator("main").innerText()).toMatch(/A reviewer decides/);
    expect(await people.findByEmail(db, email)).toMatchObject({ status: "pending", emails: [email] });
    expect(await sessionCookie(t.page)).toBeNull();
    // Approved inside the minute, the person asks for a sign-in code at once: refused as just
    // sent, and the page does not ask for the code it sent, which was for the request and is used.
    await t.visitor.press("Go to sign in");
    await t.visitor.reaches("Sign in");
    await t.visitor.fill("Email address", email);
    await t.visitor.press("Email me a code");
    await t.page
      .getByRole("alert")
      .filter({ hasText: "The code we sent to this address a moment ago has been used. You can ask for a new one in" })
      .waitFor();
    expect(await t.page.getByRole("button", { name: "Enter the code we sent" }).count()).toBe(0);
    await t.visitor.audit();
  });

  it.each([
    ["pending", "Your account is waiting for approval"],
    ["rejected", "Your account wasn't approved"],
  ] as const)("shows a %s person their page, and sets no cookie", async (status, heading) => {
    t.name = `${status}-person`;
    const email = await known({ status });
    await askForCode(email);
    await enterCode(await codeFor(email));
    await t.visitor.reaches(heading);
    expect(await sessionCookie(t.page)).toBeNull();
  });

  it("tells an approved person without the project's grant so, sets no cookie for it, and still opens their account", async () => {
    t.name = "no-project-access";
    const email = await known({ projects: ["status"] });
    await t.page.goto(
      `${ID_HOST}/?redirect=${encodeURIComponent("https://startpage.example.test/")}&project=startpage`,
    );
    await t.visitor.reaches("Sign in");
    await t.visitor.fill("Email address", email);
    await t.visitor.press("Email me a code");
    await t.visitor.reaches("Check your email");
    await enterCode(await codeFor(email));
    await t.visitor.reaches("You don't have access to startpage");
    expect(await sessionCookie(t.page)).toBeNull();
    await t.visitor.press("Go to your account");
    await t.visitor.reaches("Your account");
    expect(await t.page.locator("dl").innerText()).toContain("status");
  });

  it("refuses to send anyone to an address outside the service after sign-in", async () => {
    t.name = "redirect-refused";
    await t.page.goto(`${ID_HOST}/?redirect=${encodeURIComponent("https://evil.example/")}`);
    await t.visitor.reaches("This sign-in link can't be used");
    expect(await t.page.getByLabel("Email address").count()).toBe(0);
  });

  it("offers a person who is already signed in to carry on, or to sign in as someone else", async () => {
    t.name = "already-signed-in";
    const email = await known();
    await askForCode(email);
    await enterCode(await codeFor(email));
    await t.visitor.reaches("Your account");
    await t.page.goto(
      `${ID_HOST}/?redirect=${encodeURIComponent("https://startpage.example.test/")}&project=startpage`,
    );
    await t.visitor.reaches("You're already signed in");
    expect(await t.page.locator("main").innerText()).toContain(email);
    await t.visitor.press("Continue");
    await t.page.waitForURL("https://startpage.example.test/");
    await t.page.getByText(`Signed in as ${email}.`).waitFor();
  });

  it("shows the email step at once, and keeps what a person typed while a slow session check answers", async () => {
    t.name = "typed-before-session-check";
    const email = await known();
    await askForCode(email);
    await enterCode(await codeFor(email));
    await t.visitor.reaches("Your account");
    // The check of this browser's session takes its time; the form does not wait for it.
    let answered = false;
    await t.page.route("**/auth/session/refresh", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
      answered = true;
    });
    await t.page.goto(`${ID_HOST}/`);
    await t.visitor.reaches("Sign in");
    await t.visitor.fill("Email address", "someone.else@");
    expect(answered).toBe(false);
    const notice = t.page.getByRole("status").filter({ hasText: "You're already signed in as" });
    await notice.waitFor();
    expect(await t.page.getByLabel("Email address").inputValue()).toBe("someone.else@");
    expect(await t.page.locator("h1").innerText()).toBe("Sign in");
    await t.page.unroute("**/auth/session/refresh");
  });

  it("offers the code step when a code was mailed moments ago, and that code signs in", async () => {
    t.name = "code-already-sent";
    const email = await known();
    await askForCode(email);
    const code = await codeFor(email);
    // Back to the start (a reload, a new tab), the same address again inside the minute.
    await t.page.goto(`${ID_HOST}/`);
    await t.visitor.reaches("Sign in");
    await t.visitor.fill("Email address", email);
    await t.visitor.press("Email me a code");
    const alert = t.page.getByRole("alert").filter({ hasText: /./ });
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/We've just sent a code to this address/);
    await t.visitor.press("Enter the code we sent");
    await t.visitor.reaches("Check your email");
    await enterCode(code);
    await t.visitor.reaches("Your account");
  });

  it("says so after each wrong code, and refuses the right one after the fifth", async () => {
    t.name = "five-wrong-codes";
    const email = await known();
    await askForCode(email);
    const code = await codeFor(email);
    for (let attempt = 1; attempt <= 5; attempt++) {
      await enterCode(otherThan(code));
      const expected =
        attempt < 5
          ? "That code isn't right. Check the email and try again."
          : "That code was entered wrongly too many times, so it no longer works. Ask for a new one below.";
      expect(await fieldError()).toBe(expected);
    }
    await enterCode(code);
    expect(await fieldError()).toMatch(/entered wrongly too many times/);
    expect(await t.page.getByLabel("Code from the email").getAttribute("aria-invalid")).toBe("true");
    expect(await sessionCookie(t.page)).toBeNull();
  });

  it("asks for nothing that is not six digits, so a typo spends no attempt", async () => {
    t.name = "malformed-code";
    const email = await known();
    await askForCode(email);
    await t.visitor.fill("Code from the email", "12345");
    await t.visitor.press("Sign in");
    expect(await fieldError()).toBe("Enter the 6-digit code from the email.");
    // The code is still whole: the right one signs in.
    await enterCode(await codeFor(email));
    await t.visitor.reaches("Your account");
  });

  it("tells the person how long to wait before another code", async () => {
    t.name = "too-many-codes";
    const email = await known();
    await askForCode(email);
    await t.visitor.press("Send a new code");
    const shown = t.page.getByRole("alert").filter({ hasText: /./ });
    await shown.waitFor();
    const alert = await shown.innerText();
    expect(alert).toMatch(/^We've just sent a code to this address\. You can ask for another in \d+ seconds\.$/);
  });

  it("signs out on the account page, which ends the session on the sibling hosts of this browser only", async () => {
    t.name = "sign-out";
    const email = await known();
    await askForCode(email);
    await enterCode(await codeFor(email));
    await t.visitor.reaches("Your account");
    // Another browser signed in as the same person, as its own sign-in page would.
    const elsewhere = await world().context();
    const other = await elsewhere.newPage();
    const uid = (await people.findByEmail(db, email))?.uids[0] as string;
    await openSessionIn(other, await signInWithCustomToken(await auth().createCustomToken(uid)));

    const app = await t.context.newPage();
    await app.goto("https://startpage.example.test/");
    await app.getByText(`Signed in as ${email}.`).waitFor();
    await t.visitor.press("Sign out");
    await t.visitor.reaches("You're signed out");
    await app.reload();
    await app.getByText("Not signed in.").waitFor();
    const otherApp = await elsewhere.newPage();
    await otherApp.goto("https://startpage.example.test/");
    await otherApp.getByText(`Signed in as ${email}.`).waitFor();
    await elsewhere.close();
  });
});
