/**
 * Consent for a client that registered itself (core/oidc/consents): no code until the person,
 * signed in, lets it in on the identity host's page, which names it as unverified, where the answer
 * goes, the account, the resource and what each scope lets it do. The yes is remembered for that
 * client, resource and scopes, and asked again for more, for another resource, or on
 * `prompt=consent`; a no tells the app `access_denied`; a silent request hears `consent_required`.
 * The operator's own clients are never asked about. "Apps you've let in" lists the app as
 * unverified, and disconnecting it takes the consent back.
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import { SECOND } from "../../src/clock";
import { STEP_UP_MS } from "../../src/core/model/step-up";
import { registerClient } from "../../src/core/oidc/clients";
import { personHistory } from "../../src/core/people/history";
import { registerResource } from "../../src/core/oidc/resources";
import * as consents from "../../src/store/oidc-consents";
import * as oidc from "../../src/routes/oidc/oidc";
import * as peopleRoutes from "../../src/routes/people/people";
import { appFor, ID_URL, testDeps, unique } from "../support/deps";
import { accountWithPerson, recordedSession } from "../support/people";
import { answerConsent, formOf, ID_HOST, onward, selfRegisteredClient } from "../support/consent";

const REDIRECT = "https://agent.example.test/callback";

describe("consent for a client that registered itself", () => {
  const deps = testDeps();
  const oidcApp = appFor(oidc, deps);
  const peopleApp = appFor(peopleRoutes, deps);
  const agent = { clientId: unique("dyn"), clientSecret: randomBytes(32).toString("base64url") };
  const own = { clientId: unique("own"), clientSecret: randomBytes(32).toString("base64url") };
  const notes = `https://notes.example.test/${unique("mcp")}`;

  beforeAll(async () => {
    await selfRegisteredClient(deps, agent.clientId, { name: "Helpful <Agent>", secret: agent.clientSecret });
    await registerClient(deps, { ...own, name: "Family calendar", redirectUris: [REDIRECT] });
    await registerResource(deps, {
      url: notes,
      name: "Notes",
      scopes: ["notes:read", "notes:write"],
      clients: [agent.clientId],
    });
  });

  const verifier = randomBytes(32).toString("base64url");
  const query = (clientId: string, extra: Record<string, string>) =>
    new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid",
      state: "s",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      ...extra,
    });

  /** The authorise request, on the identity host (as Hosting forwards it) unless `host` says otherwise. */
  const authorize = (cookie: string, extra: Record<string, string> = {}, host: string | null = ID_HOST, id = agent) => {
    const req = request(oidcApp)
      .get(`/auth/oidc/authorize?${query(id.clientId, extra)}`)
      .set("Cookie", cookie);
    return host === null ? req : req.set("X-Forwarded-Host", host);
  };
  const post = (cookie: string, form: Record<string, string>) => answerConsent(oidcApp, cookie, form);

  const codeIn = (location: string | undefined) =>
    location === undefined ? null : new URL(location).searchParams.get("code");

  async function person() {
    const { account, person } = await accountWithPerson({ name: "Ada" });
    const { cookie } = await recordedSession(deps, person);
    return { account, person, cookie };
  }

  it("asks on the identity host, naming the app as unverified, where the answer goes, and what it may do", async () => {
    const { account, person: p, cookie } = await person();
    const elsewhere = await authorize(cookie, {}, null);
    expect(elsewhere.status).toBe(302);
    expect(elsewhere.headers.location).toMatch(new RegExp(`^${ID_URL}/auth/oidc/authorize\\?`));
    expect(codeIn(elsewhere.headers.location)).toBeNull();

    const page = await authorize(cookie, { scope: "openid email notes:read", resource: notes });
    expect(page.status).toBe(200);
    expect(page.headers["cache-control"]).toBe("private, no-store");
    expect(page.text).toContain("<h1>Let Helpful &lt;Agent&gt; use your account?</h1>");
    expect(page.text).toContain("is not one of this service's own apps");
    expect(page.text).toContain("Your answer sends you to agent.example.test.");
    expect(page.text).toContain(`You are signed in as ${account.email}.`);
    expect(page.text).toContain(`It asks for access to Notes (${notes}).`);
    expect(page.text).toContain("<li>See your email address</li>");
    expect(page.text).toContain("<li>Use Notes for you, as far as “notes:read” allows</li>");
    expect(page.text).not.toContain("notes:write");
    expect(page.text).not.toContain("<script");
    // Shown, not given: nothing is remembered before the person's answer.
    expect(await consents.ofPerson(deps.store, p.id)).toEqual([]);
  });

  it("gives a code on the person's yes, remembers it, and asks again only for more", async () => {
    const { person: p, cookie } = await person();
    const fields = formOf((await authorize(cookie, { scope: "openid email" })).text);
    expect(fields).toMatchObject({ client_id: agent.clientId, redirect_uri: REDIRECT, state: "s" });
    expect(fields.consent).toMatch(/^[0-9a-f]{64}$/);

    const yes = await post(cookie, { ...fields, answer: "allow" });
    expect(yes.status).toBe(200);
    const to = onward(yes.text);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get("code")).toMatch(/.{20,}/);
    expect(to.searchParams.get("state")).toBe("s");
    const redeemed = await request(oidcApp)
      .post("/auth/oidc/token")
      .type("form")
      .auth(agent.clientId, agent.clientSecret)
      .send({
        grant_type: "authorization_code",
        code: to.searchParams.get("code"),
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.scope).toBe("openid email");
    expect(await consents.ofPerson(deps.store, p.id)).toEqual([
      expect.objectContaining({ clientId: agent.clientId, resource: "", scopes: ["email", "openid"] }),
    ]);
    // Written where the person's history is read, as a disconnect is.
    const { entries } = await personHistory(deps, p.id, 10, null);
    expect(entries).toContainEqual(
      expect.objectContaining({
        event: "app-let-in",
        by: { kind: "person" },
        changes: { apps: { from: null, to: ["Helpful <Agent>"] }, scopes: { from: null, to: ["openid", "email"] } },
      }),
    );

    // Within what was let in: a code at once, silently too.
    expect(codeIn((await authorize(cookie, { scope: "openid" }, null)).headers.location)).not.toBeNull();
    expect(
      codeIn((await authorize(cookie, { scope: "openid email", prompt: "none" }, null)).headers.location),
    ).not.toBeNull();
    // More scopes, another resource, or the app's own asking: the page again (or, silently, consent_required).
    const more = await authorize(cookie, { scope: "openid email profile" });
    expect(more.status).toBe(200);
    expect(more.text).toContain("<li>See your name</li>");
    const silentMore = new URL(
      (await authorize(cookie, { scope: "openid profile", prompt: "none" }, null)).headers.location as string,
    );
    expect(silentMore.searchParams.get("error")).toBe("consent_required");
    expect(silentMore.searchParams.get("code")).toBeNull();
    expect((await authorize(cookie, { scope: "openid notes:read", resource: notes })).status).toBe(200);
    const again = await authorize(cookie, { scope: "openid", prompt: "consent" });
    expect(again.status).toBe(200);
    expect(again.text).toContain("use your account?");
  });

  it("tells the app access_denied on the person's no, and remembers nothing", async () => {
    const { person: p, cookie } = await person();
    const fields = formOf((await authorize(cookie)).text);
    const no = await post(cookie, { ...fields, answer: "deny" });
    expect(no.status).toBe(200);
    const to = onward(no.text);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get("error")).toBe("access_denied");
    expect(to.searchParams.get("code")).toBeNull();
    expect(to.searchParams.get("state")).toBe("s");
    expect(await consents.ofPerson(deps.store, p.id)).toEqual([]);
  });

  it("asks a sign-in older than the step-up window to sign in afresh before a yes to acting while away", async () => {
    const { person: p, cookie } = await person();
    const offline = { scope: "openid offline_access" };
    // Fresh: the page says what it means, and its yes is taken while the sign-in is still fresh.
    const page = await authorize(cookie, offline);
    expect(page.text).toContain("<li>Keep acting for you while you are away, until you disconnect it</li>");
    deps.clock.advance(STEP_UP_MS + SECOND);
    const late = await post(cookie, { ...formOf(page.text), answer: "allow" });
    expect(late.status).toBe(302);
    expect(late.headers.location).toMatch(new RegExp(`^${ID_URL}/\\?redirect=.*&prompt=login$`));
    expect(await consents.ofPerson(deps.store, p.id)).toEqual([]);
    const again = await authorize(cookie, offline);
    expect(again.status).toBe(302);
    expect(again.headers.location).toMatch(/&prompt=login$/);
    // What needs no step-up is still asked on the page at once.
    expect((await authorize(cookie, { scope: "openid email" })).status).toBe(200);
  });

  it("asks for a public client's every sign-in: anyone on the device may use its id", async () => {
    const { cookie } = await person();
    const open = { clientId: unique("dyn"), clientSecret: "" };
    await selfRegisteredClient(deps, open.clientId, { name: "Desk assistant" });
    const page = await authorize(cookie, { scope: "openid email" }, ID_HOST, open);
    const yes = await post(cookie, { ...formOf(page.text), answer: "allow" });
    expect(onward(yes.text).searchParams.get("code")).not.toBeNull();
    // Let in, and asked again all the same: the page, and silently consent_required at its URI.
    expect((await authorize(cookie, { scope: "openid email" }, ID_HOST, open)).status).toBe(200);
    const silent = await authorize(cookie, { scope: "openid email", prompt: "none" }, null, open);
    expect(new URL(silent.headers.location as string).searchParams.get("error")).toBe("consent_required");
  });

  it("never asks about the operator's own clients", async () => {
    const { cookie } = await person();
    const res = await authorize(cookie, { scope: "openid email" }, ID_HOST, own);
    expect(res.status).toBe(302);
    expect(codeIn(res.headers.location)).not.toBeNull();
  });

  it("lists the app as unverified under the apps let in, and a disconnect takes the consent back", async () => {
    const { person: p, cookie } = await person();
    const fields = formOf((await authorize(cookie, { scope: "openid email" })).text);
    // Let in, never redeemed: the consent alone lists it.
    expect((await post(cookie, { ...fields, answer: "allow" })).status).toBe(200);
    const listed = await request(peopleApp).get("/auth/account/apps").set("Cookie", cookie);
    expect(listed.body.apps).toEqual([
      expect.objectContaining({
        clientId: agent.clientId,
        name: "Helpful <Agent>",
        unverified: true,
        actsWhileAway: false,
      }),
    ]);
    const gone = await request(peopleApp)
      .delete(`/auth/account/apps/${encodeURIComponent(agent.clientId)}`)
      .set("Cookie", cookie)
      .set("Origin", new URL(ID_URL).origin);
    expect(gone.status).toBe(200);
    expect(await consents.ofPerson(deps.store, p.id)).toEqual([]);
    // It asks again, on its consent page (not the reconnect question), and that yes lets it in.
    const page = await authorize(cookie, { scope: "openid email" });
    expect(page.text).toContain("use your account?");
    const yes = await post(cookie, { ...formOf(page.text), answer: "allow" });
    expect(onward(yes.text).searchParams.get("code")).not.toBeNull();
    expect(
      codeIn((await authorize(cookie, { scope: "openid email", prompt: "none" }, null)).headers.location),
    ).not.toBeNull();
  });
});
