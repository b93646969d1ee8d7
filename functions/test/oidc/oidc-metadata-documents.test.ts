/**
 * Clients whose id is the https URL of their metadata document (core/oidc/metadata-documents):
 * the authorise endpoint reads the document through the guarded fetch, keeps the client as one
 * that registered itself, asks the person's consent, and the token endpoint takes the URL as a
 * public client's id with PKCE. A document that cannot be used is a page, never a redirect; a
 * reading stands as long as its headers say, within the provider's bounds; each first reading
 * counts against the registration budgets before anything is fetched; under `reviewed` the client
 * waits and the person who tried it is recorded; under `closed` nothing is fetched at all.
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import type { Express } from "express";
import { MINUTE } from "../../src/clock";
import { registerClient } from "../../src/core/oidc/clients";
import { reviewClient } from "../../src/core/oidc/client-review";
import { DOCUMENT_FRESH_MIN_MS } from "../../src/core/oidc/metadata-documents";
import * as oidc from "../../src/routes/oidc/oidc";
import * as clients from "../../src/store/oidc-clients";
import { appFor, registrationSettings, testConfig, testDeps, unique, type TestDeps } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { answerConsent, authorizedWithConsent, formOf, ID_HOST, onward } from "../support/consent";
import { documentServer, type DocumentServer } from "../support/document-server";
import { recordingLogger } from "../support/email-codes";
import { manualClock, type ManualClock } from "../support/fakes";
import type { RegistrationBudgets, RegistrationPolicy } from "../../src/core/settings";

/** Who reviews here: the operator, as `clients approve` and `clients block` do. */
const OPERATOR = { kind: "operator", name: "test" } as const;
const LOTS = { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 1000 };
const LOOPBACK = "http://127.0.0.1/callback";

/** The name of one of the operator's own apps, which no document may take. */
const FAMILY_APP = `Family Notes ${unique("n")}`;

let server: DocumentServer;
beforeAll(async () => {
  server = await documentServer();
  await registerClient(testDeps(), {
    clientId: unique("family"),
    clientSecret: randomBytes(24).toString("base64url"),
    name: FAMILY_APP,
    redirectUris: ["https://notes.example.test/cb"],
  });
});
afterAll(() => server.close());

/** The provider under `policy`, trusting the test's document server; made once the server listens. */
function world(policy: RegistrationPolicy, budgets: RegistrationBudgets = LOTS, clock?: ManualClock) {
  const made = {} as { deps: TestDeps; app: Express };
  beforeAll(() => {
    made.deps = testDeps({
      clock,
      config: testConfig({
        oidcRegistration: registrationSettings(policy, budgets, { devOrigins: [server.origin], ca: server.ca }),
      }),
    });
    made.app = appFor(oidc, made.deps);
  });
  return made;
}

/** A document of a client's own at a path of its own, with a loopback redirect URI and the rest given. */
function documentAt(fields: Record<string, unknown> = {}, cacheControl?: string): { url: string; path: string } {
  const path = `/${unique("agent")}/client.json`;
  const url = server.serve(path, { client_name: "Desk agent", redirect_uris: [LOOPBACK], ...fields }, cacheControl);
  return { url, path };
}

const challengeOf = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

function authorizeQuery(clientId: string, redirectUri = "http://127.0.0.1:49152/callback", verifier = "v".repeat(43)) {
  return new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: "code",
    scope: "openid",
    state: "s1",
    code_challenge: challengeOf(verifier),
    code_challenge_method: "S256",
  });
}

/** The code at `location` redeemed by the client `url` alone (a public client) with `verifier`. */
const redeem = (app: Express, url: string, location: URL, verifier: string) =>
  request(app)
    .post("/auth/oidc/token")
    .type("form")
    .send({
      grant_type: "authorization_code",
      code: location.searchParams.get("code") as string,
      redirect_uri: `${location.origin}${location.pathname}`,
      client_id: url,
      code_verifier: verifier,
    });

async function signedIn(deps: TestDeps) {
  const { account, person } = await accountWithPerson({ name: "Ada" });
  return { person, cookie: await sessionCookieFor(deps, account.uid, person.id) };
}

const authorize = (app: Express, clientId: string, cookie: string, redirectUri?: string) =>
  request(app)
    .get(`/auth/oidc/authorize?${authorizeQuery(clientId, redirectUri)}`)
    .set("Cookie", cookie)
    .set("X-Forwarded-Host", ID_HOST);

describe("a client_id that is its metadata document's URL", () => {
  describe("open", () => {
    const w = world("open");

    it("is read, asked consent for, and redeems its code as a public client with PKCE", async () => {
      const { deps, app } = w;
      const { url, path } = documentAt({ grant_types: ["authorization_code"] });
      const { cookie } = await signedIn(deps);
      const verifier = randomBytes(32).toString("base64url");
      const asked = await authorize(app, url, cookie);
      expect(asked.status).toBe(200);
      expect(asked.text).toContain("Let Desk agent use your account?");
      expect(asked.text).toContain(`It made itself known by a document on ${new URL(url).host}`);
      const location = await authorizedWithConsent(app, cookie, authorizeQuery(url, undefined, verifier));
      expect(location.origin).toBe("http://127.0.0.1:49152");
      const token = await redeem(app, url, location, verifier);
      expect(token.status).toBe(200);
      expect(token.body.id_token).toEqual(expect.any(String));
      const stored = await clients.findById(deps.store, url);
      expect(stored).toMatchObject({ registeredBy: "document", review: "approved", tokenAuth: "none", secrets: [] });
      // One reading served every step: the consent page, the yes and the code.
      expect(server.hits(path)).toBe(1);
    });

    it("is refused at the token endpoint without its PKCE verifier, as any public client", async () => {
      const { deps, app } = w;
      const { url } = documentAt();
      const { cookie } = await signedIn(deps);
      const location = await authorizedWithConsent(app, cookie, authorizeQuery(url));
      const token = await redeem(app, url, location, "w".repeat(43));
      expect(token.status).toBe(400);
      expect(token.body.error).toBe("invalid_grant");
    });

    it("is read again only once its reading is stale, within the provider's bounds", async () => {
      const { deps, app } = w;
      const { url, path } = documentAt({}, "max-age=1");
      const { cookie } = await signedIn(deps);
      expect((await authorize(app, url, cookie)).status).toBe(200);
      expect(server.hits(path)).toBe(1);
      // max-age=1 is held to the provider's floor: no fetch per request.
      deps.clock.advance(DOCUMENT_FRESH_MIN_MS - MINUTE);
      expect((await authorize(app, url, cookie)).status).toBe(200);
      expect(server.hits(path)).toBe(1);
      deps.clock.advance(2 * MINUTE);
      server.serve(path, { client_name: "Desk agent, renamed", redirect_uris: [LOOPBACK] });
      const again = await authorize(app, url, cookie);
      expect(server.hits(path)).toBe(2);
      expect(again.text).toContain("Desk agent, renamed");
    });

    it("is written where the operator reads who came in", async () => {
      const { deps } = w;
      const log = recordingLogger();
      const logged = appFor(oidc, { ...deps, log });
      const { url } = documentAt();
      const { cookie } = await signedIn(deps);
      expect((await authorize(logged, url, cookie)).status).toBe(200);
      expect(log.lines.map((l) => JSON.parse(l))).toContainEqual({
        message: "client registered itself",
        clientId: url,
        review: "approved",
        by: "metadata document",
        redirectHosts: ["127.0.0.1"],
      });
    });

    it("writes each person's yes and no where the operator reads them, with ids alone", async () => {
      const { deps } = w;
      const log = recordingLogger();
      const logged = appFor(oidc, { ...deps, log });
      const { url } = documentAt();
      const yes = await signedIn(deps);
      await authorizedWithConsent(logged, yes.cookie, authorizeQuery(url));
      const no = await signedIn(deps);
      const asked = await authorize(logged, url, no.cookie);
      const refused = await answerConsent(logged, no.cookie, { ...formOf(asked.text), answer: "deny" });
      expect(onward(refused.text).searchParams.get("error")).toBe("access_denied");
      const lines = log.lines.map((l) => JSON.parse(l));
      const said = { clientId: url, resource: null, scopes: ["openid"] };
      expect(lines).toContainEqual({ message: "app let in by person", personId: yes.person.id, ...said });
      expect(lines).toContainEqual({ message: "app refused by person", personId: no.person.id, ...said });
      expect(log.lines.join("\n")).not.toContain("@");
    });

    it("still needs one of its redirect URIs", async () => {
      const { deps, app } = w;
      const { url } = documentAt();
      const { cookie } = await signedIn(deps);
      const res = await authorize(app, url, cookie, "http://127.0.0.1:49152/elsewhere");
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
    });

    describe("a document that cannot be used is a page, never a redirect, and no client is kept", () => {
      it.each<[string, () => { url: string; path: string }, RegExp]>([
        [
          "whose client_id is another URL",
          () => documentAt({ client_id: `${server.origin}/someone-else.json` }),
          /another client_id/,
        ],
        ["that holds a secret", () => documentAt({ client_secret: "s3cret" }), /secret/],
        [
          "that wants a secret",
          () => documentAt({ token_endpoint_auth_method: "client_secret_basic" }),
          /authenticates with &quot;none&quot; alone/,
        ],
        [
          "that sends people to another host",
          () => documentAt({ redirect_uris: ["https://elsewhere.example/cb"] }),
          /must be on 127\.0\.0\.1/,
        ],
        ["with no redirect URI", () => documentAt({ redirect_uris: [] }), /redirect_uris/],
        [
          "named as one of the family's own apps",
          () => documentAt({ client_name: FAMILY_APP.toUpperCase() }),
          /own apps/,
        ],
        [
          "that redirects",
          () => {
            const path = `/${unique("moved")}/client.json`;
            return {
              url: server.serve(path, { status: 302, headers: { Location: `${server.origin}/x.json` }, body: "" }),
              path,
            };
          },
          /redirect/i,
        ],
        ["too large", () => documentAt({ padding: "x".repeat(6 * 1024) }), /large|bytes/i],
        [
          "that is not JSON",
          () => {
            const path = `/${unique("page")}/client.json`;
            return {
              url: server.serve(path, { headers: { "Content-Type": "text/html" }, body: "<html></html>" }),
              path,
            };
          },
          /JSON/,
        ],
      ])("a document %s", async (_, make, said) => {
        const { deps, app } = w;
        const { url } = make();
        const { cookie } = await signedIn(deps);
        const res = await authorize(app, url, cookie);
        expect(res.status).toBe(400);
        expect(res.headers.location).toBeUndefined();
        expect(res.type).toBe("text/html");
        expect(res.text).toMatch(said);
        expect(await clients.findById(deps.store, url)).toBeNull();
      });
    });

    it.each([
      [
        "a loopback address the operator did not name",
        (port: string) => `https://127.0.0.1:${Number(port) + 1}/client.json`,
      ],
      ["a name that resolves to loopback", (port: string) => `https://localhost:${port}/client.json`],
      ["the cloud's metadata address", () => "https://169.254.169.254/latest/client.json"],
      ["a private network", () => "https://10.1.2.3/client.json"],
    ])("is refused at %s, with nothing fetched", async (_, at) => {
      const { deps, app } = w;
      const url = at(new URL(server.origin).port);
      const { cookie } = await signedIn(deps);
      const res = await authorize(app, url, cookie);
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/public|address/i);
      expect(await clients.findById(deps.store, url)).toBeNull();
    });

    it("is named in the server's metadata", async () => {
      const { app } = w;
      const res = await request(app).get("/.well-known/oauth-authorization-server");
      expect(res.body.client_id_metadata_document_supported).toBe(true);
    });
  });

  describe("first readings count against the registration budgets", () => {
    // An hour of its own, whose counters no other test spends.
    const hour = manualClock(new Date(Date.UTC(2032, 2, 4, 5, 30)));
    const budgeted = world("open", { perNetworkHour: 2, perEdgeHour: 1000, perServiceHour: 1000 }, hour);
    it("refuses a network's next new document once its hour is spent, before fetching it", async () => {
      const { deps, app } = budgeted;
      const { cookie } = await signedIn(deps);
      const [a, b, c] = [documentAt(), documentAt(), documentAt()];
      expect((await authorize(app, a!.url, cookie)).status).toBe(200);
      expect((await authorize(app, b!.url, cookie)).status).toBe(200);
      const third = await authorize(app, c!.url, cookie);
      expect(third.status).toBe(429);
      expect(server.hits(c!.path)).toBe(0);
      // A client already read is no new registration: it is served on.
      expect((await authorize(app, a!.url, cookie)).status).toBe(200);
      // Counted apart: readings any page can start spend none of the network's registrations.
      const registered = await request(app)
        .post("/auth/oidc/register")
        .set("Content-Type", "application/json")
        .send(JSON.stringify({ client_name: "Notes", redirect_uris: [LOOPBACK], token_endpoint_auth_method: "none" }));
      expect(registered.status).toBe(201);
    });
  });

  describe("reviewed", () => {
    const w = world("reviewed");

    it("waits: the person who tried is told on a page and recorded, and gets in once it is approved", async () => {
      const { deps, app } = w;
      const { url } = documentAt();
      const { cookie, person } = await signedIn(deps);
      const waiting = await authorize(app, url, cookie);
      expect(waiting.status).toBe(200);
      expect(waiting.headers.location).toBeUndefined();
      expect(waiting.text).toContain("Desk agent is waiting for review");
      expect(waiting.text).toContain("We'll email you at");
      expect(await clients.findById(deps.store, url)).toMatchObject({ review: "waiting", triedBy: [person.id] });
      await reviewClient(deps, url, "approved", OPERATOR);
      deps.clients.evict(url);
      const asked = await authorize(app, url, cookie);
      expect(asked.text).toContain("Let Desk agent use your account?");
    });

    it("sends a person with no session to sign in first, never to the app", async () => {
      const { app } = w;
      const { url } = documentAt();
      const res = await request(app)
        .get(`/auth/oidc/authorize?${authorizeQuery(url)}`)
        .set("X-Forwarded-Host", ID_HOST);
      expect(res.status).toBe(302);
      expect(new URL(res.headers.location as string).origin).toBe("https://id.example.test");
    });

    it("goes back to waiting when its document changes its name or where it sends people", async () => {
      const { deps, app } = w;
      const { url, path } = documentAt({}, "max-age=600");
      const { cookie } = await signedIn(deps);
      await authorize(app, url, cookie);
      await reviewClient(deps, url, "approved", OPERATOR);
      server.serve(path, { client_name: "Desk agent", redirect_uris: ["http://127.0.0.1/other"] }, "max-age=600");
      deps.clock.advance(11 * MINUTE);
      const res = await authorize(app, url, cookie, "http://127.0.0.1:49152/other");
      expect(res.text).toContain("is waiting for review");
      expect((await clients.findById(deps.store, url))?.review).toBe("waiting");
    });

    it("goes back to waiting when its document asks to act while people are away", async () => {
      const { deps, app } = w;
      const { url, path } = documentAt({}, "max-age=600");
      const { cookie } = await signedIn(deps);
      await authorize(app, url, cookie);
      await reviewClient(deps, url, "approved", OPERATOR);
      server.serve(
        path,
        { client_name: "Desk agent", redirect_uris: [LOOPBACK], grant_types: ["authorization_code", "refresh_token"] },
        "max-age=600",
      );
      deps.clock.advance(11 * MINUTE);
      expect((await authorize(app, url, cookie)).text).toContain("is waiting for review");
      expect(await clients.findById(deps.store, url)).toMatchObject({ review: "waiting", refreshTokens: true });
    });

    it("stays blocked, and is not read again", async () => {
      const { deps, app } = w;
      const { url, path } = documentAt();
      const { cookie } = await signedIn(deps);
      await authorize(app, url, cookie);
      await reviewClient(deps, url, "blocked", OPERATOR);
      deps.clock.advance(2 * 24 * 60 * MINUTE);
      const res = await authorize(app, url, cookie);
      expect(res.status).toBe(400);
      expect(res.text).toContain("Unknown client");
      expect(server.hits(path)).toBe(1);
    });
  });

  describe("closed, the default", () => {
    const w = world("closed");

    it("is an unknown client, and nothing is fetched", async () => {
      const { deps, app } = w;
      const { url, path } = documentAt();
      const { cookie } = await signedIn(deps);
      const res = await authorize(app, url, cookie);
      expect(res.status).toBe(400);
      expect(res.text).toContain("Unknown client");
      expect(server.hits(path)).toBe(0);
      const meta = await request(app).get("/.well-known/oauth-authorization-server");
      expect(meta.body.client_id_metadata_document_supported).toBe(false);
    });
  });
});
