/** The federated bridge to OpenID Connect and OAuth 2.0 providers: redirect, callback checks, who signs in. */
import request from "supertest";
import type { Express } from "express";
import { createHash } from "node:crypto";
import { federatedConfig } from "../../src/config/config";
import { sha256 } from "../../src/core/secrets";
import * as bridge from "../../src/routes/bridge/bridge";
import * as people from "../../src/store/people";
import { cryptoRandom } from "../../src/random";
import { signInWithCustomToken } from "../support/auth";
import { appFor, auth, firestore, ID_URL, SERVICE_URL, testConfig, testDeps, unique } from "../support/deps";
import { hiddenFields, startFederatedProvider, type FederatedProvider } from "../support/federated-provider";
import { personFor } from "../support/people";

const db = firestore();
const CALLBACK = `${SERVICE_URL}/auth/bridge/federated/callback`;
let provider: FederatedProvider;

beforeAll(async () => {
  provider = await startFederatedProvider();
});
afterAll(async () => {
  await provider.stop();
});
afterEach(async () => {
  await provider.setMode("normal");
});

/** The bridge with `search` behind it, as the identity provider's `google.com`. */
function federatedApp(): Express {
  const federated = federatedConfig(
    JSON.stringify({ search: { issuer: provider.issuer, clientId: provider.clientId, providerId: "google.com" } }),
    JSON.stringify({ search: provider.clientSecret }),
    "test-api-key",
  );
  return appFor(bridge, testDeps({ config: testConfig({ federated }) }));
}

function stateOf(cookie: string): string {
  return cookie.slice("__session=bridge.".length).split(".")[0] as string;
}

async function start(app: Express, query = "?idp=search", host?: string) {
  const req = request(app).get(`/auth/bridge/federated/start${query}`);
  const res = await (host === undefined ? req : req.set("X-Forwarded-Host", host));
  expect(res.status).toBe(302);
  const setCookie = ([] as string[])
    .concat(res.headers["set-cookie"] ?? [])
    .find((c) => c.startsWith("__session=bridge.")) as string;
  return { location: new URL(res.headers.location as string), cookie: setCookie.split(";")[0] as string };
}

/** The person at the provider: signs in (or cancels) and is sent back with a code. */
async function atProvider(
  location: URL,
  who: { account: string; email?: string; verified?: boolean; name?: string },
): Promise<URL> {
  const url = new URL(location);
  url.searchParams.set("account", who.account);
  if (who.email !== undefined) url.searchParams.set("email", who.email);
  if (who.verified !== undefined) url.searchParams.set("email_verified", String(who.verified));
  if (who.name !== undefined) url.searchParams.set("name", who.name);
  const res = await fetch(url, { redirect: "manual" });
  expect(res.status).toBe(302);
  return new URL(res.headers.get("location") as string);
}

function callback(app: Express, to: URL, cookie: string) {
  return request(app)
    .get(to.pathname + to.search)
    .set("Cookie", cookie)
    .set("Accept", "application/json");
}

async function signIn(app: Express, who: Parameters<typeof atProvider>[1]) {
  const started = await start(app);
  return { started, res: await callback(app, await atProvider(started.location, who), started.cookie) };
}

function expectHtml(res: request.Response, status: number, text: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^text\/html/);
  expect(res.text).toMatch(text);
}

/** Where the identity host is sent, and the account its custom token signs in to. */
async function landing(res: request.Response): Promise<{ uid: string; redirect: string | null }> {
  expect(res.status).toBe(302);
  const next = new URL(res.headers.location as string);
  expect(`${next.origin}${next.pathname}`).toBe(`${ID_URL}/`);
  const idToken = await signInWithCustomToken(next.searchParams.get("customToken") as string);
  const { uid } = await auth().verifyIdToken(idToken);
  return { uid, redirect: next.searchParams.get("redirect") };
}

const someone = () => ({
  account: String(cryptoRandom.int(1, 2_000_000_000)),
  email: `${unique("fed")}@example.test`,
  name: "Fed Person",
});

describe("the federated bridge", () => {
  it("is listed once a provider is configured behind it", async () => {
    const res = await request(federatedApp()).get("/auth/bridge/");
    expect(res.body.providers).toContainEqual({
      id: "federated",
      label: expect.any(String),
      start: "/auth/bridge/federated/start",
      idps: ["search"],
    });
  });

  it("sends the browser straight to the provider idp selects, with PKCE and a nonce, and stores only the state's hash", async () => {
    const { location, cookie } = await start(federatedApp());
    expect(`${location.origin}${location.pathname}`).toBe(`${provider.issuer}/authorize`);
    const q = location.searchParams;
    expect([
      q.get("response_type"),
      q.get("client_id"),
      q.get("redirect_uri"),
      q.get("scope"),
      q.get("code_challenge_method"),
    ]).toEqual(["code", provider.clientId, CALLBACK, "openid email profile", "S256"]);
    expect(q.get("state")).toBe(stateOf(cookie));
    const stored = (
      await db
        .collection("bridgeStates")
        .doc(sha256(stateOf(cookie)))
        .get()
    ).data() as Record<string, unknown>;
    expect(stored).toMatchObject({ provider: "federated", idp: "search", nonce: q.get("nonce"), usedAt: null });
    // The challenge is for the stored verifier, which never leaves the service.
    expect(createHash("sha256").update(String(stored.codeVerifier)).digest("base64url")).toBe(q.get("code_challenge"));
    expect(location.toString()).not.toContain(String(stored.codeVerifier));
    expect(JSON.stringify(stored)).not.toContain(stateOf(cookie));
  });

  it("sends a sign-in started on the identity host back there, and redeems the code with that same redirect_uri", async () => {
    const app = federatedApp();
    const started = await start(app, "?idp=search", new URL(ID_URL).host);
    expect(started.location.searchParams.get("redirect_uri")).toBe(`${ID_URL}/auth/bridge/federated/callback`);
    const back = await atProvider(started.location, someone());
    expect(`${back.origin}${back.pathname}`).toBe(`${ID_URL}/auth/bridge/federated/callback`);
    // The provider's token endpoint refuses a redirect_uri other than the authorisation's.
    const { uid } = await landing(await callback(app, back, started.cookie));
    expect(uid).toEqual(expect.any(String));
  });

  it.each([
    ["no idp", ""],
    ["an idp the contract does not name", "?idp=elsewhere"],
    ["an idp this deployment has not configured", "?idp=codehost"],
    ["a repeated idp", "?idp=search&idp=search"],
  ])("refuses %s with a 400 page and remembers nothing", async (_, query) => {
    const res = await request(federatedApp())
      .get(`/auth/bridge/federated/start${query}`)
      .set("Accept", "application/json");
    expectHtml(res, 400, /no such sign-in option/);
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("signs a new person in as pending, through the identity provider's account linked to the provider's", async () => {
    const app = federatedApp();
    const who = someone();
    const { started, res } = await signIn(app, who);
    const { uid, redirect } = await landing(res);
    expect(redirect).toBe(`${ID_URL}/account`);
    const user = await auth().getUser(uid);
    expect(user.providerData.map((p) => [p.providerId, p.uid])).toContainEqual(["google.com", who.account]);
    const person = await people.findByUid(db, uid);
    expect(person).toMatchObject({
      status: "pending",
      emails: [who.email],
      name: who.name,
      role: "user",
      projects: [],
    });
    // The state is spent, and the verifier with it.
    const stored = (
      await db
        .collection("bridgeStates")
        .doc(sha256(stateOf(started.cookie)))
        .get()
    ).data();
    expect(stored?.usedAt).not.toBeNull();
    expect(stored?.codeVerifier).toBeNull();
  });

  it("finds the same account and person on the next sign-in", async () => {
    const app = federatedApp();
    const who = someone();
    const first = await landing((await signIn(app, who)).res);
    const second = await landing((await signIn(app, who)).res);
    expect(second.uid).toBe(first.uid);
    expect((await db.collection("people").where("uids", "array-contains", first.uid).get()).size).toBe(1);
  });

  it("links the account to the person who holds its verified address; an unverified address links to nobody", async () => {
    const app = federatedApp();
    const who = someone();
    const holder = await personFor({ uid: unique("other-uid"), email: who.email }, { status: "approved" });
    const linked = await landing((await signIn(app, who)).res);
    expect((await people.findById(db, holder.id))?.uids).toContain(linked.uid);

    const stranger = { ...someone(), email: who.email.replace("fed", "unverified") };
    const holder2 = await personFor({ uid: unique("other-uid"), email: stranger.email }, { status: "approved" });
    const notLinked = await landing((await signIn(app, { ...stranger, verified: false })).res);
    expect((await people.findById(db, holder2.id))?.uids).not.toContain(notLinked.uid);
    expect(await people.findByUid(db, notLinked.uid)).toMatchObject({ status: "pending", emails: [] });
  });

  it("answers 401 when the person cancels at the provider, or the provider refuses the code", async () => {
    const app = federatedApp();
    const cancelled = await start(app);
    expectHtml(
      await callback(app, await atProvider(cancelled.location, { account: "cancel" }), cancelled.cookie),
      401,
      /did not confirm/,
    );
    await provider.setMode("refuse");
    expectHtml((await signIn(app, someone())).res, 401, /did not confirm/);
  });

  it("answers 500 and logs it when the provider refuses our client secret", async () => {
    const federated = federatedConfig(
      JSON.stringify({ search: { issuer: provider.issuer, clientId: provider.clientId, providerId: "google.com" } }),
      JSON.stringify({ search: "not-the-secret" }),
      "test-api-key",
    );
    const deps = testDeps({ config: testConfig({ federated }) });
    const lines: string[] = [];
    deps.log = {
      ...deps.log,
      warn: (message: string, fields?: Record<string, unknown>) =>
        void lines.push(`${message} ${JSON.stringify(fields)}`),
    };
    const app = appFor(bridge, deps);
    expectHtml((await signIn(app, someone())).res, 500, /could not be reached/);
    expect(lines.join("\n")).toMatch(/invalid_client/);
    expect(lines.join("\n")).not.toContain("not-the-secret");
  });

  it.each([
    ["signed with a key the provider does not publish", "bad-signature"],
    ["issued for another sign-in (nonce)", "wrong-nonce"],
    ["for two audiences, issued to the other client (azp)", "other-azp"],
  ] as const)("answers 401 for an ID token %s, and signs nobody in", async (_, mode) => {
    const app = federatedApp();
    await provider.setMode(mode);
    const who = someone();
    expectHtml((await signIn(app, who)).res, 401, /did not confirm/);
    await expect(auth().getUserByProviderUid("google.com", who.account)).rejects.toMatchObject({
      code: "auth/user-not-found",
    });
  });

  it("answers 401 for an answer that names another issuer than the provider this sign-in went to", async () => {
    const app = federatedApp();
    const started = await start(app);
    const to = await atProvider(started.location, someone());
    expect(to.searchParams.get("iss")).toBe(provider.issuer);
    to.searchParams.set("iss", "https://elsewhere.example.test");
    expectHtml(await callback(app, to, started.cookie), 401, /did not confirm/);
  });

  it("answers 502 when the provider's ID token names no account", async () => {
    await provider.setMode("no-sub");
    expectHtml((await signIn(federatedApp(), someone())).res, 502, /did not say which account/);
  });

  it("answers 500 within its timeout when the provider does not answer", async () => {
    await provider.setMode("hang");
    const before = (await provider.stats()).tokens;
    const { res } = await signIn(federatedApp(), someone());
    expectHtml(res, 500, /could not be reached/);
    // The provider was asked, and held the request until the callback gave up on it.
    expect((await provider.stats()).tokens).toBe(before + 1);
  }, 15000);

  it("redeems a callback once, also when it is replayed at the same moment", async () => {
    const app = federatedApp();
    const started = await start(app);
    const to = await atProvider(started.location, someone());
    const results = await Promise.all(Array.from({ length: 8 }, () => callback(app, to, started.cookie)));
    expect(results.filter((r) => r.status === 302)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(7);
    expect((await provider.stats()).tokens).toBeGreaterThan(0);
  });

  it("answers 401 for a callback with neither a code nor an error", async () => {
    const app = federatedApp();
    const started = await start(app);
    const to = new URL(CALLBACK);
    to.searchParams.set("state", stateOf(started.cookie));
    expectHtml(await callback(app, to, started.cookie), 401, /did not confirm/);
  });
});

describe("the federated bridge to a plain OAuth 2.0 provider (no ID tokens)", () => {
  function codehostApp(): Express {
    const row = {
      authorizationEndpoint: `${provider.issuer}/authorize`,
      tokenEndpoint: `${provider.issuer}/token`,
      clientId: provider.clientId,
      providerId: "github.com",
      scope: "read:user user:email",
    };
    const federated = federatedConfig(
      JSON.stringify({ codehost: row }),
      JSON.stringify({ codehost: provider.clientSecret }),
      "test-api-key",
    );
    return appFor(bridge, testDeps({ config: testConfig({ federated }) }));
  }

  it("sends the browser with PKCE and the configured scope, and no nonce", async () => {
    const { location } = await start(codehostApp(), "?idp=codehost");
    expect(`${location.origin}${location.pathname}`).toBe(`${provider.issuer}/authorize`);
    expect([
      location.searchParams.get("scope"),
      location.searchParams.get("code_challenge_method"),
      location.searchParams.get("nonce"),
    ]).toEqual(["read:user user:email", "S256", null]);
  });

  it("signs a new person in as pending through the identity provider, which takes the access token", async () => {
    const app = codehostApp();
    const who = someone();
    const started = await start(app, "?idp=codehost");
    const { uid } = await landing(await callback(app, await atProvider(started.location, who), started.cookie));
    const user = await auth().getUser(uid);
    expect(user.providerData.map((p) => [p.providerId, p.uid])).toContainEqual(["github.com", who.account]);
    // A provider ARRIVAL_PROVIDERS does not name: its address is a claim for the reviewer, held by nobody.
    expect(await people.findByUid(db, uid)).toMatchObject({
      status: "pending",
      emails: [],
      origin: { provider: "github.com", claimedAddress: who.email },
    });
  });

  it("answers 401 when the provider refuses the code", async () => {
    const app = codehostApp();
    await provider.setMode("refuse");
    const started = await start(app, "?idp=codehost");
    expectHtml(
      await callback(app, await atProvider(started.location, someone()), started.cookie),
      401,
      /did not confirm/,
    );
  });
});

describe("the federated bridge to a provider answering by form_post (a device maker's)", () => {
  /** The same provider as the device maker's idp (`apple.com` at the identity provider), answering by POST. */
  function devicemakerApp(): Express {
    const federated = federatedConfig(
      JSON.stringify({
        devicemaker: {
          issuer: provider.issuer,
          clientId: provider.clientId,
          providerId: "apple.com",
          scope: "openid name email",
          responseMode: "form_post",
        },
      }),
      JSON.stringify({ devicemaker: provider.clientSecret }),
      "test-api-key",
    );
    return appFor(bridge, testDeps({ config: testConfig({ federated }) }));
  }

  /** The provider's auto-submitting page: the fields it POSTs to the callback. */
  async function formAtProvider(location: URL, who: Parameters<typeof atProvider>[1]): Promise<URLSearchParams> {
    const url = new URL(location);
    url.searchParams.set("account", who.account);
    if (who.email !== undefined) url.searchParams.set("email", who.email);
    if (who.name !== undefined) url.searchParams.set("name", who.name);
    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain(`action="${CALLBACK}"`);
    return hiddenFields(page);
  }

  /**
   * The provider's POST, from its own site as a browser sends it: with the provider's Origin
   * (which the Origin rule must let through here), and without our SameSite=Lax cookie.
   */
  function post(app: Express, fields: URLSearchParams) {
    return request(app)
      .post("/auth/bridge/federated/callback")
      .set("Origin", "https://appleid.devicemaker.example")
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send(fields.toString());
  }

  /** Where the POST is passed on to: the GET callback on this same origin. */
  function onward(res: request.Response): URL {
    expect(res.status).toBe(303);
    const to = new URL(res.headers.location as string, SERVICE_URL);
    expect(`${to.origin}${to.pathname}`).toBe(CALLBACK);
    return to;
  }

  const relayed = () => ({ ...someone(), email: `${unique("relay")}@privaterelay.appleid.test` });

  it("asks the provider for response_mode=form_post", async () => {
    const { location } = await start(devicemakerApp(), "?idp=devicemaker");
    expect([location.searchParams.get("response_mode"), location.searchParams.get("scope")]).toEqual([
      "form_post",
      "openid name email",
    ]);
  });

  it("takes the POSTed answer by way of a GET on its own origin, which carries the state cookie, and signs the person in", async () => {
    const app = devicemakerApp();
    const who = relayed();
    const started = await start(app, "?idp=devicemaker");
    const fields = await formAtProvider(started.location, who);
    // The first sign-in's `user` field carries the name; it is not passed on into an address.
    expect(JSON.parse(fields.get("user") as string)).toMatchObject({ name: { firstName: "Fed", lastName: "Person" } });
    const posted = await post(app, fields);
    const to = onward(posted);
    expect(posted.headers["set-cookie"]).toBeUndefined();
    expect([to.searchParams.get("user"), to.searchParams.get("state")]).toEqual([null, stateOf(started.cookie)]);
    // Nothing is used up by the POST: the state is still pending until the GET.
    const before = (
      await db
        .collection("bridgeStates")
        .doc(sha256(stateOf(started.cookie)))
        .get()
    ).data();
    expect(before?.usedAt).toBeNull();
    const done = await callback(app, to, started.cookie);
    expect(done.headers["set-cookie"]?.[0]).toMatch(/^__session=; Domain=example\.test; Path=\/auth\/bridge;/);
    const { uid } = await landing(done);
    const user = await auth().getUser(uid);
    expect(user.providerData.map((p) => [p.providerId, p.uid])).toContainEqual(["apple.com", who.account]);
    // The provider's token carries no name: the person's comes from `user`.
    expect(await people.findByUid(db, uid)).toMatchObject({
      status: "pending",
      emails: [who.email],
      name: "Fed Person",
    });
  });

  it("keeps a posted name only as text, for a new person, and signs in without one that is not the expected JSON", async () => {
    const app = devicemakerApp();
    const signInWith = async (user: string | null) => {
      const started = await start(app, "?idp=devicemaker");
      const fields = await formAtProvider(started.location, relayed());
      if (user === null) fields.delete("user");
      else fields.set("user", user);
      const { uid } = await landing(await callback(app, onward(await post(app, fields)), started.cookie));
      return (await people.findByUid(db, uid))?.name;
    };
    const spoofed = JSON.stringify({
      name: { firstName: "Ann\u0000\u202e\n", lastName: "  van   Lee " },
      email: "x@y.test",
    });
    expect(await signInWith(spoofed)).toBe("Ann van Lee");
    expect(await signInWith(JSON.stringify({ name: { firstName: "A".repeat(500) } }))).toBe("A".repeat(100));
    for (const odd of [
      "not json",
      "null",
      "[]",
      JSON.stringify({ name: "Plain" }),
      JSON.stringify({ name: { firstName: 7 } }),
    ])
      expect([odd, await signInWith(odd)]).toEqual([odd, ""]);
    expect(await signInWith(null)).toBe("");
  });

  it("sends `user` only on an account's first sign-in, and signs the same account in again without it", async () => {
    const app = devicemakerApp();
    const who = relayed();
    const first = await start(app, "?idp=devicemaker");
    const one = await landing(
      await callback(app, onward(await post(app, await formAtProvider(first.location, who))), first.cookie),
    );
    const second = await start(app, "?idp=devicemaker");
    const fields = await formAtProvider(second.location, who);
    expect(fields.get("user")).toBeNull();
    // A name posted for someone the service knows changes nothing.
    fields.set("user", JSON.stringify({ name: { firstName: "Someone", lastName: "Else" } }));
    const two = await landing(await callback(app, onward(await post(app, fields)), second.cookie));
    expect(two.uid).toBe(one.uid);
    expect((await people.findByUid(db, two.uid))?.name).toBe("Fed Person");
  });

  it("refuses a POST without a state, or with one it never issued, as a GET without one", async () => {
    const app = devicemakerApp();
    const started = await start(app, "?idp=devicemaker");
    const fields = await formAtProvider(started.location, relayed());
    const noState = new URLSearchParams(fields);
    noState.delete("state");
    expectHtml(await post(app, noState), 400, /expired or was not started here/);
    const forged = new URLSearchParams(fields);
    forged.set("state", "a".repeat(43));
    expectHtml(await post(app, forged), 400, /expired or was not started here/);
    expectHtml(await post(app, new URLSearchParams()), 400, /expired or was not started here/);
  });

  it("refuses a replayed POST once its state has been used, and a GET without the browser's cookie", async () => {
    const app = devicemakerApp();
    const started = await start(app, "?idp=devicemaker");
    const fields = await formAtProvider(started.location, relayed());
    const to = onward(await post(app, fields));
    // Passed on to a browser without the state cookie (someone else's): refused, and nothing used.
    expectHtml(await callback(app, to, "__session=bridge.someone-else"), 400, /expired or was not started here/);
    await landing(await callback(app, to, started.cookie));
    expectHtml(await post(app, fields), 400, /expired or was not started here/);
    expectHtml(await callback(app, to, started.cookie), 400, /expired or was not started here/);
  });

  it("answers 401 when the person cancels at the provider, which POSTs an error", async () => {
    const app = devicemakerApp();
    const started = await start(app, "?idp=devicemaker");
    const fields = await formAtProvider(started.location, { account: "cancel" });
    expect([fields.get("error"), fields.get("code")]).toEqual(["access_denied", null]);
    expectHtml(await callback(app, onward(await post(app, fields)), started.cookie), 401, /did not confirm/);
  });

  it("answers 401 when the provider refuses the POSTed code", async () => {
    const app = devicemakerApp();
    await provider.setMode("refuse");
    const started = await start(app, "?idp=devicemaker");
    const fields = await formAtProvider(started.location, relayed());
    expectHtml(await callback(app, onward(await post(app, fields)), started.cookie), 401, /did not confirm/);
  });

  it("refuses a POST that is not form-encoded", async () => {
    const res = await request(devicemakerApp())
      .post("/auth/bridge/federated/callback")
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ state: "x", code: "y" }));
    expect(res.status).toBe(415);
  });
});

describe("the federated bridge to each provider's style", () => {
  it.each([
    ["professional", "linkedin.com", "openid profile email"],
    ["native", "oidc.local", "openid email profile"],
  ])("signs a person in at idp=%s (%s), asking for %s", async (idp, providerId, scope) => {
    const federated = federatedConfig(
      JSON.stringify({ [idp]: { issuer: provider.issuer, clientId: provider.clientId, providerId, scope } }),
      JSON.stringify({ [idp]: provider.clientSecret }),
      "test-api-key",
    );
    const app = appFor(bridge, testDeps({ config: testConfig({ federated }) }));
    const who = someone();
    const started = await start(app, `?idp=${idp}`);
    expect(started.location.searchParams.get("scope")).toBe(scope);
    const { uid } = await landing(await callback(app, await atProvider(started.location, who), started.cookie));
    const user = await auth().getUser(uid);
    expect(user.providerData.map((p) => [p.providerId, p.uid])).toContainEqual([providerId, who.account]);
    // Neither provider is one ARRIVAL_PROVIDERS names: the address is claimed, not held.
    expect(await people.findByUid(db, uid)).toMatchObject({
      status: "pending",
      emails: [],
      origin: { provider: providerId, claimedAddress: who.email },
    });
  });
});

describe("FEDERATED_PROVIDERS", () => {
  const row = { issuer: "https://accounts.example.test", clientId: "client", providerId: "google.com" };
  const secrets = JSON.stringify({ search: "s3cret" });

  it("is off when empty, and reads a provider with its secret and the default scope", () => {
    expect(federatedConfig("", "", "")).toBeNull();
    expect(federatedConfig(JSON.stringify({ search: row }), secrets, "key")).toEqual({
      apiKey: "key",
      providers: {
        search: {
          ...row,
          endpoints: null,
          clientSecret: "s3cret",
          scope: "openid email profile",
          responseMode: "query",
        },
      },
    });
    const oauth = {
      authorizationEndpoint: "https://code.example.test/login/oauth/authorize",
      tokenEndpoint: "https://code.example.test/login/oauth/access_token",
      clientId: "c",
      providerId: "github.com",
    };
    expect(federatedConfig(JSON.stringify({ search: oauth }), secrets, "key")?.providers.search).toEqual({
      issuer: null,
      endpoints: { authorization: oauth.authorizationEndpoint, token: oauth.tokenEndpoint },
      clientId: "c",
      clientSecret: "s3cret",
      providerId: "github.com",
      scope: "",
      responseMode: "query",
    });
    const formPost = JSON.stringify({ search: { ...row, responseMode: "form_post" } });
    expect(federatedConfig(formPost, secrets, "key")?.providers.search?.responseMode).toBe("form_post");
  });

  it.each([
    ["not JSON", "{", secrets, "key", /FEDERATED_PROVIDERS must be a JSON object/],
    ["an unknown idp", JSON.stringify({ photos: row }), secrets, "key", /unknown idp "photos"/],
    [
      "a missing field",
      JSON.stringify({ search: { ...row, clientId: "" } }),
      secrets,
      "key",
      /needs clientId and providerId/,
    ],
    [
      "neither an issuer nor endpoints",
      JSON.stringify({ search: { clientId: "c", providerId: "github.com" } }),
      secrets,
      "key",
      /either issuer .* or authorizationEndpoint and tokenEndpoint/,
    ],
    [
      "an issuer and endpoints both",
      JSON.stringify({
        search: {
          ...row,
          authorizationEndpoint: "https://a.example.test/auth",
          tokenEndpoint: "https://a.example.test/token",
        },
      }),
      secrets,
      "key",
      /either issuer/,
    ],
    [
      "only one endpoint",
      JSON.stringify({
        search: { clientId: "c", providerId: "github.com", tokenEndpoint: "https://a.example.test/token" },
      }),
      secrets,
      "key",
      /either issuer/,
    ],
    ["no secret", JSON.stringify({ search: row }), "{}", "key", /no client secret/],
    ["no API key", JSON.stringify({ search: row }), secrets, "", /IDP_API_KEY/],
    [
      "a plain-http issuer off loopback",
      JSON.stringify({ search: { ...row, issuer: "http://accounts.example.test" } }),
      secrets,
      "key",
      /must be https/,
    ],
    [
      "an unknown response mode",
      JSON.stringify({ search: { ...row, responseMode: "fragment" } }),
      secrets,
      "key",
      /responseMode/,
    ],
    [
      "a scope without openid",
      JSON.stringify({ search: { ...row, scope: "email" } }),
      secrets,
      "key",
      /must include openid/,
    ],
  ])("refuses %s, naming the setting and never the secret", (_, providers, secretText, apiKey, message) => {
    expect(() => federatedConfig(providers, secretText, apiKey)).toThrow(message);
    try {
      federatedConfig(providers, secretText, apiKey);
    } catch (err) {
      expect(String(err)).not.toContain("s3cret");
    }
  });
});
