/**
 * Under OIDC_REGISTRATION=open anyone may register an https redirect URI of their choosing. RFC 9700
 * §4.11.2: an authorisation server must not redirect automatically to a URI it has no reason to
 * trust. A self-registered client that no person has let in must not turn the identity host into a
 * redirector: a link to the authorise endpoint, opened by someone not signed in or with a broken
 * request, should not bounce the browser straight on to the registrant's host.
 */
import request from "supertest";
import * as oidc from "../../src/routes/oidc/oidc";
import { appFor, testConfig, testDeps, registrationSettings } from "../support/deps";
import { ID_HOST } from "../support/consent";

const LOTS = { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 1000 };
const PHISH = "https://phish.example.test/login";

describe("a freshly self-registered client under `open`", () => {
  const deps = testDeps({ config: testConfig({ oidcRegistration: registrationSettings("open", LOTS) }) });
  const app = appFor(oidc, deps);
  let clientId = "";

  beforeAll(async () => {
    const res = await request(app)
      .post("/auth/oidc/register")
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ client_name: "Redirector", redirect_uris: [PHISH], token_endpoint_auth_method: "none" }));
    expect(res.status).toBe(201);
    clientId = res.body.client_id;
  });

  const goesToPhish = (res: request.Response) =>
    res.status === 302 && new URL(res.headers.location as string).host === "phish.example.test";

  it("does not bounce a malformed request (no scope) straight to the registrant's host", async () => {
    const q = new URLSearchParams({ client_id: clientId, redirect_uri: PHISH, response_type: "code" });
    const res = await request(app).get(`/auth/oidc/authorize?${q}`).set("X-Forwarded-Host", ID_HOST);
    expect(goesToPhish(res)).toBe(false);
  });

  it("does not bounce a prompt=none request from someone not signed in straight to the registrant's host", async () => {
    const q = new URLSearchParams({
      client_id: clientId,
      redirect_uri: PHISH,
      response_type: "code",
      scope: "openid",
      prompt: "none",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    const res = await request(app).get(`/auth/oidc/authorize?${q}`).set("X-Forwarded-Host", ID_HOST);
    expect(goesToPhish(res)).toBe(false);
  });
});
