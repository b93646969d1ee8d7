/** The bridges over HTTP: the list, a sign-in started at a provider, and its callback's state, person and session. */
import request from "supertest";
import type { Express } from "express";
import { MINUTE } from "../../src/clock";
import { BRIDGE_STATE_LIFETIME_MS } from "../../src/core/bridges/bridges";
import { sha256 } from "../../src/core/secrets";
import * as bridge from "../../src/routes/bridge/bridge";
import * as sessions from "../../src/routes/sessions/sessions";
import * as people from "../../src/store/people";
import { signInWithCustomToken } from "../support/auth";
import { cryptoRandom } from "../../src/random";
import { appFor, firestore, ID_URL, SERVICE_URL, testConfig, testDeps, type TestDeps } from "../support/deps";
import { startGamingProvider, type GamingProvider } from "../support/gaming-provider";

const db = firestore();
let provider: GamingProvider;

beforeAll(async () => {
  provider = await startGamingProvider();
});
afterAll(async () => {
  await provider.stop();
});
afterEach(async () => {
  await provider.setMode("normal");
});

function bridgeApp(deps: TestDeps = testDeps({ config: testConfig({ gamingEndpoint: provider.endpoint }) })): {
  deps: TestDeps;
  app: Express;
} {
  return { deps, app: appFor(bridge, deps) };
}

/** A new account number at the provider, so tests never meet each other's people. */
function account(): string {
  return String(76561190000000000n + BigInt(cryptoRandom.int(0, 1_000_000_000)));
}

/** The first Set-Cookie line that starts with `prefix`. */
function setCookieLine(setCookie: string[] | string | undefined, prefix: string): string {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const cookie = list.find((c) => c.startsWith(prefix));
  if (!cookie) throw new Error(`no ${prefix} cookie in ${JSON.stringify(list)}`);
  return cookie;
}

/** Start, as the browser does: returns the provider's address and the cookie to send back. */
async function start(app: Express, query = "") {
  const res = await request(app).get(`/auth/bridge/gaming/start${query}`);
  expect(res.status).toBe(302);
  const setCookie = setCookieLine(res.headers["set-cookie"], "__session=bridge.");
  return { location: res.headers.location as string, setCookie, cookie: setCookie.split(";")[0] as string };
}

/** The provider's answer for `who`: the callback URL it sends the browser to. */
async function atProvider(location: string, who: string): Promise<URL> {
  const res = await fetch(`${location}&account=${who}`, { redirect: "manual" });
  expect(res.status).toBe(302);
  return new URL(res.headers.get("location") as string);
}

async function callback(app: Express, to: URL, cookie: string | null) {
  const req = request(app)
    .get(to.pathname + to.search)
    .set("Accept", "application/json");
  return cookie === null ? req : req.set("Cookie", cookie);
}

/** The whole round trip for one account. */
async function signIn(app: Express, who: string, query = "") {
  const started = await start(app, query);
  return callback(app, await atProvider(started.location, who), started.cookie);
}

function expectHtml(res: request.Response, status: number, text: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^text\/html/);
  expect(res.text).toMatch(text);
}

describe("GET /auth/bridge/", () => {
  it("lists the usable bridges with where to start each; disabled ones are left out", async () => {
    const { app } = bridgeApp();
    const res = await request(app).get("/auth/bridge/");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      providers: [{ id: "gaming", label: expect.any(String), start: "/auth/bridge/gaming/start" }],
    });
  });

  it("leaves out a bridge that is not configured", async () => {
    const { app } = bridgeApp(testDeps());
    expect((await request(app).get("/auth/bridge")).body).toEqual({ providers: [] });
  });
});

describe("GET /auth/bridge/:provider/start", () => {
  it("sends the browser to the provider and sets the state cookie for /auth/bridge, ten minutes", async () => {
    const { app } = bridgeApp();
    const { location, setCookie } = await start(app);
    const to = new URL(location);
    expect(`${to.origin}${to.pathname}`).toBe(provider.endpoint);
    expect(to.searchParams.get("openid.mode")).toBe("checkid_setup");
    expect(to.searchParams.get("openid.realm")).toBe(`${SERVICE_URL}/`);
    const returnTo = new URL(to.searchParams.get("openid.return_to") as string);
    expect(`${returnTo.origin}${returnTo.pathname}`).toBe(`${SERVICE_URL}/auth/bridge/gaming/callback`);
    expect(setCookie).toMatch(/; Max-Age=600;/);
    expect(setCookie).toMatch(/; Domain=example\.test;/);
    expect(setCookie).toMatch(/; Path=\/auth\/bridge;/);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; Secure/);
    expect(setCookie).toMatch(/; SameSite=Lax/);
    // The state the provider carries is the cookie's.
    expect(setCookie.split(";")[0]).toBe(`__session=bridge.${returnTo.searchParams.get("state")}`);
  });

  it("brings the browser back to the identity host when the sign-in was started there, as Hosting forwards it", async () => {
    const { app } = bridgeApp();
    const res = await request(app).get("/auth/bridge/gaming/start").set("X-Forwarded-Host", new URL(ID_URL).host);
    const to = new URL(res.headers.location as string);
    expect(to.searchParams.get("openid.realm")).toBe(`${ID_URL}/`);
    const returnTo = new URL(to.searchParams.get("openid.return_to") as string);
    expect(`${returnTo.origin}${returnTo.pathname}`).toBe(`${ID_URL}/auth/bridge/gaming/callback`);
    // And the sign-in completes there: the provider's assertion names that address, and the callback checks it.
    const cookie = setCookieLine(res.headers["set-cookie"], "__session=bridge.").split(";")[0] as string;
    const done = await callback(app, await atProvider(res.headers.location as string, account()), cookie);
    expect(done.status).toBe(302);
    expect(new URL(done.headers.location as string).searchParams.get("customToken")).toEqual(expect.any(String));
  });

  it("brings the browser back to the service's own address from any other host", async () => {
    const { app } = bridgeApp();
    const res = await request(app).get("/auth/bridge/gaming/start").set("X-Forwarded-Host", "elsewhere.test");
    const returnTo = new URL(new URL(res.headers.location as string).searchParams.get("openid.return_to") as string);
    expect(returnTo.origin).toBe(SERVICE_URL);
  });

  it("stores only a hash of the state", async () => {
    const { app } = bridgeApp();
    const { cookie } = await start(app);
    const state = cookie.slice("__session=bridge.".length);
    const stored = await db.collection("bridgeStates").doc(sha256(state)).get();
    expect(stored.exists).toBe(true);
    expect(JSON.stringify(stored.data())).not.toContain(state);
    expect(stored.data()).toMatchObject({ provider: "gaming", redirect: `${ID_URL}/account`, usedAt: null });
  });

  it("answers 404 with a page for a provider nobody registered, even to a JSON client", async () => {
    const { app } = bridgeApp();
    const res = await request(app).get("/auth/bridge/nobody/start").set("Accept", "application/json");
    expectHtml(res, 404, /no such sign-in provider/);
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it.each(["photo", "federated"])("answers 503 with a page for the disabled %s bridge", async (name) => {
    const { app } = bridgeApp();
    expectHtml(
      await request(app).get(`/auth/bridge/${name}/start`).set("Accept", "application/json"),
      503,
      /not available/,
    );
  });

  it("answers 503 for the gaming bridge where it is not configured", async () => {
    const { app } = bridgeApp(testDeps());
    expectHtml(await request(app).get("/auth/bridge/gaming/start"), 503, /not available/);
  });

  it.each([
    ["http on an own host", "http://startpage.example.test/"],
    ["another host", "https://evil.test/"],
    ["a look-alike host", "https://startpage.example.test.evil.test/"],
    ["an own host on another port", "https://startpage.example.test:8443/"],
    ["credentials in the address", "https://user:pw@startpage.example.test/"],
    ["a relative path", "/account"],
    ["a protocol-relative address", "//evil.test/"],
    ["javascript:", "javascript:alert(1)"],
  ])("refuses a redirect to %s with 400 and starts nothing", async (_what, redirect) => {
    const { app } = bridgeApp();
    const res = await request(app).get(`/auth/bridge/gaming/start?redirect=${encodeURIComponent(redirect)}`);
    expectHtml(res, 400, /not allowed/);
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("refuses a repeated redirect parameter", async () => {
    const { app } = bridgeApp();
    expectHtml(
      await request(app).get(
        "/auth/bridge/gaming/start?redirect=https://startpage.example.test/&redirect=https://evil.test/",
      ),
      400,
      /not allowed/,
    );
  });
});

describe("GET /auth/bridge/:provider/callback", () => {
  it("creates a pending person and sends the browser to the identity host with a custom token and the redirect", async () => {
    const { app } = bridgeApp();
    const who = account();
    const res = await signIn(app, who, `?redirect=${encodeURIComponent("https://startpage.example.test/inbox?x=1")}`);
    expect(res.status).toBe(302);
    const to = new URL(res.headers.location as string);
    expect(`${to.origin}${to.pathname}`).toBe(`${ID_URL}/`);
    expect(to.searchParams.get("redirect")).toBe("https://startpage.example.test/inbox?x=1");
    const person = await people.findByUid(db, `gaming:${who}`);
    expect(person).toMatchObject({ status: "pending", role: "user", projects: [], uids: [`gaming:${who}`] });
    // The custom token signs in as that account at the identity provider.
    const idToken = await signInWithCustomToken(to.searchParams.get("customToken") as string);
    const verified = await testDeps().identity.verifyIdToken(idToken, false);
    expect(verified?.uid).toBe(`gaming:${who}`);
    // Another provider vouched for the person (RFC 8176 fed).
    expect(verified?.amr).toEqual(["fed"]);
  });

  it("defaults the redirect to the identity host's account page", async () => {
    const { app } = bridgeApp();
    const res = await signIn(app, account());
    expect(new URL(res.headers.location as string).searchParams.get("redirect")).toBe(`${ID_URL}/account`);
  });

  it("clears the state cookie with the attributes it was set with", async () => {
    const { app } = bridgeApp();
    const res = await signIn(app, account());
    const cleared = setCookieLine(res.headers["set-cookie"], "__session=");
    expect(cleared).toMatch(/^__session=; Domain=example\.test; Path=\/auth\/bridge; Expires=Thu, 01 Jan 1970/);
  });

  it("lets sign-ins started in two tabs of one browser both finish, in either order", async () => {
    const { app } = bridgeApp();
    const first = await start(app);
    // The second tab's start is sent the first tab's cookie, as a browser sends it.
    const second = await request(app).get("/auth/bridge/gaming/start").set("Cookie", first.cookie);
    const both = setCookieLine(second.headers["set-cookie"], "__session=bridge.").split(";")[0] as string;
    const stateOf = (location: string) =>
      new URL(new URL(location).searchParams.get("openid.return_to") as string).searchParams.get("state");
    expect(both).toBe(`__session=bridge.${stateOf(second.headers.location as string)}.${stateOf(first.location)}`);

    const firstDone = await callback(app, await atProvider(first.location, account()), both);
    expect(firstDone.status).toBe(302);
    // The first tab's state leaves the cookie; the second's stays for its own callback.
    const left = setCookieLine(firstDone.headers["set-cookie"], "__session=bridge.").split(";")[0] as string;
    expect(left).toBe(`__session=bridge.${stateOf(second.headers.location as string)}`);
    const secondDone = await callback(app, await atProvider(second.headers.location as string, account()), left);
    expect(secondDone.status).toBe(302);
    expect(setCookieLine(secondDone.headers["set-cookie"], "__session=")).toMatch(/^__session=; /);
  });

  it("keeps the three newest sign-ins pending in one browser; an older one must start again", async () => {
    const { app } = bridgeApp();
    const oldest = await start(app);
    let cookie = oldest.cookie;
    for (let i = 0; i < 3; i++) {
      const next = await request(app).get("/auth/bridge/gaming/start").set("Cookie", cookie);
      cookie = setCookieLine(next.headers["set-cookie"], "__session=bridge.").split(";")[0] as string;
    }
    expect(cookie.slice("__session=bridge.".length).split(".")).toHaveLength(3);
    expectHtml(
      await callback(app, await atProvider(oldest.location, account()), cookie),
      400,
      /expired or was not started here/,
    );
  });

  it("leaves the cookie alone when a callback brings back a state it does not hold", async () => {
    const { app } = bridgeApp();
    const mine = await start(app);
    const someoneElses = await start(app);
    const res = await callback(app, await atProvider(someoneElses.location, account()), mine.cookie);
    expectHtml(res, 400, /expired or was not started here/);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect((await callback(app, await atProvider(mine.location, account()), mine.cookie)).status).toBe(302);
  });

  it("finds the same person on the next sign-in, and an approved one stays approved", async () => {
    const { app } = bridgeApp();
    const who = account();
    expect((await signIn(app, who)).status).toBe(302);
    const first = await people.findByUid(db, `gaming:${who}`);
    await db
      .collection("people")
      .doc(first?.id as string)
      .update({ status: "approved" });
    expect((await signIn(app, who)).status).toBe(302);
    const matches = await db.collection("people").where("uids", "array-contains", `gaming:${who}`).get();
    expect(matches.size).toBe(1);
    expect(matches.docs[0]?.data().status).toBe("approved");
  });

  it("opens a session through POST /auth/verify only once the person is approved", async () => {
    const deps = testDeps({ config: testConfig({ gamingEndpoint: provider.endpoint }) });
    const { app } = bridgeApp(deps);
    const sessionsApp = appFor(sessions, deps);
    const who = account();
    const token = async () =>
      signInWithCustomToken(
        new URL((await signIn(app, who)).headers.location as string).searchParams.get("customToken") as string,
      );
    const pending = await request(sessionsApp)
      .post("/auth/verify")
      .send({ idToken: await token(), project: "startpage" });
    expect(pending.status).toBe(200);
    expect(pending.body).toEqual({ approved: false, reason: "pending" });
    expect(pending.headers["set-cookie"]).toBeUndefined();
    const person = await people.findByUid(db, `gaming:${who}`);
    await db
      .collection("people")
      .doc(person?.id as string)
      .update({ status: "approved", projects: ["startpage"] });
    const approved = await request(sessionsApp)
      .post("/auth/verify")
      .send({ idToken: await token(), project: "startpage" });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ approved: true });
  });

  it("makes one person of two first sign-ins of one account at once", async () => {
    const { app } = bridgeApp();
    const who = account();
    const results = await Promise.all(Array.from({ length: 5 }, () => signIn(app, who)));
    expect(results.map((r) => r.status)).toEqual([302, 302, 302, 302, 302]);
    const matches = await db.collection("people").where("uids", "array-contains", `gaming:${who}`).get();
    expect(matches.size).toBe(1);
  });

  describe("state", () => {
    it("refuses a callback without the state cookie with 400", async () => {
      const { app } = bridgeApp();
      const started = await start(app);
      expectHtml(await callback(app, await atProvider(started.location, account()), null), 400, /start again/);
    });

    it("refuses a state that is not the cookie's with 400", async () => {
      const { app } = bridgeApp();
      const mine = await start(app);
      const theirs = await start(app);
      // Login CSRF: someone else's finished sign-in, delivered to my browser.
      expectHtml(await callback(app, await atProvider(theirs.location, account()), mine.cookie), 400, /start again/);
    });

    it("refuses an altered state with 400", async () => {
      const { app } = bridgeApp();
      const started = await start(app);
      const to = await atProvider(started.location, account());
      to.searchParams.set("state", `${to.searchParams.get("state")}x`);
      expectHtml(await callback(app, to, `${started.cookie}x`), 400, /start again/);
    });

    it("honours a state for ten minutes and not after", async () => {
      const { deps, app } = bridgeApp();
      const early = await start(app);
      const late = await start(app);
      deps.clock.advance(BRIDGE_STATE_LIFETIME_MS - 1);
      expect((await callback(app, await atProvider(early.location, account()), early.cookie)).status).toBe(302);
      deps.clock.advance(1);
      expectHtml(await callback(app, await atProvider(late.location, account()), late.cookie), 400, /start again/);
      expect(BRIDGE_STATE_LIFETIME_MS).toBe(10 * MINUTE);
    });

    it("uses a state once, also when the callback is replayed at the same moment", async () => {
      const { app } = bridgeApp();
      const started = await start(app);
      const to = await atProvider(started.location, account());
      const results = await Promise.all(Array.from({ length: 10 }, () => callback(app, to, started.cookie)));
      expect(results.filter((r) => r.status === 302)).toHaveLength(1);
      expect(results.filter((r) => r.status === 400)).toHaveLength(9);
      const state = started.cookie.slice("__session=bridge.".length);
      expect((await db.collection("bridgeStates").doc(sha256(state)).get()).data()?.usedAt).not.toBeNull();
    });

    it("refuses a state started for another bridge", async () => {
      const { app } = bridgeApp();
      const started = await start(app);
      const to = await atProvider(started.location, account());
      // The stored state names another bridge than the callback it comes back to.
      const stored = sha256(started.cookie.slice("__session=bridge.".length));
      await db.collection("bridgeStates").doc(stored).update({ provider: "federated" });
      expectHtml(await callback(app, to, started.cookie), 400, /start again/);
    });
  });

  describe("the provider's word", () => {
    it("answers 401 when the person cancels at the provider", async () => {
      const { app } = bridgeApp();
      const started = await start(app);
      expectHtml(
        await callback(app, await atProvider(started.location, "cancel"), started.cookie),
        401,
        /did not confirm/,
      );
    });

    it("answers 401 when the provider says the assertion is not valid", async () => {
      const { app } = bridgeApp();
      await provider.setMode("refuse");
      expectHtml(await signIn(app, account()), 401, /did not confirm/);
    });

    it("answers 401 for an assertion altered on the way (another account number)", async () => {
      const { app } = bridgeApp();
      const started = await start(app);
      const to = await atProvider(started.location, account());
      const other = (to.searchParams.get("openid.claimed_id") as string).replace(/\d+$/, "76561190000000042");
      to.searchParams.set("openid.claimed_id", other);
      to.searchParams.set("openid.identity", other);
      const checks = (await provider.stats()).checks;
      expectHtml(await callback(app, to, started.cookie), 401, /did not confirm/);
      expect((await provider.stats()).checks).toBe(checks + 1);
      expect(await people.findByUid(db, "gaming:76561190000000042")).toBeNull();
    });

    it("answers 401 for an assertion made for another return address", async () => {
      const { app } = bridgeApp();
      const started = await start(app);
      const to = await atProvider(started.location, account());
      to.searchParams.set("openid.return_to", "https://evil.test/callback");
      expectHtml(await callback(app, to, started.cookie), 401, /did not confirm/);
    });

    it("answers 401 for an assertion from another provider endpoint", async () => {
      const { app } = bridgeApp();
      const started = await start(app);
      const to = await atProvider(started.location, account());
      to.searchParams.set("openid.op_endpoint", "https://evil.test/openid/login");
      const checks = (await provider.stats()).checks;
      expectHtml(await callback(app, to, started.cookie), 401, /did not confirm/);
      // Refused before anyone was asked: the endpoint it names is not ours to call.
      expect((await provider.stats()).checks).toBe(checks);
    });

    it("answers 401 for an assertion the provider already confirmed once", async () => {
      const { app } = bridgeApp();
      const first = await start(app);
      const to = await atProvider(first.location, account());
      expect((await callback(app, to, first.cookie)).status).toBe(302);
      // A fresh state of my own, with the old assertion moved onto it: the provider's nonce is spent.
      const second = await start(app);
      const state = second.cookie.slice("__session=bridge.".length);
      const replay = new URL(to);
      replay.searchParams.set("state", state);
      const returnTo = new URL(replay.searchParams.get("openid.return_to") as string);
      returnTo.searchParams.set("state", state);
      replay.searchParams.set("openid.return_to", returnTo.toString());
      expectHtml(await callback(app, replay, second.cookie), 401, /did not confirm/);
    });

    it("answers 502 when the provider confirms a sign-in without an account number", async () => {
      const { app } = bridgeApp();
      await provider.setMode("no-id");
      expectHtml(await signIn(app, account()), 502, /did not say which account/);
    });

    it("answers 500 with a page within its own timeout when the provider does not answer", async () => {
      const { app } = bridgeApp();
      await provider.setMode("hang");
      const checks = (await provider.stats()).checks;
      const res = await signIn(app, account());
      // Our timeout (5 s), not the request deadline's 503, answered it.
      expectHtml(res, 500, /could not be reached/);
      expect((await provider.stats()).checks).toBe(checks + 1);
    });
  });

  it("answers 404 for an unknown provider and 503 for a disabled one", async () => {
    const { app } = bridgeApp();
    expectHtml(await request(app).get("/auth/bridge/nobody/callback"), 404, /no such sign-in provider/);
    expectHtml(await request(app).get("/auth/bridge/photo/callback"), 503, /not available/);
  });
});
