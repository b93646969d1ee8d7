/**
 * Apps that sign people in through the identity host, in a real browser: an OpenID Connect
 * relying party whose signed-out person signs in on the pages and comes back with a code, and
 * a desktop app handed the person by a single-use exchange code; with a pointer, the keyboard
 * alone and on a phone's screen.
 *
 * @stack-project a browser reaches the stack's functions
 */
import { signInWithCustomToken } from "../support/auth";
import { ID_HOST, openSessionIn, useBrowserWorld } from "../support/browser";
import { auth, unique } from "../support/deps";
import { personFor } from "../support/people";
import { pkce, useRelyingParty } from "../support/relying-party";
import { MODES, sessionCookie, signInByCode, useJourneys } from "../support/visitor";

const world = useBrowserWorld();
const rp = useRelyingParty();

describe.each(MODES)("apps signing people in through the identity host, %s", (mode) => {
  const t = useJourneys(world, mode);

  it("brings a signed-out person from a relying party's authorise request through sign-in and back with a code", async () => {
    t.name = "oidc-sign-in";
    const relyingParty = await rp.client();
    const email = `${unique("rp")}@example.test`;
    const person = await personFor({ uid: unique("uid"), email }, { name: "RP Person" });
    const { verifier, challenge } = pkce();
    await t.page.goto(rp.authorizeUrl(relyingParty.clientId, challenge));
    await signInByCode(t.visitor, email);
    const back = await rp.arrivalAt("/callback");
    expect(back.searchParams.get("state")).toBe("rp-state");
    const claims = await rp.redeem(relyingParty, back.searchParams.get("code") as string, verifier);
    expect(claims).toMatchObject({ sub: person.id, email, nonce: "rp-nonce" });
  });

  it("makes a person who is signed in authenticate afresh for prompt=login", async () => {
    t.name = "oidc-prompt-login";
    const relyingParty = await rp.client();
    const email = `${unique("rp")}@example.test`;
    const uid = unique("uid");
    await personFor({ uid, email });
    await openSessionIn(t.page, await signInWithCustomToken(await auth().createCustomToken(uid)));
    const held = await sessionCookie(t.page);
    expect(held).not.toBeNull();
    const { verifier, challenge } = pkce();
    await new Promise((r) => setTimeout(r, 1100));
    // eslint-disable-next-line no-restricted-syntax -- the stack signs on the real clock
    const asked = Math.floor(Date.now() / 1000);
    await t.page.goto(rp.authorizeUrl(relyingParty.clientId, challenge, { prompt: "login" }));
    // The sign-in form, not "you're already signed in": the held sign-in is not reused.
    await signInByCode(t.visitor, email);
    const back = await rp.arrivalAt("/callback");
    const claims = await rp.redeem(relyingParty, back.searchParams.get("code") as string, verifier);
    expect(Number(claims.auth_time)).toBeGreaterThanOrEqual(asked);
    expect(await sessionCookie(t.page)).not.toBe(held);
  });

  it("lists an app the person let in on their account, disconnects it, and signs out through the app back to it", async () => {
    t.name = "oidc-lifecycle";
    const relyingParty = await rp.client({ lifecycle: true });
    const email = `${unique("rp")}@example.test`;
    const uid = unique("uid");
    await personFor({ uid, email }, { name: "Lifecycle Person" });
    await openSessionIn(t.page, await signInWithCustomToken(await auth().createCustomToken(uid)));
    // Signed in already, the person carries on to the app from the identity host's page.
    const signIn = async (scope: string) => {
      const { verifier, challenge } = pkce();
      await t.page.goto(rp.authorizeUrl(relyingParty.clientId, challenge, { scope }));
      await t.visitor.reaches("You're already signed in");
      await t.visitor.press("Continue");
      const back = await rp.arrivalAt("/callback");
      // The app's page has loaded: the browser is done with the trip before it goes anywhere else.
      await t.page.getByRole("heading", { name: "Back at the app" }).waitFor();
      return rp.tokens(relyingParty, back.searchParams.get("code") as string, verifier);
    };
    const first = await signIn("openid email offline_access");
    expect(first.refresh_token).toEqual(expect.any(String));

    await t.page.goto(`${ID_HOST}/account`);
    await t.visitor.reaches("Your account");
    const app = t.page.locator("section[aria-labelledby=apps] li", { hasText: "Journey RP" });
    await app.getByText("Can act while you're away").waitFor();
    await t.visitor.audit();
    await t.visitor.screenshot("account-apps");
    await t.visitor.press("Disconnect Journey RP");
    await t.page.getByRole("status").filter({ hasText: "Disconnected Journey RP." }).waitFor();
    await t.page.getByText("No apps are signed in to your account.").waitFor();
    // What the app held is gone: its refresh token is refused.
    const refused = await rp.token(relyingParty, {
      grant_type: "refresh_token",
      refresh_token: first.refresh_token as string,
    });
    expect(refused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });

    // Disconnected, it is let in again only by the person's yes on the identity host: no code before it.
    const { verifier, challenge } = pkce();
    await t.page.goto(rp.authorizeUrl(relyingParty.clientId, challenge, { scope: "openid email" }));
    await t.visitor.reaches("You're already signed in");
    await t.visitor.press("Continue");
    await t.visitor.reaches("Let Journey RP sign you in again?");
    await t.visitor.screenshot("app-reconnect");
    await t.visitor.press("Let Journey RP in");
    const reconnected = await rp.arrivalAt("/callback");
    await t.page.getByRole("heading", { name: "Back at the app" }).waitFor();
    await rp.tokens(relyingParty, reconnected.searchParams.get("code") as string, verifier);

    // Signed in to it again, the app signs the person out: back at the app, signed out here too.
    const again = await signIn("openid email");
    await t.page.goto(
      `${rp.issuer()}/auth/oidc/logout?${new URLSearchParams({
        id_token_hint: again.id_token,
        post_logout_redirect_uri: `${rp.url()}/signed-out`,
        state: "bye",
      })}`,
    );
    const out = await rp.arrivalAt("/signed-out");
    expect(out.searchParams.get("state")).toBe("bye");
    expect(await sessionCookie(t.page)).toBeNull();
  });

  it("asks the person's consent for an app that registered itself, and goes on to it with their yes", async () => {
    t.name = "oidc-consent";
    const relyingParty = await rp.client({ selfRegistered: true });
    const uid = unique("uid");
    await personFor({ uid, email: `${unique("rp")}@example.test` }, { name: "Consenting Person" });
    await openSessionIn(t.page, await signInWithCustomToken(await auth().createCustomToken(uid)));
    const { verifier, challenge } = pkce();
    await t.page.goto(rp.authorizeUrl(relyingParty.clientId, challenge, { scope: "openid email" }));
    await t.visitor.reaches("You're already signed in");
    await t.visitor.press("Continue");
    await t.visitor.reaches("Let Journey RP use your account?");
    await t.page.getByText("is not one of this service's own apps").waitFor();
    await t.page.getByText("an app on this device").waitFor();
    await t.visitor.audit();
    await t.visitor.screenshot("app-consent");
    await t.visitor.press("Let Journey RP in");
    const back = await rp.arrivalAt("/callback");
    await t.page.getByRole("heading", { name: "Back at the app" }).waitFor();
    expect(back.searchParams.get("state")).toBe("rp-state");
    await rp.tokens(relyingParty, back.searchParams.get("code") as string, verifier);

    await t.page.goto(`${ID_HOST}/account`);
    await t.visitor.reaches("Your account");
    const app = t.page.locator("section[aria-labelledby=apps] li", { hasText: "Journey RP" });
    await app.getByText("Unverified").waitFor();
  });

  it("shows an administrator the apps a person let in, on the person's page, and disconnects one", async () => {
    t.name = "person-apps";
    const relyingParty = await rp.client({ lifecycle: true });
    const uid = unique("uid");
    const person = await personFor({ uid, email: `${unique("rp")}@example.test` }, { name: "App User" });
    // The person signs in to the app in a browser of their own.
    const theirs = await world().context({ phone: mode === "phone" });
    const page = await theirs.newPage();
    await openSessionIn(page, await signInWithCustomToken(await auth().createCustomToken(uid)));
    const { verifier, challenge } = pkce();
    await page.goto(rp.authorizeUrl(relyingParty.clientId, challenge, { scope: "openid offline_access" }));
    await page.getByRole("link", { name: "Continue" }).click();
    const back = await rp.arrivalAt("/callback");
    const held = await rp.tokens(relyingParty, back.searchParams.get("code") as string, verifier);
    await theirs.close();

    const adminUid = unique("uid");
    await personFor({ uid: adminUid, email: `${unique("admin")}@example.test` }, { role: "admin", projects: ["*"] });
    await openSessionIn(t.page, await signInWithCustomToken(await auth().createCustomToken(adminUid)));
    await t.page.goto(`${ID_HOST}/person?id=${person.id}`);
    await t.visitor.reaches("App User");
    const apps = t.page.locator("section[aria-labelledby=apps]");
    await apps.getByText("Journey RP (can act while they're away)").waitFor();
    await t.visitor.audit();
    await t.visitor.press("Disconnect Journey RP");
    await apps.getByRole("status").filter({ hasText: "Disconnected Journey RP." }).waitFor();
    await apps.getByText("None.").waitFor();
    const refused = await rp.token(relyingParty, {
      grant_type: "refresh_token",
      refresh_token: held.refresh_token as string,
    });
    expect(refused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("hands a signed-out person to a desktop app by a single-use code, after sign-in and their yes", async () => {
    t.name = "handoff";
    const email = `${unique("desk")}@example.test`;
    const person = await personFor({ uid: unique("uid"), email }, { name: "Desk Person" });
    const { verifier, challenge } = pkce();
    await t.page.goto(rp.handoffUrl(challenge));
    await t.visitor.reaches("Sign in to continue to Local desktop app");
    await t.visitor.press("Sign in");
    await signInByCode(t.visitor, email);
    await t.visitor.reaches("Continue to Local desktop app?");
    await t.visitor.screenshot("handoff-asked");
    await t.visitor.press("Continue to Local desktop app");
    const back = await rp.arrivalAt("/handoff");
    expect(back.searchParams.get("state")).toBe("desk-state");
    expect(await rp.exchange(back.searchParams.get("code"), verifier)).toMatchObject({
      status: 200,
      body: { personId: person.id, email },
    });
  });
});
