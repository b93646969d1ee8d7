/**
 * Passkeys on the identity host's pages, in Chromium with its virtual authenticator (a platform
 * authenticator that verifies its user): adding, renaming and removing them on the account page,
 * signing in with the button, through the email field's autofill, from an OpenID Connect request
 * and to step up for one that asks for a phishing-resistant sign-in; and the pages in a browser
 * with no authenticator, or no WebAuthn at all. With a pointer, the keyboard alone and on a
 * phone's screen, every page checked by axe-core.
 *
 * @stack-project a browser reaches the stack's functions
 */
import type { Page } from "playwright-core";
import { signInWithCustomToken } from "../support/auth";
import type { SoftwarePasskey } from "../support/authenticator";
import { ID_HOST, openSessionIn, useBrowserWorld } from "../support/browser";
import { auth, firestore } from "../support/deps";
import { codeIn, waitForSubject } from "../support/inbox";
import { passkeyWorld } from "../support/passkeys";
import { accountWithPerson } from "../support/people";
import { pkce, useRelyingParty } from "../support/relying-party";
import { credentialOf, virtualAuthenticator } from "../support/virtual-authenticator";
import { MODES, sessionCookie, useJourneys } from "../support/visitor";

const db = firestore();
const world = useBrowserWorld();
const rp = useRelyingParty();
const w = passkeyWorld();

/** What the session cookie this browser holds says of how its person signed in. */
async function sessionMethods(page: Page): Promise<unknown> {
  const cookie = await sessionCookie(page);
  expect(cookie).not.toBeNull();
  return JSON.parse(Buffer.from((cookie as string).split(".")[1] as string, "base64url").toString("utf8")).amr;
}

/** Records how the page asks for credentials (`conditional`: the email field's autofill). */
const RECORD_MEDIATION = `
  window.__mediations = [];
  if (navigator.credentials) {
    const get = navigator.credentials.get.bind(navigator.credentials);
    navigator.credentials.get = (options) => {
      window.__mediations.push(options && options.mediation ? options.mediation : "optional");
      return get(options);
    };
  }`;
const mediations = (page: Page) => page.evaluate("window.__mediations") as Promise<string[]>;

/** A person with a passkey registered through HTTP, and that passkey as the virtual authenticator takes it. */
async function withPasskey() {
  const made = await w.withPasskey({ name: "Pat Passkey" });
  return { ...made, credential: credentialOf(made.authenticator.passkeys[0] as SoftwarePasskey) };
}

describe.each(MODES)("passkeys on the identity host's pages, %s", (mode) => {
  const t = useJourneys(world, mode);

  /** From the sign-in page's email step to the account page, by a code from the mail. */
  async function signInByCode(email: string): Promise<void> {
    await t.visitor.fill("Email address", email);
    await t.visitor.press("Email me a code");
    await t.visitor.reaches("Check your email");
    // The code's mail, not the notice of the passkey the person was given (an earlier mail).
    await t.visitor.fill("Code from the email", codeIn(await waitForSubject(email, "Your sign-in code")));
    await t.visitor.press("Sign in");
    await t.visitor.reaches("Your account");
  }

  const signInAs = async (uid: string) =>
    openSessionIn(t.page, await signInWithCustomToken(await auth().createCustomToken(uid)));

  async function storedPasskeys(personId: string) {
    return (await db.collection("passkeys").where("personId", "==", personId).get()).docs.map((d) => d.data());
  }

  it("adds a passkey on the account page, renames it, and signs in with the button after signing out", async () => {
    t.name = "passkey-added-and-used";
    const { account, person } = await accountWithPerson({ name: "Pat Passkey" });
    const authenticator = await virtualAuthenticator(t.page);
    await signInAs(account.uid);
    await t.page.goto(`${ID_HOST}/account`);
    await t.visitor.reaches("Your account");
    await t.page.getByText("You have no passkeys yet.").waitFor();
    await t.visitor.press("Add a passkey");
    await t.page
      .getByRole("status")
      .filter({ hasText: /^Passkey added as / })
      .waitFor();
    // The person is told, by mail, whoever added it.
    const notice = await waitForSubject(account.email, "A way into your account changed");
    expect(notice.text).toMatch(/A passkey was added: “[^”]+”\./);
    const [added] = await storedPasskeys(person.id);
    expect(added).toMatchObject({
      uid: account.uid,
      transports: ["internal"],
      backupEligible: false,
      lastUsedAt: null,
    });
    expect(await authenticator.credentials()).toEqual([
      expect.objectContaining({ rpId: "example.test", isResidentCredential: true }),
    ]);
    await t.visitor.audit();
    await t.visitor.screenshot("passkey-added");

    await t.visitor.press(`Rename ${added?.name}`);
    await t.visitor.fill(`New name for ${added?.name}`, "Work laptop");
    await t.visitor.audit();
    await t.visitor.screenshot("passkey-rename");
    await t.visitor.press("Save");
    await t.page.getByRole("status").filter({ hasText: "Renamed to “Work laptop”." }).waitFor();
    expect((await storedPasskeys(person.id)).map((p) => p.name)).toEqual(["Work laptop"]);

    await t.visitor.press("Sign out");
    await t.visitor.reaches("You're signed out");
    // The sign-in page is opened while the device has no authenticator (so nothing is offered in the
    // field's autofill, which the virtual one would answer at once); it is back for the button.
    const credentials = await authenticator.credentials();
    await authenticator.remove();
    await t.page.goto(`${ID_HOST}/`);
    await t.visitor.reaches("Sign in");
    await virtualAuthenticator(t.page, credentials);
    await t.visitor.press("Sign in with a passkey");
    await t.visitor.reaches("Your account");
    expect(await sessionMethods(t.page)).toEqual(["hwk", "user"]);
    expect((await storedPasskeys(person.id))[0]?.lastUsedAt).not.toBeNull();
    await t.page.getByText("Work laptop").waitFor();
  });

  it("signs in through the email field's autofill, with no button pressed", async () => {
    t.name = "passkey-autofill";
    const { credential } = await withPasskey();
    await t.context.addInitScript({ content: RECORD_MEDIATION });
    await virtualAuthenticator(t.page, [credential]);
    await t.page.goto(`${ID_HOST}/`);
    // The person picks their passkey in the field's autofill (the virtual environment picks at once).
    await t.visitor.reaches("Your account");
    expect(await mediations(t.page)).toEqual([]);
    expect(await sessionMethods(t.page)).toEqual(["hwk", "user"]);
  });

  it("signs a person in with a passkey from an OpenID Connect request with prompt=login, the ID token saying so", async () => {
    t.name = "passkey-oidc";
    const relyingParty = await rp.client();
    const { account, person, credential } = await withPasskey();
    await signInAs(account.uid);
    await virtualAuthenticator(t.page, [credential]);
    const { verifier, challenge } = pkce();
    await new Promise((r) => setTimeout(r, 1100));
    // eslint-disable-next-line no-restricted-syntax -- the stack signs on the real clock
    const asked = Math.floor(Date.now() / 1000);
    await t.page.goto(rp.authorizeUrl(relyingParty.clientId, challenge, { prompt: "login" }));
    const back = await rp.arrivalAt("/callback");
    const claims = await rp.redeem(relyingParty, back.searchParams.get("code") as string, verifier);
    expect(claims).toMatchObject({ sub: person.id, amr: ["hwk", "user"], nonce: "rp-nonce" });
    expect(claims.acr).toBeUndefined();
    expect(Number(claims.auth_time)).toBeGreaterThanOrEqual(asked);
  });

  it("hands a person to a desktop app after a passkey sign-in, once they say yes", async () => {
    t.name = "passkey-handoff";
    const { person, credential } = await withPasskey();
    await virtualAuthenticator(t.page, [credential]);
    const { verifier, challenge } = pkce();
    await t.page.goto(rp.handoffUrl(challenge));
    await t.visitor.reaches("Sign in to continue to Local desktop app");
    // The sign-in page offers the passkey in its autofill, and comes back here.
    await t.visitor.press("Sign in");
    await t.visitor.reaches("Continue to Local desktop app?");
    await t.visitor.press("Continue to Local desktop app");
    const back = await rp.arrivalAt("/handoff");
    expect(await rp.exchange(back.searchParams.get("code"), verifier)).toMatchObject({
      status: 200,
      body: { personId: person.id },
    });
  });

  it("makes a person signed in by email code step up with a passkey for acr_values=phr", async () => {
    t.name = "passkey-step-up";
    const relyingParty = await rp.client();
    const { account, credential } = await withPasskey();
    await t.page.goto(`${ID_HOST}/`);
    await t.visitor.reaches("Sign in");
    await signInByCode(account.email);
    expect(await sessionMethods(t.page)).toEqual(["otp"]);

    await virtualAuthenticator(t.page, [credential]);
    const { verifier, challenge } = pkce();
    await t.page.goto(rp.authorizeUrl(relyingParty.clientId, challenge, { acr_values: "phr" }));
    await t.visitor.reaches("Sign in with a passkey");
    // Only a passkey: no email field here.
    expect(await t.page.getByLabel("Email address").count()).toBe(0);
    await t.visitor.screenshot("passkey-step-up-asked");
    await t.visitor.press("Sign in with a passkey");
    const back = await rp.arrivalAt("/callback");
    const claims = await rp.redeem(relyingParty, back.searchParams.get("code") as string, verifier);
    expect(claims).toMatchObject({ acr: "phr", amr: ["hwk", "user"] });
  });

  it("removes a passkey on the account page, after which it signs nobody in", async () => {
    t.name = "passkey-removed";
    const { account, person, credential } = await withPasskey();
    await virtualAuthenticator(t.page, [credential]);
    await signInAs(account.uid);
    await t.page.goto(`${ID_HOST}/account`);
    await t.visitor.reaches("Your account");
    await t.visitor.press("Remove Passkey");
    await t.page.getByText(/^Remove “Passkey”\? You won't be able to sign in with it any more\./).waitFor();
    await t.visitor.audit();
    await t.visitor.screenshot("passkey-remove-asked");
    await t.visitor.press("Remove passkey");
    await t.page.getByRole("status").filter({ hasText: "Removed “Passkey”." }).waitFor();
    await t.page.getByText("You have no passkeys yet.").waitFor();
    expect(await storedPasskeys(person.id)).toEqual([]);
    await t.visitor.press("Sign out");
    await t.visitor.reaches("You're signed out");

    // The device still offers it (in the field's autofill, at once); the service refuses it.
    await t.page.goto(`${ID_HOST}/`);
    await t.visitor.reaches("Sign in");
    const refused = t.page.getByRole("alert").filter({ hasText: /That passkey wasn't accepted/ });
    await refused.waitFor();
    const [again] = await Promise.all([
      t.page.waitForResponse((r) => r.url().endsWith("/auth/passkeys/sign-in/verify")),
      t.visitor.press("Sign in with a passkey"),
    ]);
    expect(again.status()).toBe(401);
    await refused.waitFor();
    await t.visitor.audit();
    expect(await sessionCookie(t.page)).toBeNull();
  });

  it("asks a person whose sign-in is over five minutes old to sign in again before adding or removing one", async () => {
    t.name = "passkey-sign-in-again";
    const { account } = await withPasskey();
    await virtualAuthenticator(t.page);
    await signInAs(account.uid);
    // The service's answers to an older sign-in (test/passkeys/passkeys.test.ts shows they are given).
    await t.page.route("**/auth/passkeys/register/options", (route) =>
      route.fulfill({
        status: 401,
        contentType: "application/json",
        body: JSON.stringify({ error: "Sign in again to add a passkey", reason: "sign_in_too_old" }),
      }),
    );
    await t.page.route("**/auth/passkeys/*", (route) =>
      route.request().method() === "DELETE"
        ? route.fulfill({
            status: 401,
            contentType: "application/json",
            body: JSON.stringify({ error: "Sign in again to remove a passkey", reason: "sign_in_too_old" }),
          })
        : route.continue(),
    );
    await t.page.goto(`${ID_HOST}/account`);
    await t.visitor.reaches("Your account");
    await t.visitor.press("Add a passkey");
    await t.page
      .getByRole("alert")
      .filter({ hasText: /^To add a passkey, please sign in again first/ })
      .waitFor();
    await t.visitor.audit();
    await t.visitor.screenshot("passkey-sign-in-again-asked");
    await t.visitor.press("Remove Passkey");
    await t.visitor.press("Remove passkey");
    await t.page
      .getByRole("alert")
      .filter({ hasText: /^To remove a passkey, please sign in again first/ })
      .waitFor();
    await t.visitor.audit();
    await t.visitor.press("Sign in again");
    await t.visitor.reaches("Sign in");
    expect(new URL(t.page.url()).searchParams.get("prompt")).toBe("login");
  });

  it("shows every other way in to a browser with no authenticator, and the email code still signs in", async () => {
    t.name = "passkey-no-authenticator";
    const { account } = await withPasskey();
    await t.page.goto(`${ID_HOST}/`);
    await t.visitor.reaches("Sign in");
    expect(await t.page.getByLabel("Email address").getAttribute("autocomplete")).toBe("username webauthn");
    for (const way of ["Sign in with a passkey", "Sign in with a gaming account", "Request access"])
      await t.visitor.control(way).waitFor();
    await signInByCode(account.email);
  });

  it("leaves passkeys out of a browser without WebAuthn, and says so where only a passkey will do", async () => {
    t.name = "passkey-no-webauthn";
    const relyingParty = await rp.client();
    const { account } = await accountWithPerson();
    await t.context.addInitScript({ content: "delete window.PublicKeyCredential;" });
    await t.page.goto(`${ID_HOST}/`);
    await t.visitor.reaches("Sign in");
    expect(await t.page.getByLabel("Email address").getAttribute("autocomplete")).toBe("email");
    expect(await t.visitor.control("Sign in with a passkey").count()).toBe(0);
    await t.visitor.control("Sign in with a gaming account").waitFor();

    await signInAs(account.uid);
    await t.page.goto(rp.authorizeUrl(relyingParty.clientId, pkce().challenge, { acr_values: "phr" }));
    await t.visitor.reaches("This browser can't use passkeys");
    await t.visitor.screenshot("passkey-no-webauthn-step-up");
    await t.visitor.press("Back to the app");
    const back = await rp.arrivalAt("/callback");
    expect(back.searchParams.get("error")).toBe("login_required");
    await t.page.getByRole("heading", { name: "Back at the app" }).waitFor();

    await t.page.goto(`${ID_HOST}/account`);
    await t.visitor.reaches("Your account");
    await t.page.getByText("This browser can't make passkeys.", { exact: false }).waitFor();
    expect(await t.visitor.control("Add a passkey").count()).toBe(0);
  });
});
