/**
 * RP-initiated logout at the OpenID Connect provider's end_session_endpoint: a valid hint for the
 * person signed in ends their sign-in at once and sends them back to the app's registered address
 * with its state; anything less asks the person first; an address the app did not register is
 * never redirected to; a request without the sign-in's cookie is sent once to the identity host.
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import { HOUR } from "../../src/clock";
import { registerClient } from "../../src/core/oidc/clients";
import * as oidc from "../../src/routes/oidc/oidc";
import { appFor, ID_URL, SERVICE_URL, testDeps, unique } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";

const REDIRECT = "https://app.example.test/callback";
const BACK = "https://app.example.test/signed-out";

describe("RP-initiated logout", () => {
  const deps = testDeps();
  const app = appFor(oidc, deps);
  const client = { clientId: unique("logout-rp"), clientSecret: randomBytes(32).toString("base64url") };
  const other = { clientId: unique("other-rp"), clientSecret: randomBytes(32).toString("base64url") };

  beforeAll(async () => {
    await registerClient(deps, {
      ...client,
      name: "Calendar sync",
      redirectUris: [REDIRECT],
      postLogoutRedirectUris: [BACK],
    });
    await registerClient(deps, { ...other, name: "Other app", redirectUris: [REDIRECT] });
  });

  /** A person signed in on this browser, and the ID token `client` got for them through the code flow. */
  async function signedIn(c = client) {
    const { account, person } = await accountWithPerson({ name: "Ada" });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const verifier = randomBytes(32).toString("base64url");
    const query = new URLSearchParams({
      client_id: c.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid email",
      state: "s",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    });
    const authorized = await request(app).get(`/auth/oidc/authorize?${query}`).set("Cookie", cookie);
    const code = new URL(authorized.headers.location as string).searchParams.get("code") as string;
    const tokens = await request(app)
      .post("/auth/oidc/token")
      .type("form")
      .auth(c.clientId, c.clientSecret)
      .send({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    return { cookie, person, idToken: tokens.body.id_token as string };
  }

  const logout = (params: Record<string, string>, cookie?: string) => {
    const req = request(app).get(`/auth/oidc/logout?${new URLSearchParams(params)}`);
    return cookie === undefined ? req : req.set("Cookie", cookie);
  };

  /** Whether `cookie` still signs its person in: the authorise step issues a code rather than sending them to sign in. */
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

  /** The confirmation form's hidden fields. */
  function formOf(html: string): Record<string, string> {
    const fields: Record<string, string> = {};
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      fields[m[1] as string] = (m[2] as string).replace(/&amp;/g, "&").replace(/&quot;/g, '"');
    return fields;
  }

  it("lists its end_session_endpoint in discovery", async () => {
    const res = await request(app).get("/.well-known/openid-configuration");
    expect(res.body.end_session_endpoint).toBe(`${SERVICE_URL}/auth/oidc/logout`);
  });

  it("signs out at once for a valid hint naming the person signed in, back to the registered address with state", async () => {
    const { cookie, idToken } = await signedIn();
    const res = await logout({ id_token_hint: idToken, post_logout_redirect_uri: BACK, state: "st 1" }, cookie);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`${BACK}?state=st+1`);
    expect(res.headers["set-cookie"]?.[0]).toMatch(
      /^__session=; Domain=example\.test; Path=\/; Expires=Thu, 01 Jan 1970/,
    );
    expect(await stillSignedIn(cookie)).toBe(false);
  });

  it("takes a hint whose ID token has expired, as the spec asks", async () => {
    const { cookie, idToken } = await signedIn();
    deps.clock.advance(2 * HOUR);
    try {
      const res = await logout(
        { id_token_hint: idToken, client_id: client.clientId, post_logout_redirect_uri: BACK },
        cookie,
      );
      expect(res.headers.location).toBe(BACK);
      expect(await stillSignedIn(cookie)).toBe(false);
    } finally {
      deps.clock.advance(-2 * HOUR);
    }
  });

  it("asks the person first without a hint, and signs out only once they confirm, from this browser", async () => {
    const { cookie, person } = await signedIn();
    const asked = await logout({ client_id: client.clientId, post_logout_redirect_uri: BACK, state: "x" }, cookie);
    expect(asked.status).toBe(200);
    expect(asked.headers["content-type"]).toMatch(/^text\/html/);
    expect(asked.text).toContain("<h1>Sign out?</h1>");
    expect(asked.text).toContain(`Calendar sync asks to sign you out. You are signed in as ${person.emails[0]}.`);
    expect(await stillSignedIn(cookie)).toBe(true);
    const fields = formOf(asked.text);
    expect(fields).toMatchObject({ client_id: client.clientId, post_logout_redirect_uri: BACK, state: "x" });

    // The form from another browser's page (its own session's confirmation) ends nothing here.
    const elsewhere = await signedIn();
    const theirs = formOf((await logout({ client_id: client.clientId }, elsewhere.cookie)).text);
    const forged = await request(app)
      .post("/auth/oidc/logout")
      .type("form")
      .set("Cookie", cookie)
      .send({ ...fields, confirm: theirs.confirm as string });
    expect(forged.status).toBe(200);
    expect(forged.text).toContain("<h1>Sign out?</h1>");
    expect(await stillSignedIn(cookie)).toBe(true);

    // A page goes on to the app, not a redirect: a redirect answering the form's post would be held
    // by the host's form-action (test/security/logout-confirmation-submits-on-every-host).
    const confirmed = await request(app).post("/auth/oidc/logout").type("form").set("Cookie", cookie).send(fields);
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers.location).toBeUndefined();
    expect(confirmed.headers["cache-control"]).toBe("private, no-store");
    expect(confirmed.text).toContain(`<meta http-equiv="refresh" content="0; url=${BACK}?state=x">`);
    expect(confirmed.text).toContain(`<a class="button primary" href="${BACK}?state=x">Back to Calendar sync</a>`);
    expect(await stillSignedIn(cookie)).toBe(false);
    expect(await stillSignedIn(elsewhere.cookie)).toBe(true);
  });

  it("asks first when the hint names someone else than the person signed in", async () => {
    const { idToken } = await signedIn();
    const { cookie } = await signedIn();
    const res = await logout({ id_token_hint: idToken, post_logout_redirect_uri: BACK }, cookie);
    expect(res.status).toBe(200);
    expect(res.text).toContain("<h1>Sign out?</h1>");
    expect(await stillSignedIn(cookie)).toBe(true);
  });

  it("never sends the browser to an address the client did not register, nor to one with no client named", async () => {
    const { cookie, idToken } = await signedIn();
    const refused: Array<Record<string, string>> = [
      { id_token_hint: idToken, post_logout_redirect_uri: "https://evil.example/" },
      { client_id: client.clientId, post_logout_redirect_uri: `${BACK}/more` },
      { client_id: other.clientId, post_logout_redirect_uri: BACK },
      { post_logout_redirect_uri: BACK },
    ];
    for (const params of refused) {
      const res = await logout(params, cookie);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
    }
    expect(await stillSignedIn(cookie)).toBe(true);
  });

  it("refuses a hint that is not an ID token of its own, or whose audience is not the client named", async () => {
    const { cookie, idToken } = await signedIn();
    const [head, body, signature] = idToken.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Record<string, unknown>;
    const tampered = `${head}.${Buffer.from(JSON.stringify({ ...claims, sub: "someone" })).toString("base64url")}.${signature}`;
    const session = cookie.slice("__session=".length);
    for (const hint of [tampered, session, "not-a-token"]) {
      const res = await logout({ id_token_hint: hint }, cookie);
      expect(res.status).toBe(400);
      expect(res.text).toContain("id_token_hint is not an ID token this provider issued");
    }
    const mismatch = await logout({ id_token_hint: idToken, client_id: other.clientId }, cookie);
    expect(mismatch.status).toBe(400);
    expect(await stillSignedIn(cookie)).toBe(true);
  });

  it("sends a request without the sign-in's cookie once to the identity host, which lets it go on with nothing to end", async () => {
    const { idToken } = await signedIn();
    const first = await logout({ id_token_hint: idToken, post_logout_redirect_uri: BACK, state: "s" });
    expect(first.status).toBe(303);
    const there = new URL(first.headers.location as string);
    expect(`${there.origin}${there.pathname}`).toBe(`${ID_URL}/auth/oidc/logout`);
    expect(Object.fromEntries(there.searchParams)).toEqual({
      id_token_hint: idToken,
      post_logout_redirect_uri: BACK,
      state: "s",
      via: "issuer",
    });
    const second = await request(app).get(`${there.pathname}${there.search}`);
    expect(second.status).toBe(303);
    expect(second.headers.location).toBe(`${BACK}?state=s`);
  });

  it("says the person is signed out when no address to return to was asked", async () => {
    const { cookie, idToken } = await signedIn();
    const res = await logout({ id_token_hint: idToken }, cookie);
    expect(res.status).toBe(200);
    expect(res.text).toContain("<h1>You are signed out</h1>");
    expect(res.text).toContain(`href="${ID_URL}/"`);
    // Hosting passes the cookie's clearing only on an answer marked private.
    expect(res.headers["cache-control"]).toBe("private, no-store");
    expect(res.headers["set-cookie"]?.[0]).toMatch(/^__session=; /);
    expect(await stillSignedIn(cookie)).toBe(false);
  });
});
