/** The passkeys function's app through HTTP, as a browser and its authenticator drive it (test/passkeys/passkeys.test.ts and others). */
import request, { type Response } from "supertest";
import * as passkeysGroup from "../../src/routes/passkeys/passkeys";
import { SoftwareAuthenticator } from "./authenticator";
import { appFor, testDeps, type TestDeps } from "./deps";
import { accountWithPerson, sessionCookieFor } from "./people";
import { type NewPerson } from "../../src/core/model/person";

/** One browser: its session cookie, and the passkey binding the sign-in options gave it. */
export interface Browser {
  session: string;
  binding: string | null;
}

export function passkeyWorld(deps: TestDeps = testDeps()) {
  const app = appFor(passkeysGroup, deps);
  const post = (path: string, body: object, cookie = "") => request(app).post(path).set("Cookie", cookie).send(body);

  /** An approved person signed in just now, with a session of their own in a browser. */
  async function person(fields: Partial<NewPerson> = {}) {
    const { account, person } = await accountWithPerson(fields, deps.store);
    const browser: Browser = { session: await sessionCookieFor(deps, account.uid, person.id, ["otp"]), binding: null };
    return { account, person, browser };
  }

  async function registrationOptions(browser: Browser) {
    const res = await post("/auth/passkeys/register/options", {}, browser.session);
    expect(res.status).toBe(200);
    return res.body.options;
  }

  /** Registers a passkey made by `authenticator` in this browser's session. */
  async function register(browser: Browser, authenticator: SoftwareAuthenticator, lies = {}, name?: string) {
    const credential = authenticator.create(await registrationOptions(browser), lies);
    return post("/auth/passkeys/register/verify", { credential, ...(name ? { name } : {}) }, browser.session);
  }

  /** Sign-in options for this browser: it keeps the binding cookie they set. */
  async function signInOptions(browser: Browser) {
    const res = await post("/auth/passkeys/sign-in/options", {}, browser.binding ?? "");
    expect(res.status).toBe(200);
    browser.binding = /^__session=passkey\.[^;]+/.exec(String(res.headers["set-cookie"]?.[0]))?.[0] ?? null;
    return res.body.options;
  }

  const verify = (browser: Browser, credential: object) =>
    post("/auth/passkeys/sign-in/verify", { credential }, browser.binding ?? "");

  async function signIn(browser: Browser, authenticator: SoftwareAuthenticator, lies = {}): Promise<Response> {
    return verify(browser, authenticator.get(await signInOptions(browser), lies));
  }

  /** An approved person with a passkey registered, and the authenticator that holds it. */
  async function withPasskey(fields: Partial<NewPerson> = {}, synced = false) {
    const signedUp = await person(fields);
    const authenticator = new SoftwareAuthenticator();
    const res = await register(signedUp.browser, authenticator, { synced });
    expect(res.status).toBe(201);
    return { ...signedUp, authenticator, passkeyId: res.body.id as string };
  }

  return { deps, app, post, person, registrationOptions, register, withPasskey, signInOptions, verify, signIn };
}

/** A browser with no cookie yet. */
export const newBrowser = (): Browser => ({ session: "", binding: null });
