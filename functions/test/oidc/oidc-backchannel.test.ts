/**
 * Back-channel logout at the OpenID Connect provider: a client registered with a
 * backchannel_logout_uri is posted a logout token, which jose verifies against the provider's
 * keys, whenever a sign-in it was given ends: logout, RP-initiated logout, "sign out everywhere
 * else", an administrator ending the session, a rejection and an erasure. The token carries the
 * `sid` of the ID token the client holds. A receiver of our own on loopback stands for the app,
 * and refuses a replayed `jti` as a relying party should.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { createLocalJWKSet, decodeJwt, jwtVerify, type JWTPayload } from "jose";
import request from "supertest";
import { MINUTE } from "../../src/clock";
import { erasePerson } from "../../src/core/account/erasure";
import { registerClient } from "../../src/core/oidc/clients";
import { BACKCHANNEL_EVENT } from "../../src/core/oidc/backchannel";
import { changePerson } from "../../src/core/people/change-person";
import { endSessions } from "../../src/core/sessions/active-sessions";
import * as oidc from "../../src/routes/oidc/oidc";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import { appFor, APP_ORIGIN, SERVICE_URL, testDeps, unique, type TestDeps } from "../support/deps";
import { codeFlowTokens } from "../support/code-flow";
import { accountWithPerson, recordedSession } from "../support/people";
import { recordingLogger } from "../support/email-codes";

const REDIRECT = "https://app.example.test/callback";
const operator = { operator: { kind: "operator" as const, name: "ops@console" } };

interface Arrival {
  token: string;
  contentType: string | undefined;
}

describe("back-channel logout", () => {
  const log = recordingLogger();
  const deps: TestDeps = testDeps({ log });
  const oidcApp = appFor(oidc, deps);
  const sessionsApp = appFor(sessionRoutes, deps);
  const jwks = createLocalJWKSet(deps.tokens.publicJwks());
  let server: Server;
  let status = 200;
  const arrivals: Arrival[] = [];
  const taken = new Set<string>();
  let receiver = "";
  const told = { clientId: unique("told-rp"), clientSecret: randomBytes(32).toString("base64url") };
  const untold = { clientId: unique("untold-rp"), clientSecret: randomBytes(32).toString("base64url") };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      req.on("end", () => {
        const token = new URLSearchParams(body).get("logout_token") ?? "";
        arrivals.push({ token, contentType: req.headers["content-type"] });
        // As a relying party should (Back-Channel Logout §2.6): a jti it took before is a replay, refused.
        const jti = String(decodeJwt(token).jti);
        res.statusCode = status === 200 && taken.has(jti) ? 400 : status;
        if (res.statusCode === 200) taken.add(jti);
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/backchannel`;
    receiver = uri;
    await registerClient(deps, { ...told, name: "Told", redirectUris: [REDIRECT], backchannelLogoutUri: uri });
    await registerClient(deps, { ...untold, name: "Untold", redirectUris: [REDIRECT] });
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    arrivals.length = 0;
    status = 200;
  });

  const session = (person: { id: string; uids: string[] }) => recordedSession(deps, person);

  /** The ID token `client` is given for the person of `cookie`, through the code flow. */
  const idTokenFor = async (cookie: string, client = told): Promise<string> =>
    (await codeFlowTokens(oidcApp, cookie, client, { redirectUri: REDIRECT })).id_token;

  /** A person signed in on one browser, who signed in to both clients from it. */
  async function signedIn() {
    const { person } = await accountWithPerson({ name: "Ada", status: "approved" });
    const browser = await session(person);
    const idToken = await idTokenFor(browser.cookie);
    await idTokenFor(browser.cookie, untold);
    return { person, ...browser, idToken, sid: decodeJwt(idToken).sid as string };
  }

  /** Runs the mail task until nothing is left to do now. */
  const drained = async () => {
    deps.tasks?.runDue();
    await deps.tasks?.idle();
  };

  /** The logout tokens that arrived, each verified as a relying party verifies one (§2.6). */
  async function tokens(): Promise<JWTPayload[]> {
    await drained();
    return Promise.all(
      arrivals.map(async (a) => {
        expect(a.contentType).toBe("application/x-www-form-urlencoded");
        const { payload } = await jwtVerify(a.token, jwks, {
          issuer: SERVICE_URL,
          audience: told.clientId,
          typ: "logout+jwt",
          maxTokenAge: "2 minutes",
          // The service's clock, which the test moves.
          currentDate: deps.clock.now(),
        });
        expect(payload.events).toEqual({ [BACKCHANNEL_EVENT]: {} });
        expect(payload.nonce).toBeUndefined();
        expect(typeof payload.jti).toBe("string");
        return payload;
      }),
    );
  }

  it("says so in discovery, and puts the sign-in's sid in the ID token", async () => {
    const res = await request(oidcApp).get("/.well-known/openid-configuration");
    expect(res.body).toMatchObject({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
    expect(res.body.claims_supported).toContain("sid");
    const { sid, cookie } = await signedIn();
    expect(sid).toMatch(/^[0-9a-f]{32}$/);
    // Another client signed in from the same session knows it by another sid.
    expect(decodeJwt(await idTokenFor(cookie, untold)).sid).not.toBe(sid);
    // The same client signed in again from the same session: the same sid.
    expect(decodeJwt(await idTokenFor(cookie)).sid).toBe(sid);
  });

  it("tells the client when the person logs out, with the ID token's sid and sub, once", async () => {
    const { person, cookie, sid } = await signedIn();
    const res = await request(sessionsApp).post("/auth/logout").set("Origin", APP_ORIGIN).set("Cookie", cookie);
    expect(res.status).toBe(200);
    const got = await tokens();
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ sid, sub: person.id });
    // Told once: ending it again tells nobody.
    await request(sessionsApp).post("/auth/logout").set("Origin", APP_ORIGIN).set("Cookie", cookie);
    expect(await tokens()).toHaveLength(1);
  });

  it("tells the client when an app signs the person out through RP-initiated logout", async () => {
    const { cookie, sid, idToken } = await signedIn();
    const res = await request(oidcApp)
      .get(`/auth/oidc/logout?${new URLSearchParams({ id_token_hint: idToken })}`)
      .set("Cookie", cookie);
    expect(res.status).toBe(200);
    expect((await tokens()).map((t) => t.sid)).toEqual([sid]);
  });

  it("tells of the other sessions alone for sign out everywhere else, and of the ones an administrator ends", async () => {
    const { person, sid, sessionId } = await signedIn();
    const other = await session(person);
    const otherSid = decodeJwt(await idTokenFor(other.cookie)).sid as string;
    const third = await session(person);
    const thirdSid = decodeJwt(await idTokenFor(third.cookie)).sid as string;

    // The answer names the apps signed out (both clients were signed in to from the others).
    expect((await endSessions(deps, person.id, { allBut: sessionId })).apps).toEqual([told.clientId]);
    expect(new Set((await tokens()).map((t) => t.sid))).toEqual(new Set([otherSid, thirdSid]));

    arrivals.length = 0;
    await endSessions(deps, person.id, { sessionIds: [sessionId] }, operator);
    expect((await tokens()).map((t) => t.sid)).toEqual([sid]);
  });

  it("tells of every sign-in when the person is rejected", async () => {
    const { person, sid } = await signedIn();
    const other = await session(person);
    const otherSid = decodeJwt(await idTokenFor(other.cookie)).sid as string;
    await changePerson(deps, person.id, { name: "Renamed" }, operator);
    expect(await tokens()).toEqual([]);
    await changePerson(deps, person.id, { status: "rejected" }, operator);
    expect(new Set((await tokens()).map((t) => t.sid))).toEqual(new Set([sid, otherSid]));
  });

  it("tells of every sign-in by its sid alone when the person is erased", async () => {
    const { person, sid } = await signedIn();
    expect((await erasePerson(deps, person.id, operator)).apps).toEqual([told.clientId, untold.clientId].sort());
    const got = await tokens();
    expect(got.map((t) => t.sid)).toEqual([sid]);
    expect(got[0]?.sub).toBeUndefined();
  });

  it("tries a client that does not take it again after the backoff, with a fresh token", async () => {
    const { cookie, sid } = await signedIn();
    status = 503;
    await request(sessionsApp).post("/auth/logout").set("Origin", APP_ORIGIN).set("Cookie", cookie);
    await drained();
    expect(arrivals).toHaveLength(1);
    // Logged as what it is, naming the client: not as an app's event.
    const lines = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.message === "logout token not delivered")).toEqual([
      expect.objectContaining({ client: told.clientId, error: "status 503", attempt: 1 }),
    ]);
    expect(lines.filter((l) => l.message === "event not delivered")).toEqual([]);
    status = 200;
    deps.clock.advance(MINUTE);
    const got = await tokens();
    expect(got.map((t) => t.sid)).toEqual([sid, sid]);
    expect(got[0]?.jti).not.toBe(got[1]?.jti);
    // The retry was taken: a receiver that refuses replayed jtis loses no real logout. A token
    // posted again is a replay, and refused.
    expect(taken.has(String(got[1]?.jti))).toBe(true);
    const replayed = await fetch(receiver, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ logout_token: arrivals[1]?.token ?? "" }),
    });
    expect(replayed.status).toBe(400);
  });
});
