/**
 * A client known by its metadata document is kept at `url:` and its URL's SHA-256
 * (store/oidc-clients). That key is the store's, never a client id: a request naming it is an
 * unknown client at every endpoint, so one client answers to one id, the URL, and its document's
 * freshness, its consents and its disconnects cannot be side-stepped under a second name.
 */
import { createHash } from "node:crypto";
import request from "supertest";
import type { Express } from "express";
import * as oidc from "../../src/routes/oidc/oidc";
import * as clients from "../../src/store/oidc-clients";
import { appFor, registrationSettings, testConfig, testDeps, unique, type TestDeps } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { ID_HOST } from "../support/consent";
import { documentServer, type DocumentServer } from "../support/document-server";

const LOTS = { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 1000 };
const CALLBACK = "http://127.0.0.1:49152/callback";

let server: DocumentServer;
let deps: TestDeps;
let app: Express;
beforeAll(async () => {
  server = await documentServer();
  deps = testDeps({
    config: testConfig({
      oidcRegistration: registrationSettings("open", LOTS, { devOrigins: [server.origin], ca: server.ca }),
    }),
  });
  app = appFor(oidc, deps);
});
afterAll(() => server.close());

const query = (clientId: string) =>
  new URLSearchParams({
    client_id: clientId,
    redirect_uri: CALLBACK,
    response_type: "code",
    scope: "openid",
    state: "s1",
    code_challenge: createHash("sha256").update("v".repeat(43)).digest("base64url"),
    code_challenge_method: "S256",
  });

it("answers to its URL alone, never to the key it is stored under", async () => {
  const url = server.serve(`/${unique("agent")}/client.json`, {
    client_name: "Desk agent",
    redirect_uris: ["http://127.0.0.1/callback"],
  });
  const { account, person } = await accountWithPerson({ name: "Ada" });
  const cookie = await sessionCookieFor(deps, account.uid, person.id);
  const asked = await request(app)
    .get(`/auth/oidc/authorize?${query(url)}`)
    .set("Cookie", cookie)
    .set("X-Forwarded-Host", ID_HOST);
  expect(asked.text).toContain("Let Desk agent use your account?");

  const key = `url:${createHash("sha256").update(url).digest("hex")}`;
  expect(await clients.findById(deps.store, key)).toBeNull();
  const aliased = await request(app)
    .get(`/auth/oidc/authorize?${query(key)}`)
    .set("Cookie", cookie)
    .set("X-Forwarded-Host", ID_HOST);
  expect(aliased.status).toBe(400);
  expect(aliased.text).not.toContain("Desk agent");
  const token = await request(app)
    .post("/auth/oidc/token")
    .type("form")
    .send({
      grant_type: "authorization_code",
      code: "x",
      redirect_uri: CALLBACK,
      client_id: key,
      code_verifier: "v".repeat(43),
    });
  expect(token.body.error).toBe("invalid_client");
});
