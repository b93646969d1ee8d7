/**
 * Whatever a stranger posts to POST /auth/oidc/register, the answer is a refusal in RFC 7591's
 * words (4xx), never a 500, and what is stored is what was answered.
 */
import request from "supertest";
import * as oidc from "../../src/routes/oidc/oidc";
import * as clients from "../../src/store/oidc-clients";
import { appFor, testConfig, testDeps, registrationSettings } from "../support/deps";

const LOTS = { perNetworkHour: 100000, perEdgeHour: 100000, perServiceHour: 100000 };
const R = "https://notes.example.test/callback";

describe("malformed registrations", () => {
  const deps = testDeps({ config: testConfig({ oidcRegistration: registrationSettings("open", LOTS) }) });
  const app = appFor(oidc, deps);
  const post = (raw: string) =>
    request(app).post("/auth/oidc/register").set("Content-Type", "application/json").send(raw);

  it.each([
    ["an array", "[]"],
    ["null", "null"],
    ["a string", '"x"'],
    ["a number", "5"],
    ["redirect_uris a string", JSON.stringify({ client_name: "N", redirect_uris: R })],
    ["client_name an object", JSON.stringify({ client_name: { a: 1 }, redirect_uris: [R] })],
    ["grant_types with a number", JSON.stringify({ client_name: "N", redirect_uris: [R], grant_types: [1] })],
    ["client_uri a number", JSON.stringify({ client_name: "N", redirect_uris: [R], client_uri: 5 })],
    [
      "token auth toString",
      JSON.stringify({ client_name: "N", redirect_uris: [R], token_endpoint_auth_method: "toString" }),
    ],
    ["userinfo in https", JSON.stringify({ client_name: "N", redirect_uris: ["https://a@evil.example.test/"] })],
    [
      "loopback with userinfo",
      JSON.stringify({ client_name: "N", redirect_uris: ["http://127.0.0.1:80@evil.example.test/"] }),
    ],
    ["IPv6 long loopback", JSON.stringify({ client_name: "N", redirect_uris: ["http://[0:0:0:0:0:0:0:1]/cb"] })],
    ["uppercase scheme loopback", JSON.stringify({ client_name: "N", redirect_uris: ["HTTP://127.0.0.1/cb"] })],
    ["loopback trailing dot", JSON.stringify({ client_name: "N", redirect_uris: ["http://127.0.0.1./cb"] })],
    [
      "loopback backslash",
      JSON.stringify({ client_name: "N", redirect_uris: ["http://127.0.0.1\\@evil.example.test/cb"] }),
    ],
    ["loopback empty port", JSON.stringify({ client_name: "N", redirect_uris: ["http://127.0.0.1:/cb"] })],
  ])("refuses %s with a 4xx", async (_label, raw) => {
    const res = await post(raw);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it("answers a lone surrogate in client_name with a 4xx, not a 5xx from the store", async () => {
    const res = await post('{"client_name":"Notes \\ud800","redirect_uris":["' + R + '"]}');
    expect(res.status).toBeLessThan(500);
    if (res.status === 201) {
      const stored = await clients.findById(deps.store, res.body.client_id);
      expect(stored?.name).toBe(res.body.client_name);
    }
  });
});
