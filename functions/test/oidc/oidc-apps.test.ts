/**
 * The apps a person let in through the OpenID Connect provider: listed for the person
 * (GET /auth/account/apps) and for an administrator (GET /auth/people/:personId/apps), each with
 * when it was first and last used and whether it can act while the person is away; disconnecting
 * one ends what it holds (its refresh tokens) and tells it the sign-in ended.
 */
import { randomBytes } from "node:crypto";
import request from "supertest";
import { MINUTE } from "../../src/clock";
import { registerClient } from "../../src/core/oidc/clients";
import * as oidc from "../../src/routes/oidc/oidc";
import * as peopleRoutes from "../../src/routes/people/people";
import { APP_ORIGIN, appFor, ID_URL, testDeps, unique } from "../support/deps";
import { codeFlowTokens } from "../support/code-flow";
import { accountWithPerson, recordedSession } from "../support/people";
import { mailTo, waitForSubject } from "../support/inbox";
import { personHistory } from "../../src/core/people/history";

const REDIRECT = "https://app.example.test/callback";

describe("the apps a person let in", () => {
  const deps = testDeps();
  const oidcApp = appFor(oidc, deps);
  const peopleApp = appFor(peopleRoutes, deps);
  const sync = { clientId: unique("sync"), clientSecret: randomBytes(32).toString("base64url") };
  const portal = { clientId: unique("portal"), clientSecret: randomBytes(32).toString("base64url") };
  const origin = new URL(ID_URL).origin;

  beforeAll(async () => {
    await registerClient(deps, {
      ...sync,
      name: "Calendar sync",
      redirectUris: [REDIRECT],
      grantTypes: ["authorization_code", "refresh_token"],
    });
    await registerClient(deps, { ...portal, name: "Portal", redirectUris: [REDIRECT] });
  });

  /** A person with a recorded session of the identity host, and its cookie. */
  async function signedIn(fields: Parameters<typeof accountWithPerson>[0] = {}) {
    const { person } = await accountWithPerson({ name: "Ada", ...fields });
    const { cookie } = await recordedSession(deps, person);
    return { person, cookie };
  }

  /** The tokens `client` is given for the person of `cookie`, through the code flow. */
  const tokensFor = (cookie: string, client: typeof sync, scope: string) =>
    codeFlowTokens(oidcApp, cookie, client, { scope, redirectUri: REDIRECT });

  const historyOf = async (personId: string) => (await personHistory(deps, personId, 50, null)).entries;

  const apps = (cookie: string, path = "/auth/account/apps") =>
    request(peopleApp).get(path).set("Cookie", cookie).set("Origin", origin);

  it("lists each app with its first and last use and whether it acts while the person is away; disconnects one", async () => {
    const { cookie, person } = await signedIn();
    const started = deps.clock.now().toISOString();
    const held = await tokensFor(cookie, sync, "openid offline_access");
    deps.clock.advance(MINUTE);
    await tokensFor(cookie, portal, "openid email");

    const listed = await apps(cookie);
    expect(listed.status).toBe(200);
    expect(listed.headers["cache-control"]).toContain("no-store");
    expect(listed.body.apps).toEqual([
      {
        clientId: portal.clientId,
        name: "Portal",
        firstUsedAt: deps.clock.now().toISOString(),
        lastUsedAt: deps.clock.now().toISOString(),
        actsWhileAway: false,
        unverified: false,
      },
      {
        clientId: sync.clientId,
        name: "Calendar sync",
        firstUsedAt: started,
        lastUsedAt: started,
        actsWhileAway: true,
        unverified: false,
      },
    ]);

    const gone = await request(peopleApp)
      .delete(`/auth/account/apps/${encodeURIComponent(sync.clientId)}`)
      .set("Cookie", cookie)
      .set("Origin", origin);
    expect(gone.status).toBe(200);
    expect((await apps(cookie)).body.apps.map((a: { clientId: string }) => a.clientId)).toEqual([portal.clientId]);
    const refresh = await request(oidcApp)
      .post("/auth/oidc/token")
      .type("form")
      .auth(sync.clientId, sync.clientSecret)
      .send({ grant_type: "refresh_token", refresh_token: held.refresh_token as string });
    expect(refresh.body).toMatchObject({ error: "invalid_grant" });

    const again = await request(peopleApp)
      .delete(`/auth/account/apps/${encodeURIComponent(sync.clientId)}`)
      .set("Cookie", cookie)
      .set("Origin", origin);
    expect(again.status).toBe(404);
    // Written to their history as their own act; nobody tells them of it.
    const history = await historyOf(person.id);
    expect(history).toContainEqual(
      expect.objectContaining({
        event: "app-disconnected",
        by: { kind: "person" },
        via: "account",
        changes: { apps: { from: ["Calendar sync"], to: null } },
      }),
    );
    expect((await mailTo(person.emails[0] as string)).filter((m) => m.text.includes("disconnected"))).toEqual([]);
  });

  it("shows an administrator a person's apps, and lets them disconnect one; anyone else gets nothing", async () => {
    const { person, cookie } = await signedIn();
    await tokensFor(cookie, portal, "openid");
    const admin = await signedIn({ role: "admin", projects: ["*"] });
    const path = `/auth/people/${person.id}/apps`;
    expect((await apps(admin.cookie, path)).body.apps.map((a: { name: string }) => a.name)).toEqual(["Portal"]);
    const other = await signedIn();
    expect((await apps(other.cookie, path)).status).toBe(403);
    const gone = await request(peopleApp)
      .delete(`${path}/${encodeURIComponent(portal.clientId)}`)
      .set("Cookie", admin.cookie)
      .set("Origin", origin);
    expect(gone.status).toBe(200);
    expect((await apps(cookie)).body.apps).toEqual([]);
    // Written to their history as the administrator's, and they are told.
    expect(await historyOf(person.id)).toContainEqual(
      expect.objectContaining({
        event: "app-disconnected",
        by: expect.objectContaining({ kind: "admin", personId: admin.person.id }),
        changes: { apps: { from: ["Portal"], to: null } },
      }),
    );
    const told = await waitForSubject(person.emails[0] as string, "Your access changed");
    expect(told.text).toContain("The app “Portal” was disconnected from your account");
    expect(told.text).toContain("an administrator");
  });

  it("asks for a session of the person's own", async () => {
    const res = await request(peopleApp).get("/auth/account/apps").set("Origin", APP_ORIGIN);
    expect(res.status).toBe(401);
  });
});
