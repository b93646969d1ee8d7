/**
 * Apps that sign people in through the identity host, in a real browser: an OpenID Connect
 * relying party whose signed-out person signs in on the pages and comes back with a code, and
 * a desktop app handed the person by a single-use exchange code; with a pointer, the keyboard
 * alone and on a phone's screen.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHash, randomBytes } from "node:crypto";
import { decodeJwt } from "jose";
import { registerClient } from "../src/core/oidc/clients";
import { signInWithCustomToken } from "./support/auth";
import { ID_HOST, openSessionIn, useBrowserWorld } from "./support/browser";
import { auth, testDeps, unique } from "./support/deps";
import { codeFor } from "./support/inbox";
import { personFor } from "./support/people";
import { MODES, sessionCookie, useJourneys } from "./support/visitor";

const base = process.env.STACK_BASE_URL as string;
/** A loopback server standing in for the relying party's callback and the desktop app's. */
let app: Server;
let appUrl: string;
const arrivals: URL[] = [];

const world = useBrowserWorld();

beforeAll(async () => {
  app = createServer((req, res) => {
    arrivals.push(new URL(req.url ?? "/", appUrl));
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The app</title></head><body><main><h1>Back at the app</h1></main></body></html>',
      );
  });
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
});
afterAll(async () => {
  app.closeAllConnections();
  await new Promise<void>((resolve) => app.close(() => resolve()));
});

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

async function arrivalAt(path: string): Promise<URL> {
  for (let waited = 0; waited < 15000; waited += 50) {
    const found = arrivals.find((u) => u.pathname === path);
    if (found) {
      arrivals.splice(arrivals.indexOf(found), 1);
      return found;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing arrived at ${path}`);
}

describe.each(MODES)("apps signing people in through the identity host, %s", (mode) => {
  const t = useJourneys(world, mode);

  /** From the sign-in page to the end of an email-code sign-in. */
  async function signInByCode(email: string): Promise<void> {
    await t.visitor.reaches("Sign in");
    await t.visitor.fill("Email address", email);
    await t.visitor.press("Email me a code");
    await t.visitor.reaches("Check your email");
    await t.visitor.fill("Code from the email", await codeFor(email));
    await t.visitor.press("Sign in");
  }

  async function client() {
    const registered = { clientId: unique("rp"), clientSecret: randomBytes(32).toString("base64url") };
    await registerClient(testDeps(), { ...registered, name: "Journey RP", redirectUris: [`${appUrl}/callback`] });
    return registered;
  }

  function authorizeUrl(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
    const q = new URLSearchParams({
      client_id: clientId,
      redirect_uri: `${appUrl}/callback`,
      response_type: "code",
      scope: "openid email profile",
      state: "rp-state",
      nonce: "rp-nonce",
      code_challenge: challenge,
      code_challenge_method: "S256",
      ...extra,
    });
    return `${base}/auth/oidc/authorize?${q}`;
  }

  async function redeem(rp: { clientId: string; clientSecret: string }, code: string, verifier: string) {
    const res = await fetch(`${base}/auth/oidc/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${rp.clientId}:${rp.clientSecret}`).toString("base64")}`,
      },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: `${appUrl}/callback`,
        code_verifier: verifier,
      }),
    });
    expect(res.status).toBe(200);
    return decodeJwt(((await res.json()) as { id_token: string }).id_token);
  }

  it("brings a signed-out person from a relying party's authorise request through sign-in and back with a code", async () => {
    t.name = "oidc-sign-in";
    const rp = await client();
    const email = `${unique("rp")}@example.test`;
    const person = await personFor({ uid: unique("uid"), email }, { name: "RP Person" });
    const { verifier, challenge } = pkce();
    await t.page.goto(authorizeUrl(rp.clientId, challenge));
    await signInByCode(email);
    const back = await arrivalAt("/callback");
    expect(back.searchParams.get("state")).toBe("rp-state");
    const claims = await redeem(rp, back.searchParams.get("code") as string, verifier);
    expect(claims).toMatchObject({ sub: person.id, email, nonce: "rp-nonce" });
  });

  it("makes a person who is signed in authenticate afresh for prompt=login", async () => {
    t.name = "oidc-prompt-login";
    const rp = await client();
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
    await t.page.goto(authorizeUrl(rp.clientId, challenge, { prompt: "login" }));
    // The sign-in form, not "you're already signed in": the held sign-in is not reused.
    await signInByCode(email);
    const back = await arrivalAt("/callback");
    const claims = await redeem(rp, back.searchParams.get("code") as string, verifier);
    expect(Number(claims.auth_time)).toBeGreaterThanOrEqual(asked);
    expect(await sessionCookie(t.page)).not.toBe(held);
  });

  it("hands a signed-out person to a desktop app by a single-use code, after sign-in and their yes", async () => {
    t.name = "handoff";
    const email = `${unique("desk")}@example.test`;
    const person = await personFor({ uid: unique("uid"), email }, { name: "Desk Person" });
    const { verifier, challenge } = pkce();
    const q = new URLSearchParams({
      app: "local-desktop",
      redirect_uri: `${appUrl}/handoff`,
      state: "desk-state",
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    await t.page.goto(`${ID_HOST}/handoff?${q}`);
    await t.visitor.reaches("Sign in to continue to Local desktop app");
    await t.visitor.press("Sign in");
    await signInByCode(email);
    await t.visitor.reaches("Continue to Local desktop app?");
    await t.visitor.screenshot("handoff-asked");
    await t.visitor.press("Continue to Local desktop app");
    const back = await arrivalAt("/handoff");
    expect(back.searchParams.get("state")).toBe("desk-state");
    const res = await fetch(`${base}/auth/exchange`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: back.searchParams.get("code"), code_verifier: verifier }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ personId: person.id, email });
  });
});
