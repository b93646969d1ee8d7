/**
 * A client that registers itself chooses its own client_name, which is shown on the consent page
 * and in "Apps you've let in". It should not be able to take the name of one of the operator's own
 * clients, nor a look-alike of it (a Cyrillic letter for a Latin one, a doubled space, an invisible
 * filler character), and pass as one of the family's apps.
 */
import { randomBytes } from "node:crypto";
import request from "supertest";
import { registerClient } from "../../src/core/oidc/clients";
import * as oidc from "../../src/routes/oidc/oidc";
import { appFor, testConfig, testDeps, unique, registrationSettings } from "../support/deps";

const LOTS = { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 1000 };
const REDIRECT = "https://notes.example.test/callback";

describe("self-registered client_name", () => {
  const deps = testDeps({ config: testConfig({ oidcRegistration: registrationSettings("open", LOTS) }) });
  const app = appFor(oidc, deps);
  const ours = `Family calendar ${unique("n")}`;

  beforeAll(async () => {
    await registerClient(deps, {
      clientId: unique("own"),
      clientSecret: randomBytes(32).toString("base64url"),
      name: ours,
      redirectUris: ["https://calendar.example.test/cb"],
    });
  });

  const register = (name: string) =>
    request(app)
      .post("/auth/oidc/register")
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }));

  it.each([
    ["the operator's client's very name", (n: string) => n],
    ["a Cyrillic а for the Latin a", (n: string) => n.replace("a", "\u0430")],
    ["a Hangul filler (invisible, not a format character) appended", (n: string) => `${n}\u3164`],
    ["a doubled space", (n: string) => n.replace(" ", "  ")],
  ])("is refused when it is %s", async (_label, variant) => {
    const res = await register(variant(ours));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_client_metadata");
  });
});
