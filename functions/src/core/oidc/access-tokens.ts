/**
 * The provider's access tokens, of two kinds, one record each (store/oidc-tokens):
 *
 * - **The provider's own** (no `resource` asked): 256 random bits, opaque, for userinfo and
 *   introspection; stored as its SHA-256.
 * - **For one resource** (RFC 8707 `resource`, core/oidc/resources): a JWT (RFC 9068, `typ:
 *   at+jwt`) signed by the provider's keys, its audience that resource alone, which the resource
 *   verifies offline with the provider's JWK Set. Its `jti` is 256 random bits, and its record is
 *   stored under the SHA-256 of the `jti`, so introspection and revocation know it; but the record
 *   answers only for the JWT, verified, never for a bare `jti` (one copied out of a resource's log
 *   is no bearer token). Revocation knows it; userinfo, which is not its audience, refuses it, and
 *   introspection calls it inactive (core/oidc/introspection). Offline verifiers cannot see a
 *   revocation, an ended grant or a person's lost access, so it lives
 *   ACCESS_TOKEN_FOR_RESOURCE_LIFETIME_MS only.
 */
import { MINUTE, HOUR } from "../../clock";
import type { Deps } from "../deps";
import { sha256 } from "../secrets";

/** How long an opaque access token of the provider's own is good for. */
export const ACCESS_TOKEN_LIFETIME_MS = 1 * HOUR;
/** How long an access token for a resource is good for: short, as no revocation reaches its verifier. */
export const ACCESS_TOKEN_FOR_RESOURCE_LIFETIME_MS = 10 * MINUTE;

export const accessTokenLifetimeMs = (resource: string | null): number =>
  resource === null ? ACCESS_TOKEN_LIFETIME_MS : ACCESS_TOKEN_FOR_RESOURCE_LIFETIME_MS;

/** What an access token for a resource says of its sign-in and grant. */
export interface AccessTokenClaims {
  resource: string;
  clientId: string;
  personId: string;
  scopes: string[];
  authTime: Date | null;
  acr: string | null;
}

/**
 * The token a client is handed for the record stored under sha256(`jti`): `jti` itself for the
 * provider's own, or the JWT for `claims.resource`, signed (on the thread pool) while the commit
 * that stores its record is on its way. Awaited only once that commit lands.
 */
export function handedOut(
  deps: Pick<Deps, "tokens" | "config">,
  jti: string,
  claims: AccessTokenClaims | null,
  now: Date,
): Promise<string> {
  if (claims === null) return Promise.resolve(jti);
  const iat = Math.floor(now.getTime() / 1000);
  const signing = deps.tokens.signAccessToken({
    iss: deps.config.serviceUrl,
    sub: claims.personId,
    aud: claims.resource,
    client_id: claims.clientId,
    iat,
    exp: iat + ACCESS_TOKEN_FOR_RESOURCE_LIFETIME_MS / 1000,
    jti,
    scope: claims.scopes.join(" "),
    ...(claims.authTime === null ? {} : { auth_time: Math.floor(claims.authTime.getTime() / 1000) }),
    ...(claims.acr === null ? {} : { acr: claims.acr }),
  });
  // A dropped one (its commit failed) must not surface as an unhandled rejection.
  signing.catch(() => {});
  return signing;
}

/**
 * Where the record of a presented access token is, and for which resource it must be: a JWT of
 * ours (signed by the ring, issued by this provider, not expired) by its `jti`, for its audience;
 * anything else as an opaque token of the provider's own. Null for a JWT that is not ours.
 */
export function presented(
  deps: Pick<Deps, "tokens" | "config" | "clock">,
  token: string,
): { hash: string; resource: string | null } | null {
  if (token.split(".").length !== 3) return { hash: sha256(token), resource: null };
  const read = deps.tokens.readAccessToken(token, deps.clock.now());
  if (read === null || read.iss !== deps.config.serviceUrl) return null;
  return { hash: sha256(read.jti), resource: read.aud };
}
