/**
 * The consent page's form posts the authorise request back with its `max_age`, so a page left open
 * and answered long after the sign-in the app asked to be recent gives no code for that sign-in.
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import * as oidc from "../../src/routes/oidc/oidc";
import { MINUTE } from "../../src/clock";
import { appFor, testConfig, testDeps, registrationSettings } from "../support/deps";
import { manualClock } from "../support/fakes";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { answerConsent, formOf, ID_HOST } from "../support/consent";

const LOTS = { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 1000 };
const REDIRECT = "https://notes.example.test/callback";

describe("max_age on the consent page's post", () => {
  const clock = manualClock(new Date(Date.UTC(2033, 4, 5, 10, 0)));
  const deps = testDeps({ clock, config: testConfig({ oidcRegistration: registrationSettings("open", LOTS) }) });
  const app = appFor(oidc, deps);

  it("gives no code for a sign-in older than the max_age asked for", async () => {
    const reg = await request(app)
      .post("/auth/oidc/register")
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ client_name: "Notes", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }));
    expect(reg.status).toBe(201);
    const { account, person } = await accountWithPerson({ name: "Ada" });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const verifier = randomBytes(32).toString("base64url");
    const q = new URLSearchParams({
      client_id: reg.body.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid",
      state: "s",
      max_age: "120",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    });
    const page = await request(app)
      .get(`/auth/oidc/authorize?${q}`)
      .set("Cookie", cookie)
      .set("X-Forwarded-Host", ID_HOST);
    expect(page.status).toBe(200);
    clock.advance(30 * MINUTE);
    const yes = await answerConsent(app, cookie, { ...formOf(page.text), answer: "allow" });
    expect(yes.text).not.toContain("code=");
  });
});
