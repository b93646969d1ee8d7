/**
 * A client waiting for review keeps the first TRIED_BY_MAX people who tried it, to tell them of
 * the reviewer's decision. The page a person sees says "We'll email you" only when they are on
 * that list: once it is full (by anyone's sign-ins, the registrant's own accounts among them) a
 * later person is told to try again later, not promised a mail that will never come.
 */
import request from "supertest";
import { TRIED_BY_MAX } from "../../src/core/model/oidc-client";
import * as clients from "../../src/store/oidc-clients";
import { unique } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { ID_HOST } from "../support/consent";
import { documentAuthorizeQuery, documentWorld } from "../support/document-clients";

const world = documentWorld("reviewed");
const query = (clientId: string) => documentAuthorizeQuery(clientId);

async function tries(url: string) {
  const { account, person } = await accountWithPerson({ name: "Ada" });
  const cookie = await sessionCookieFor(world.deps, account.uid, person.id);
  const res = await request(world.app)
    .get(`/auth/oidc/authorize?${query(url)}`)
    .set("Cookie", cookie)
    .set("X-Forwarded-Host", ID_HOST);
  return { res, person };
}

it("promises no mail to a person it did not record", async () => {
  const url = world.server.serve(`/${unique("agent")}/client.json`, {
    client_name: "Desk agent",
    redirect_uris: ["http://127.0.0.1/callback"],
  });
  const first = await tries(url);
  expect(first.res.text).toContain("We'll email you at");
  const kept = await clients.findById(world.deps.store, url);
  const others = Array.from({ length: TRIED_BY_MAX - 1 }, (_, i) => `someone-${i}`);
  await clients.save(world.deps.store, { ...kept!, triedBy: [...kept!.triedBy, ...others] });

  const late = await tries(url);
  expect(late.res.status).toBe(200);
  expect(late.res.text).toContain("is waiting for review");
  expect((await clients.findById(world.deps.store, url))?.triedBy).not.toContain(late.person.id);
  expect(late.res.text).not.toContain("We'll email you");
});
