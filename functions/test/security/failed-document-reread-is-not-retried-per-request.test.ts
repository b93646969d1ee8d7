/**
 * A kept document client is read again at most once per its freshness (docs/endpoints/oidc.md
 * "Kept and read again"), and its first reading is what the registration budget counted. A
 * re-reading that fails (the server errs, is slow, or the document no longer checks out) must not
 * leave the client stale for the next request to fetch again: else, after one counted first
 * reading, anyone could make the provider fetch the URL once per request without bound.
 */
import request from "supertest";
import { HOUR, MINUTE } from "../../src/clock";
import { DOCUMENT_FRESH_MIN_MS } from "../../src/core/oidc/metadata-documents";
import { unique } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { ID_HOST } from "../support/consent";
import { documentAuthorizeQuery, documentWorld } from "../support/document-clients";

const world = documentWorld("open");
const query = (clientId: string) => documentAuthorizeQuery(clientId);

it("fetches a failing document once per the provider's floor, not once per request", async () => {
  const path = `/${unique("agent")}/client.json`;
  const url = world.server.serve(path, { client_name: "Desk agent", redirect_uris: ["http://127.0.0.1/callback"] });
  const { account, person } = await accountWithPerson({ name: "Ada" });
  const cookie = await sessionCookieFor(world.deps, account.uid, person.id);
  const authorize = () =>
    request(world.app)
      .get(`/auth/oidc/authorize?${query(url)}`)
      .set("Cookie", cookie)
      .set("X-Forwarded-Host", ID_HOST);
  expect((await authorize()).status).toBe(200);
  expect(world.server.hits(path)).toBe(1);

  // Stale, and now failing: the first request after reads it, and is refused with a page.
  world.deps.clock.advance(HOUR + MINUTE);
  world.server.serve(path, { status: 500, body: "down" });
  const failed = await authorize();
  expect(failed.status).toBe(400);
  expect(failed.headers.location).toBeUndefined();
  expect(world.server.hits(path)).toBe(2);
  // The requests after it, within the floor, fetch nothing more; nor do they let the client in.
  for (let i = 0; i < 5; i++) {
    const again = await authorize();
    expect(again.status).toBe(400);
    expect(again.headers.location).toBeUndefined();
  }
  expect(world.server.hits(path)).toBe(2);

  // Past the floor it is tried again, and once it answers the client is served again.
  world.deps.clock.advance(DOCUMENT_FRESH_MIN_MS + MINUTE);
  world.server.serve(path, { client_name: "Desk agent", redirect_uris: ["http://127.0.0.1/callback"] });
  const back = await authorize();
  expect(world.server.hits(path)).toBe(3);
  expect(back.text).toContain("Let Desk agent use your account?");
});
