/**
 * A client known by its metadata document is kept at `url:` and its URL's SHA-256
 * (store/oidc-clients). That key is the store's, never a client id: a request naming it is an
 * unknown client at every endpoint, so one client answers to one id, the URL, and its document's
 * freshness, its consents and its disconnects cannot be side-stepped under a second name.
 */
import { createHash } from "node:crypto";
import request from "supertest";
import * as clients from "../../src/store/oidc-clients";
import { unique } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { ID_HOST } from "../support/consent";
import { DOCUMENT_CALLBACK, documentAuthorizeQuery, documentWorld } from "../support/document-clients";

const CALLBACK = DOCUMENT_CALLBACK;
const world = documentWorld("open");
const query = (clientId: string) => documentAuthorizeQuery(clientId);

it("answers to its URL alone, never to the key it is stored under", async () => {
  const url = world.server.serve(`/${unique("agent")}/client.json`, {
    client_name: "Desk agent",
    redirect_uris: ["http://127.0.0.1/callback"],
  });
  const { account, person } = await accountWithPerson({ name: "Ada" });
  const cookie = await sessionCookieFor(world.deps, account.uid, person.id);
  const asked = await request(world.app)
    .get(`/auth/oidc/authorize?${query(url)}`)
    .set("Cookie", cookie)
    .set("X-Forwarded-Host", ID_HOST);
  expect(asked.text).toContain("Let Desk agent use your account?");

  const key = `url:${createHash("sha256").update(url).digest("hex")}`;
  expect(await clients.findById(world.deps.store, key)).toBeNull();
  const aliased = await request(world.app)
    .get(`/auth/oidc/authorize?${query(key)}`)
    .set("Cookie", cookie)
    .set("X-Forwarded-Host", ID_HOST);
  expect(aliased.status).toBe(400);
  expect(aliased.text).not.toContain("Desk agent");
  const token = await request(world.app)
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
