/**
 * A client waiting for review keeps the first TRIED_BY_MAX people who tried it, to tell them of
 * the reviewer's decision. The page a person sees says "We'll email you" only when they are on
 * that list: once it is full (by anyone's sign-ins, the registrant's own accounts among them) a
 * later person is told to try again later, not promised a mail that will never come.
 */
import { createHash } from "node:crypto";
import request from "supertest";
import type { Express } from "express";
import { TRIED_BY_MAX } from "../../src/core/model/oidc-client";
import * as oidc from "../../src/routes/oidc/oidc";
import * as clients from "../../src/store/oidc-clients";
import { appFor, registrationSettings, testConfig, testDeps, unique, type TestDeps } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { ID_HOST } from "../support/consent";
import { documentServer, type DocumentServer } from "../support/document-server";

const LOTS = { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 1000 };

let server: DocumentServer;
let deps: TestDeps;
let app: Express;
beforeAll(async () => {
  server = await documentServer();
  deps = testDeps({
    config: testConfig({
      oidcRegistration: registrationSettings("reviewed", LOTS, { devOrigins: [server.origin], ca: server.ca }),
    }),
  });
  app = appFor(oidc, deps);
});
afterAll(() => server.close());

const query = (clientId: string) =>
  new URLSearchParams({
    client_id: clientId,
    redirect_uri: "http://127.0.0.1:49152/callback",
    response_type: "code",
    scope: "openid",
    state: "s1",
    code_challenge: createHash("sha256").update("v".repeat(43)).digest("base64url"),
    code_challenge_method: "S256",
  });

async function tries(url: string) {
  const { account, person } = await accountWithPerson({ name: "Ada" });
  const cookie = await sessionCookieFor(deps, account.uid, person.id);
  const res = await request(app)
    .get(`/auth/oidc/authorize?${query(url)}`)
    .set("Cookie", cookie)
    .set("X-Forwarded-Host", ID_HOST);
  return { res, person };
}

it("promises no mail to a person it did not record", async () => {
  const url = server.serve(`/${unique("agent")}/client.json`, {
    client_name: "Desk agent",
    redirect_uris: ["http://127.0.0.1/callback"],
  });
  const first = await tries(url);
  expect(first.res.text).toContain("We'll email you at");
  const kept = await clients.findById(deps.store, url);
  const others = Array.from({ length: TRIED_BY_MAX - 1 }, (_, i) => `someone-${i}`);
  await clients.save(deps.store, { ...kept!, triedBy: [...kept!.triedBy, ...others] });

  const late = await tries(url);
  expect(late.res.status).toBe(200);
  expect(late.res.text).toContain("is waiting for review");
  expect((await clients.findById(deps.store, url))?.triedBy).not.toContain(late.person.id);
  expect(late.res.text).not.toContain("We'll email you");
});
