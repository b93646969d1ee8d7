/**
 * The hand-off to an app outside the parent domain: a signed-in person's browser gets a
 * single-use exchange code for a redirect URI registered for the app, and the app redeems it at
 * POST /auth/exchange with its PKCE verifier.
 */
import request from "supertest";
import { createHash } from "node:crypto";
import { parseHandoffApps } from "../../src/config/config";
import { cryptoRandom } from "../../src/random";
import * as sessions from "../../src/routes/sessions/sessions";
import { APP_ORIGIN, appFor, firestore, testConfig, testDeps } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { expectRaced } from "../support/race";

const db = firestore();
const APPS = parseHandoffApps(
  JSON.stringify({
    desktop: { name: "The desktop app", redirectUris: ["http://127.0.0.1/handoff", "com.example.desktop:/handoff"] },
    partner: { name: "Partner site", redirectUris: ["https://partner.example.com/signed-in"] },
  }),
);
const deps = testDeps({ config: testConfig({ handoffApps: APPS }) });
const app = appFor(sessions, deps);

function pkce() {
  const verifier = cryptoRandom.token(32);
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

async function signedIn(fields: Parameters<typeof accountWithPerson>[0] = {}) {
  const { account, person } = await accountWithPerson(fields);
  return { account, person, cookie: await sessionCookieFor(deps, account.uid, person.id) };
}

const handoff = (body: Record<string, unknown>, cookie?: string) => {
  const req = request(app).post("/auth/handoff").set("Origin", "https://id.example.test").send(body);
  return cookie === undefined ? req : req.set("Cookie", cookie);
};
const exchange = (body: Record<string, unknown>) => request(app).post("/auth/exchange").send(body);

describe("GET /auth/handoff", () => {
  it("names the app a registered redirect URI belongs to, so the page can ask the person first", async () => {
    const res = await request(app)
      .get("/auth/handoff")
      .query({ app: "desktop", redirect_uri: "http://127.0.0.1:51234/handoff" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      app: { id: "desktop", name: "The desktop app" },
      redirectUri: "http://127.0.0.1:51234/handoff",
    });
  });

  it.each([
    ["an unknown app", { app: "nobody", redirect_uri: "http://127.0.0.1/handoff" }, "Unknown app", "unknown_app"],
    [
      "a redirect URI registered for another app",
      { app: "desktop", redirect_uri: "https://partner.example.com/signed-in" },
      "redirect_uri is not registered for this app",
      "redirect_not_registered",
    ],
    [
      "a redirect URI near a registered one",
      { app: "partner", redirect_uri: "https://partner.example.com/signed-in/../evil" },
      "redirect_uri is not registered for this app",
      "redirect_not_registered",
    ],
    ["no redirect URI", { app: "partner" }, expect.stringMatching(/required/), "fields_required"],
  ])("refuses %s with 400", async (_, query, error, reason) => {
    const res = await request(app).get("/auth/handoff").query(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error, reason });
  });
});

describe("POST /auth/handoff", () => {
  it("sends a signed-in person to the app with a code and the app's state, and the app redeems it with its verifier", async () => {
    const { account, person, cookie } = await signedIn({ projects: ["startpage"], name: "Ada" });
    const { verifier, challenge } = pkce();
    const res = await handoff(
      {
        app: "desktop",
        redirect_uri: "com.example.desktop:/handoff",
        state: "s-1",
        code_challenge: challenge,
        code_challenge_method: "S256",
      },
      cookie,
    );
    expect(res.status).toBe(200);
    const location = new URL(res.body.location as string);
    expect(`${location.protocol}${location.pathname}`).toBe("com.example.desktop:/handoff");
    expect(location.searchParams.get("state")).toBe("s-1");
    const code = location.searchParams.get("code") as string;
    const redeemed = await exchange({ code, code_verifier: verifier });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toEqual({
      uid: account.uid,
      personId: person.id,
      email: account.email,
      name: "Ada",
      role: "user",
      projects: ["startpage"],
    });
    // Stored as a hash, bound to the app and where it was sent.
    const stored = (await db.collection("exchangeCodes").where("personId", "==", person.id).get()).docs.map((d) =>
      d.data(),
    );
    expect(stored).toEqual([
      expect.objectContaining({
        app: "desktop",
        redirectUri: "com.example.desktop:/handoff",
        codeChallenge: challenge,
      }),
    ]);
    expect(JSON.stringify(stored)).not.toContain(code);
  });

  it("spends a code presented without its verifier, or with another, so a caught code is worth nothing", async () => {
    const { cookie } = await signedIn();
    for (const presented of [{}, { code_verifier: pkce().verifier }]) {
      const { verifier, challenge } = pkce();
      const res = await handoff(
        {
          app: "partner",
          redirect_uri: "https://partner.example.com/signed-in",
          code_challenge: challenge,
          code_challenge_method: "S256",
        },
        cookie,
      );
      const code = new URL(res.body.location as string).searchParams.get("code") as string;
      const caught = await exchange({ code, ...presented });
      expect(caught.status).toBe(401);
      expect(caught.body).toEqual({ error: "Invalid code" });
      expect((await exchange({ code, code_verifier: verifier })).body).toEqual({ error: "Code already used" });
    }
  });

  it("gives exactly one of ten concurrent redemptions the person", async () => {
    const { cookie } = await signedIn();
    const { verifier, challenge } = pkce();
    const res = await handoff(
      {
        app: "desktop",
        redirect_uri: "http://127.0.0.1:8766/handoff",
        code_challenge: challenge,
        code_challenge_method: "S256",
      },
      cookie,
    );
    const code = new URL(res.body.location as string).searchParams.get("code") as string;
    const answers = await Promise.all(Array.from({ length: 10 }, () => exchange({ code, code_verifier: verifier })));
    expectRaced(
      answers,
      (a) => a.status === 200,
      (a) => a.status === 401 && a.body.error === "Code already used",
    );
  });

  it.each([
    ["no challenge", {}],
    ["the plain method", { code_challenge: "a".repeat(43), code_challenge_method: "plain" }],
    ["a malformed challenge", { code_challenge: "short", code_challenge_method: "S256" }],
  ])("requires PKCE: refuses %s with 400 and issues nothing", async (_, pkceFields) => {
    const { cookie, person } = await signedIn();
    const res = await handoff({ app: "desktop", redirect_uri: "http://127.0.0.1/handoff", ...pkceFields }, cookie);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "code_challenge with code_challenge_method S256 is required",
      reason: "pkce_required",
    });
    expect((await db.collection("exchangeCodes").where("personId", "==", person.id).get()).size).toBe(0);
  });

  it("refuses a redirect URI the app did not register, before it looks at the session", async () => {
    const res = await handoff({
      app: "desktop",
      redirect_uri: "https://attacker.example/steal",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "redirect_uri is not registered for this app",
      reason: "redirect_not_registered",
    });
  });

  it("answers 401 without a session, and 403 with the reason for a person who is not approved", async () => {
    const body = {
      app: "desktop",
      redirect_uri: "http://127.0.0.1/handoff",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    };
    expect(await handoff(body)).toMatchObject({ status: 401, body: { error: "Unauthorized" } });
    expect(await handoff(body, "__session=not-a-token")).toMatchObject({
      status: 401,
      body: { error: "Unauthorized" },
    });
    for (const status of ["pending", "rejected"] as const) {
      const { cookie } = await signedIn({ status });
      expect(await handoff(body, cookie)).toMatchObject({ status: 403, body: { error: "Forbidden", reason: status } });
    }
  });

  it("refuses a page on a foreign origin, which could otherwise hand the person to an app of its choosing", async () => {
    const { cookie } = await signedIn();
    const res = await request(app)
      .post("/auth/handoff")
      .set("Origin", "https://elsewhere.test")
      .set("Cookie", cookie)
      .send({
        app: "desktop",
        redirect_uri: "http://127.0.0.1/handoff",
        code_challenge: pkce().challenge,
        code_challenge_method: "S256",
      });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Origin not allowed" });
  });

  it("is open to the sibling apps' origins too", async () => {
    const { cookie } = await signedIn();
    const res = await request(app).post("/auth/handoff").set("Origin", APP_ORIGIN).set("Cookie", cookie).send({
      app: "desktop",
      redirect_uri: "http://127.0.0.1/handoff",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(APP_ORIGIN);
  });
});

describe("POST /auth/exchange with a code_verifier", () => {
  it("answers 400 for a malformed verifier and spends nothing", async () => {
    const res = await exchange({ code: "anything", code_verifier: "short" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "code_verifier must be 43 to 128 unreserved characters" });
  });
});
