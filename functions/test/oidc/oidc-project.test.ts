/**
 * An OpenID Connect client bound to a project (OidcClient `project`): only people granted it sign
 * in to the client; a person who loses it is refused at the next refresh, and the client is told
 * by back-channel logout that their sign-in ended, as for every other end of a sign-in. A client
 * without a project is untouched by a change of projects.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHash, randomBytes } from "node:crypto";
import { createLocalJWKSet, decodeJwt, jwtVerify } from "jose";
import request from "supertest";
import { registerClient } from "../../src/core/oidc/clients";
import { changePerson } from "../../src/core/people/change-person";
import * as oidc from "../../src/routes/oidc/oidc";
import { appFor, SERVICE_URL, testDeps, unique, type TestDeps } from "../support/deps";
import { codeFlowTokens } from "../support/code-flow";
import { accountWithPerson, recordedSession } from "../support/people";

const REDIRECT = "https://app.example.test/callback";
const operator = { operator: { kind: "operator" as const, name: "ops@console" } };

describe("a client bound to a project", () => {
  const deps: TestDeps = testDeps();
  const oidcApp = appFor(oidc, deps);
  const jwks = createLocalJWKSet(deps.tokens.publicJwks());
  const project = unique("desk");
  const desk = { clientId: unique("desk-rp"), clientSecret: randomBytes(32).toString("base64url") };
  const open = { clientId: unique("open-rp"), clientSecret: randomBytes(32).toString("base64url") };
  const arrivals: string[] = [];
  let server: Server;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      req.on("end", () => {
        arrivals.push(new URLSearchParams(body).get("logout_token") ?? "");
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const backchannelLogoutUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/backchannel`;
    const common = {
      redirectUris: [REDIRECT],
      backchannelLogoutUri,
      grantTypes: ["authorization_code", "refresh_token"],
    };
    await registerClient(deps, { ...desk, ...common, name: "Desk", project });
    await registerClient(deps, { ...open, ...common, name: "Open" });
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    arrivals.length = 0;
  });

  async function person(projects: string[]) {
    const { person: p } = await accountWithPerson({ name: "Ada", projects });
    return { person: p, ...(await recordedSession(deps, p)) };
  }

  /** The logout tokens that arrived, by the client they were for, each verified as its client verifies it. */
  async function told(): Promise<Array<{ aud: string; sid: string }>> {
    deps.tasks?.runDue();
    await deps.tasks?.idle();
    return Promise.all(
      arrivals.map(async (token) => {
        const aud = decodeJwt(token).aud as string;
        const { payload } = await jwtVerify(token, jwks, {
          issuer: SERVICE_URL,
          audience: aud,
          typ: "logout+jwt",
          currentDate: deps.clock.now(),
        });
        return { aud, sid: payload.sid as string };
      }),
    );
  }

  const refresh = (client: typeof desk, token: string) =>
    request(oidcApp)
      .post("/auth/oidc/token")
      .type("form")
      .auth(client.clientId, client.clientSecret)
      .send({ grant_type: "refresh_token", refresh_token: token });

  it("refuses a person without its project at the authorise step, access_denied to the client", async () => {
    const { cookie } = await person(["elsewhere"]);
    const verifier = randomBytes(32).toString("base64url");
    const query = new URLSearchParams({
      client_id: desk.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid",
      state: "s1",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    });
    const res = await request(oidcApp).get(`/auth/oidc/authorize?${query}`).set("Cookie", cookie);
    const back = new URL(res.headers.location as string);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("s1");
    expect(back.searchParams.get("code")).toBeNull();
    // The same person may use a client that asks for no project.
    expect((await codeFlowTokens(oidcApp, cookie, open, { redirectUri: REDIRECT })).id_token).toEqual(
      expect.any(String),
    );
  });

  it("lets in a person granted it, or every project; and one who loses it is told signed out and refused at refresh", async () => {
    const { person: ada, cookie } = await person([project, "other"]);
    const deskTokens = await codeFlowTokens(oidcApp, cookie, desk, {
      redirectUri: REDIRECT,
      scope: "openid offline_access",
    });
    const openTokens = await codeFlowTokens(oidcApp, cookie, open, {
      redirectUri: REDIRECT,
      scope: "openid offline_access",
    });
    const deskSid = decodeJwt(deskTokens.id_token).sid;

    // Another project taken away: the desk client's sign-in stands.
    await changePerson(deps, ada.id, { projects: [project] }, operator);
    expect(await told()).toEqual([]);
    const still = await refresh(desk, deskTokens.refresh_token as string);
    expect(still.status).toBe(200);

    const userinfo = (token: string) =>
      request(oidcApp).get("/auth/oidc/userinfo").set("Authorization", `Bearer ${token}`);
    const introspected = async (token: string) =>
      (
        await request(oidcApp)
          .post("/auth/oidc/introspect")
          .type("form")
          .auth(desk.clientId, desk.clientSecret)
          .send({ token })
      ).body;
    expect((await userinfo(still.body.access_token)).status).toBe(200);
    expect(await introspected(still.body.access_token)).toMatchObject({ active: true, sub: ada.id });

    await changePerson(deps, ada.id, { projects: [] }, operator);
    // Only the client that asks for the project is told, with the sid of the ID token it holds.
    expect(await told()).toEqual([{ aud: desk.clientId, sid: deskSid }]);
    // Its access token, not yet expired, reads nothing more, and introspects as no longer active.
    expect((await userinfo(still.body.access_token)).status).toBe(401);
    expect(await introspected(still.body.access_token)).toEqual({ active: false });
    expect(await introspected(still.body.refresh_token)).toEqual({ active: false });
    const refused = await refresh(desk, still.body.refresh_token as string);
    expect(refused.body).toMatchObject({ error: "invalid_grant" });
    // Given back, the grant that ended stays ended; the open client's goes on.
    await changePerson(deps, ada.id, { projects: [project] }, operator);
    expect((await refresh(desk, still.body.refresh_token as string)).body).toMatchObject({ error: "invalid_grant" });
    expect((await refresh(open, openTokens.refresh_token as string)).status).toBe(200);

    // An administrator has every project, and a * grant too.
    const { cookie: adminCookie } = await person([]).then(async ({ person: p }) => {
      await changePerson(deps, p.id, { role: "admin" }, operator);
      return recordedSession(deps, p);
    });
    expect((await codeFlowTokens(oidcApp, adminCookie, desk, { redirectUri: REDIRECT })).id_token).toEqual(
      expect.any(String),
    );
    const { cookie: starCookie } = await person(["*"]);
    expect((await codeFlowTokens(oidcApp, starCookie, desk, { redirectUri: REDIRECT })).id_token).toEqual(
      expect.any(String),
    );
  });

  it("tells the client when an administrator who signed in to it is made a member without its project", async () => {
    const { person: p } = await person([]);
    await changePerson(deps, p.id, { role: "admin" }, operator);
    const { cookie } = await recordedSession(deps, p);
    const sid = decodeJwt((await codeFlowTokens(oidcApp, cookie, desk, { redirectUri: REDIRECT })).id_token).sid;
    arrivals.length = 0;
    await changePerson(deps, p.id, { role: "user" }, operator);
    expect(await told()).toEqual([{ aud: desk.clientId, sid }]);
  });
});
