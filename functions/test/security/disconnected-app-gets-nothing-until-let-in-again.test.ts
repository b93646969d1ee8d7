/**
 * Disconnecting an app on /account lasts: until the person lets it in again on the identity
 * host's page, the authorise endpoint gives it no code for them without asking (a silent
 * `prompt=none` hears `consent_required`), whatever session they hold, a newer one included; and
 * what it held beside its grants (an access token, a code not yet redeemed) is good no more.
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import { MINUTE } from "../../src/clock";
import { registerClient } from "../../src/core/oidc/clients";
import * as oidc from "../../src/routes/oidc/oidc";
import * as peopleRoutes from "../../src/routes/people/people";
import { codeFlowTokens } from "../support/code-flow";
import { appFor, ID_URL, testDeps, unique } from "../support/deps";
import { accountWithPerson, recordedSession } from "../support/people";

const REDIRECT = "https://app.example.test/callback";
const ID_HOST = new URL(ID_URL).host;

describe("an app the person disconnected", () => {
  const deps = testDeps();
  const oidcApp = appFor(oidc, deps);
  const peopleApp = appFor(peopleRoutes, deps);
  const client = { clientId: unique("cut"), clientSecret: randomBytes(32).toString("base64url") };

  beforeAll(async () => {
    await registerClient(deps, {
      ...client,
      name: "Calendar sync",
      redirectUris: [REDIRECT],
      grantTypes: ["authorization_code", "refresh_token"],
    });
  });

  async function connected() {
    const { person } = await accountWithPerson({ name: "Disconnecting" });
    const { cookie } = await recordedSession(deps, person);
    const tokens = await codeFlowTokens(oidcApp, cookie, client, { scope: "openid email", redirectUri: REDIRECT });
    return { person, cookie, tokens };
  }

  async function disconnect(cookie: string): Promise<void> {
    const res = await request(peopleApp)
      .delete(`/auth/account/apps/${encodeURIComponent(client.clientId)}`)
      .set("Cookie", cookie)
      .set("Origin", new URL(ID_URL).origin);
    expect(res.status).toBe(200);
  }

  const verifier = randomBytes(32).toString("base64url");
  const query = (extra: Record<string, string> = {}) =>
    new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid",
      state: "s",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      ...extra,
    });

  /** The authorise request, on the service's host or (as Hosting forwards it) the identity host's. */
  const authorize = (cookie: string, extra: Record<string, string> = {}, host?: string) => {
    const req = request(oidcApp)
      .get(`/auth/oidc/authorize?${query(extra)}`)
      .set("Cookie", cookie);
    return host === undefined ? req : req.set("X-Forwarded-Host", host);
  };

  const codeIn = (location: string | undefined) =>
    location === undefined ? null : new URL(location).searchParams.get("code");

  /** The page's form fields. */
  function formOf(html: string): Record<string, string> {
    const fields: Record<string, string> = {};
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      fields[m[1] as string] = (m[2] as string).replace(/&amp;/g, "&").replace(/&quot;/g, '"');
    return fields;
  }

  const redeem = (code: string) =>
    request(oidcApp)
      .post("/auth/oidc/token")
      .type("form")
      .auth(client.clientId, client.clientSecret)
      .send({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier });

  it("gets no code from a silent authorise, from this session or a newer one", async () => {
    const { person, cookie } = await connected();
    await disconnect(cookie);

    const silent = await authorize(cookie, { prompt: "none" });
    expect(silent.status).toBe(302);
    const told = new URL(silent.headers.location as string);
    expect(`${told.origin}${told.pathname}`).toBe(REDIRECT);
    expect(told.searchParams.get("error")).toBe("consent_required");
    expect(told.searchParams.get("state")).toBe("s");
    expect(codeIn(silent.headers.location)).toBeNull();

    // Without prompt=none: sent to ask on the identity host, which asks; no code either way.
    const plain = await authorize(cookie);
    expect(plain.status).toBe(302);
    expect(plain.headers.location).toMatch(new RegExp(`^${ID_URL}/auth/oidc/authorize\\?`));
    expect(codeIn(plain.headers.location)).toBeNull();
    const there = await authorize(cookie, {}, ID_HOST);
    expect(there.status).toBe(200);
    expect(there.text).toContain("<h1>Let Calendar sync sign you in again?</h1>");
    expect(there.headers.location).toBeUndefined();

    // A new sign-in elsewhere is not the person's yes to this app.
    deps.clock.advance(10 * MINUTE);
    const { cookie: newer } = await recordedSession(deps, person);
    const fresh = await authorize(newer, { prompt: "none" });
    expect(new URL(fresh.headers.location as string).searchParams.get("error")).toBe("consent_required");
  });

  it("is let in again only by the person's press on the page, from this browser", async () => {
    const { person, cookie } = await connected();
    await disconnect(cookie);
    const fields = formOf((await authorize(cookie, {}, ID_HOST)).text);
    expect(fields).toMatchObject({ client_id: client.clientId, redirect_uri: REDIRECT, state: "s" });

    // The page another browser of theirs was shown lets nothing in here.
    const { cookie: other } = await recordedSession(deps, person);
    const theirs = formOf((await authorize(other, {}, ID_HOST)).text);
    const forged = await request(oidcApp)
      .post("/auth/oidc/authorize")
      .type("form")
      .set("Cookie", cookie)
      .set("X-Forwarded-Host", ID_HOST)
      .send({ ...fields, reconnect: theirs.reconnect as string });
    expect(forged.status).toBe(200);
    expect(forged.text).toContain("<h1>Let Calendar sync sign you in again?</h1>");
    expect(forged.text).not.toContain("code=");

    const pressed = await request(oidcApp)
      .post("/auth/oidc/authorize")
      .type("form")
      .set("Cookie", cookie)
      .set("X-Forwarded-Host", ID_HOST)
      .send(fields);
    expect(pressed.status).toBe(200);
    const onward = /<meta http-equiv="refresh" content="0; url=([^"]+)">/.exec(pressed.text)?.[1] as string;
    const back = new URL(onward.replace(/&amp;/g, "&"));
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect((await redeem(back.searchParams.get("code") as string)).status).toBe(200);

    // Let in again, it signs them in silently as before, in either browser.
    expect(codeIn((await authorize(other, { prompt: "none" })).headers.location)).not.toBeNull();
  });

  it("keeps neither the access token it held nor a code it had yet to redeem", async () => {
    const { cookie, tokens } = await connected();
    const userinfo = () =>
      request(oidcApp).get("/auth/oidc/userinfo").set("Authorization", `Bearer ${tokens.access_token}`);
    expect((await userinfo()).status).toBe(200);
    const pending = codeIn((await authorize(cookie)).headers.location) as string;
    expect(pending).not.toBeNull();

    await disconnect(cookie);
    expect((await userinfo()).status).toBe(401);
    const late = await redeem(pending);
    expect(late.status).toBe(400);
    expect(late.body.error).toBe("invalid_grant");
  });
});
