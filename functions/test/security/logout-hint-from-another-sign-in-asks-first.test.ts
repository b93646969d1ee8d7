/**
 * RP-initiated logout ends a sign-in without asking only for an ID token issued from that very
 * sign-in (its `sid`). An ID token of the same person from any other sign-in (an earlier session,
 * another browser's), valid signature and all, is no more than a bare link: the person is asked,
 * their session lives on, and no app hears of a logout.
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import { MINUTE } from "../../src/clock";
import { registerClient } from "../../src/core/oidc/clients";
import * as oidc from "../../src/routes/oidc/oidc";
import { codeFlowTokens } from "../support/code-flow";
import { appFor, TEST_CODE_PEPPER, testConfig, testDeps, unique } from "../support/deps";
import { accountWithPerson, recordedSession } from "../support/people";

const REDIRECT = "https://app.example.test/callback";
const BACK = "https://app.example.test/signed-out";

describe("GET /auth/oidc/logout with an ID token from another sign-in as the hint", () => {
  const deps = testDeps();
  const app = appFor(oidc, deps);
  const client = { clientId: unique("hint-rp"), clientSecret: randomBytes(32).toString("base64url") };
  const other = { clientId: unique("hint-other"), clientSecret: randomBytes(32).toString("base64url") };

  beforeAll(async () => {
    for (const c of [client, other])
      await registerClient(deps, {
        ...c,
        name: "Hinted app",
        redirectUris: [REDIRECT],
        postLogoutRedirectUris: [BACK],
      });
  });

  const idToken = async (cookie: string, c = client) =>
    (await codeFlowTokens(app, cookie, c, { redirectUri: REDIRECT })).id_token;

  const logout = (hint: string, cookie: string) =>
    request(app)
      .get(`/auth/oidc/logout?${new URLSearchParams({ id_token_hint: hint, post_logout_redirect_uri: BACK })}`)
      .set("Cookie", cookie);

  /** Whether the cookie still gets a code from the authorise step, rather than being sent to sign in. */
  async function stillSignedIn(cookie: string): Promise<boolean> {
    const query = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid",
      code_challenge: createHash("sha256").update("v".repeat(43)).digest("base64url"),
      code_challenge_method: "S256",
    });
    const res = await request(app).get(`/auth/oidc/authorize?${query}`).set("Cookie", cookie);
    return new URL(res.headers.location as string).searchParams.has("code");
  }

  const signInsOf = async (personId: string) =>
    (await deps.store.collection("oidcSignIns").where("personId", "==", personId).get()).size;

  it("asks first for the person's ID token from an earlier session, and ends nothing", async () => {
    const { person } = await accountWithPerson({ name: "Hinted" });
    const earlier = await recordedSession(deps, person);
    const old = await idToken(earlier.cookie);
    deps.clock.advance(7 * MINUTE);
    const now = await recordedSession(deps, person);
    await idToken(now.cookie);
    const before = await signInsOf(person.id);

    const res = await logout(old, now.cookie);
    expect(res.status).toBe(200);
    expect(res.text).toContain("<h1>Sign out?</h1>");
    expect(res.headers.location).toBeUndefined();
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(await stillSignedIn(now.cookie)).toBe(true);
    // No sign-in was ended, so no app is told of a logout.
    expect(await signInsOf(person.id)).toBe(before);
  });

  it("asks first for the person's ID token from another browser's live session, given to another app", async () => {
    const { person } = await accountWithPerson({ name: "Two browsers" });
    const theirs = await recordedSession(deps, person);
    const elsewhere = await recordedSession(deps, person);
    const res = await logout(await idToken(elsewhere.cookie, other), theirs.cookie);
    expect(res.status).toBe(200);
    expect(res.text).toContain("<h1>Sign out?</h1>");
    expect(await stillSignedIn(theirs.cookie)).toBe(true);
    expect(await stillSignedIn(elsewhere.cookie)).toBe(true);
  });

  it("signs out at once for an ID token of this very sign-in, given to any of its apps, old as it may be", async () => {
    const { person } = await accountWithPerson({ name: "This sign-in" });
    const here = await recordedSession(deps, person);
    const hint = await idToken(here.cookie, other);
    deps.clock.advance(3 * 60 * MINUTE);
    const res = await logout(hint, here.cookie);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(BACK);
    expect(await stillSignedIn(here.cookie)).toBe(false);
  });

  it("still knows this sign-in's ID token after CODE_PEPPER rotation puts a new key first", async () => {
    const { person } = await accountWithPerson({ name: "Rotated" });
    const here = await recordedSession(deps, person);
    const hint = await idToken(here.cookie);
    const rotated = testDeps({
      config: testConfig({ codePepper: `test-pepper-2:${"n".repeat(40)},${TEST_CODE_PEPPER}` }),
      clock: deps.clock,
    });
    const res = await request(appFor(oidc, rotated))
      .get(`/auth/oidc/logout?${new URLSearchParams({ id_token_hint: hint, post_logout_redirect_uri: BACK })}`)
      .set("Cookie", here.cookie);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(BACK);
  });
});
