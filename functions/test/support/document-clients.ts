/**
 * The provider as the tests of clients known by their metadata documents use it
 * (core/oidc/metadata-documents): the oidc group under a registration policy, trusting an https
 * document server of the test file's own, both made once it listens; and the authorise request
 * such a client sends.
 */
import { createHash } from "node:crypto";
import type { Express } from "express";
import * as oidc from "../../src/routes/oidc/oidc";
import type { RegistrationBudgets, RegistrationPolicy } from "../../src/core/settings";
import { appFor, registrationSettings, testConfig, testDeps, type TestDeps } from "./deps";
import { documentServer, type DocumentServer } from "./document-server";
import type { ManualClock } from "./fakes";

export const LOTS: RegistrationBudgets = { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 1000 };
/** Where the tests' document clients send the person back: loopback, on a port of the client's (RFC 8252). */
export const DOCUMENT_CALLBACK = "http://127.0.0.1:49152/callback";

export interface DocumentWorld {
  server: DocumentServer;
  deps: TestDeps;
  app: Express;
}

/** A world made in `beforeAll` and closed in `afterAll` of the calling block; its fields are set by then. */
export function documentWorld(
  policy: RegistrationPolicy,
  budgets: RegistrationBudgets = LOTS,
  clock?: ManualClock,
): DocumentWorld {
  const world = {} as DocumentWorld;
  beforeAll(async () => {
    world.server = await documentServer();
    const documents = { devOrigins: [world.server.origin], ca: world.server.ca };
    world.deps = testDeps({
      clock,
      config: testConfig({ oidcRegistration: registrationSettings(policy, budgets, documents) }),
    });
    world.app = appFor(oidc, world.deps);
  });
  afterAll(() => world.server.close());
  return world;
}

/** The authorise request of the client `clientId`, with PKCE for `verifier`. */
export function documentAuthorizeQuery(
  clientId: string,
  redirectUri = DOCUMENT_CALLBACK,
  verifier = "v".repeat(43),
): URLSearchParams {
  return new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: "code",
    scope: "openid",
    state: "s1",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  });
}
