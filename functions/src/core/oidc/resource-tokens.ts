/**
 * How a resource of the family itself (the MCP server, routes/mcp) takes the provider's access
 * tokens for it. Any resource verifies such a token offline (core/oidc/access-tokens): a JWT typed
 * `at+jwt`, signed by the provider's keys, issued by the provider, for that resource alone,
 * unexpired. One that shares the provider's store asks more, on every request, since it can: the
 * token's record still stands (not revoked, its grant not ended, its person and client still
 * good, as introspection decides, core/oidc/introspection), the resource is still registered, and
 * the person may still have what the resource serves, as the browser's gate decides.
 */
import { createLocalJWKSet, jwtVerify, type JWTPayload } from "jose";
import type { Deps } from "../deps";
import type { Person } from "../model/person";
import { AppError, ensure } from "../errors";
import { ensureAccess } from "../people/access";
import { liveAccessToken } from "./introspection";
import { findResource, mayAskFor, scopesDefined } from "./resources";

/** What a good token gives the resource: whose it is, through which client, with which scopes. */
export interface ResourceGrant {
  person: Person;
  clientId: string;
  scopes: string[];
}

type AdmitDeps = Pick<Deps, "store" | "clock" | "tokens" | "config">;

/** The ring's public keys as jose reads them, made once per ring (per instance). */
const keySets = new WeakMap<Deps["tokens"], ReturnType<typeof createLocalJWKSet>>();

function keySetOf(tokens: Deps["tokens"]): ReturnType<typeof createLocalJWKSet> {
  let keys = keySets.get(tokens);
  if (keys === undefined) keySets.set(tokens, (keys = createLocalJWKSet(tokens.publicJwks())));
  return keys;
}

/** RFC 9068 §4's checks, made with the provider's own key ring, never fetched: null for any failure. */
async function verified(deps: AdmitDeps, token: string, resource: string): Promise<JWTPayload | null> {
  try {
    const { payload } = await jwtVerify(token, keySetOf(deps.tokens), {
      // Its own type: an ID token, a logout token or a session token, signed by the same ring, is none.
      typ: "at+jwt",
      algorithms: ["RS256"],
      issuer: deps.config.serviceUrl,
      audience: resource,
      currentDate: deps.clock.now(),
      requiredClaims: ["exp", "iat", "jti", "sub", "client_id"],
    });
    return payload;
  } catch {
    return null;
  }
}

/**
 * The grant behind `token` for the resource at `resource`, while it is good; `resource_token_invalid`
 * for any token that is not (the same answer for each cause: a caller learns nothing of why), and
 * the gate's own refusal for a person who may no longer have what `project` serves.
 */
export async function admitAccessToken(
  deps: AdmitDeps,
  token: string,
  resource: string,
  project: string,
): Promise<ResourceGrant> {
  const claims = await verified(deps, token, resource);
  // jose takes an audience array that holds the resource; the provider issues one audience alone,
  // and anything else was not made for this resource only.
  ensure(claims !== null && claims.aud === resource, "resource_token_invalid");
  const live = await liveAccessToken(deps, token);
  // The record is the JWT's own (its jti's), for this resource, and says what the JWT says.
  const stands =
    live !== null &&
    live.token.resource === resource &&
    live.token.personId === claims.sub &&
    live.token.clientId === claims.client_id;
  if (!stands) throw new AppError("resource_token_invalid");
  // Removed by the operator, registered afresh since the token was made, or no longer open to its
  // client: nothing is served for it any more, however young the token.
  const registered = await findResource(deps, resource);
  ensure(
    mayAskFor(registered, live.client) && live.token.createdAt.getTime() >= registered.createdAt.getTime(),
    "resource_token_invalid",
  );
  // The browser's gate's own decision (core/people/access), its own refusals: approved, and
  // granted what the resource serves, and the resource's own project where it names one.
  ensureAccess(live.person, { project }, "gate");
  if (registered.project !== null) ensureAccess(live.person, { project: registered.project }, "gate");
  // Only the scopes the resource defines now: one it has stopped defining is served no more.
  return { person: live.person, clientId: live.token.clientId, scopes: scopesDefined(registered, live.token.scopes) };
}

/** The scopes of `needed` the grant lacks; empty when it holds them all. */
export function missingScopes(grant: Pick<ResourceGrant, "scopes">, needed: readonly string[]): string[] {
  return needed.filter((scope) => !grant.scopes.includes(scope));
}
