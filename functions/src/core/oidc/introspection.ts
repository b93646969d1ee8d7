/**
 * Whether a token the provider issued is good now, in one place: userinfo asks it of an access
 * token, and token introspection (RFC 7662) of either kind, for the client it was issued to.
 *
 * - An access token is good until it expires or is revoked (a refresh replaces it, a revocation
 *   or an ended grant deletes it), while its person may still sign in to its client (approved,
 *   with the client's project where it names one) with the account it was issued for, and while
 *   the client is enabled.
 * - A refresh token is good while it is its grant's newest, the grant has not ended nor outlived
 *   its lifetime, and the same holds of its person and client.
 *
 * Introspection answers `{ "active": false }` alone for a token that is not good, unknown, or
 * issued to another client (§2.2): a client learns nothing of any token but its own. An access
 * token for a resource (core/oidc/access-tokens) is its resource's to verify, offline: here it is
 * inactive, so that a client's own API is never told that another site's token is good.
 */
import * as clients from "../../store/oidc-clients";
import * as accessTokens from "../../store/oidc-tokens";
import type { AccessToken } from "../../store/oidc-tokens";
import * as people from "../../store/people";
import { readTogether } from "../../store/db";
import type { Deps } from "../deps";
import { usable, type OidcClient } from "../model/oidc-client";
import type { Person } from "../model/person";
import { mayStillUse } from "../people/access";
import { presented } from "./access-tokens";
import { findResource, grantStillOpen } from "./resources";
import { grantOf, presentedIds } from "./refresh";

type LiveDeps = Pick<Deps, "store" | "clock" | "tokens" | "config">;

/** Whether `person` may still use what `client` was given for the account `uid`. */
async function stillTheirs(
  deps: LiveDeps,
  personId: string,
  clientId: string,
  uid: string,
): Promise<{ person: Person; client: OidcClient } | null> {
  // One call for both, whatever their collections.
  const [person, client] = await readTogether(
    deps.store,
    people.byId(deps.store, personId),
    clients.byId(deps.store, clientId),
  );
  if (client === null || !usable(client) || !mayStillUse(person, client, uid)) return null;
  return { person, client };
}

/**
 * The access token presented, with its person and client, while it is good; null otherwise. A
 * JWT for a resource is found by its `jti` and must be for the resource its record names; an
 * opaque token must be one of the provider's own (core/oidc/access-tokens).
 */
export async function liveAccessToken(
  deps: LiveDeps,
  accessToken: string,
): Promise<{ token: AccessToken; person: Person; client: OidcClient } | null> {
  const which = presented(deps, accessToken);
  if (which === null) return null;
  const token = await accessTokens.findByHash(deps.store, which.hash);
  if (token === null || token.resource !== which.resource) return null;
  if (deps.clock.now().getTime() >= token.expiresAt.getTime()) return null;
  const theirs = await stillTheirs(deps, token.personId, token.clientId, token.uid);
  return theirs === null ? null : { token, ...theirs };
}

const seconds = (at: Date): number => Math.floor(at.getTime() / 1000);
const INACTIVE = { active: false } as const;

/** RFC 7662 §2.2's answer for a good token issued to `client`, of either kind. */
function active(
  deps: Pick<Deps, "config">,
  client: OidcClient,
  token: { type: "Bearer" | "refresh_token"; scopes: string[]; personId: string; issuedAt: Date; expiresAt: Date },
): Record<string, unknown> {
  return {
    active: true,
    token_type: token.type,
    scope: token.scopes.join(" "),
    client_id: client.clientId,
    sub: token.personId,
    aud: client.clientId,
    iss: deps.config.serviceUrl,
    iat: seconds(token.issuedAt),
    exp: seconds(token.expiresAt),
  };
}

/** POST /auth/oidc/introspect for the authenticated `client`: RFC 7662 §2.2's answer. */
export async function introspect(
  deps: LiveDeps & Pick<Deps, "pepper" | "config">,
  client: OidcClient,
  token: string,
): Promise<Record<string, unknown>> {
  const access = await liveAccessToken(deps, token);
  if (access !== null) {
    const { clientId, scopes, personId, resource, createdAt, expiresAt } = access.token;
    // A token for a resource is that resource's to verify (offline, by its audience): the client's
    // own API, asking here, must not be told another site's token is good.
    if (clientId !== client.clientId || resource !== null) return INACTIVE;
    return active(deps, client, { type: "Bearer", scopes, personId, issuedAt: createdAt, expiresAt });
  }
  const found = await grantOf(deps, null, presentedIds(deps, token));
  const grant = found?.grant ?? null;
  if (found === null || grant === null || found.clientId !== client.clientId) return INACTIVE;
  const now = deps.clock.now();
  if (found.tokenId !== grant.tokenId || grant.endedAt !== null || now.getTime() >= grant.expiresAt.getTime())
    return INACTIVE;
  const theirs = await stillTheirs(deps, grant.personId, grant.clientId, grant.uid);
  if (theirs === null) return INACTIVE;
  // A grant for a resource since removed or closed to the client, or whose project the person has
  // lost, refreshes no more (core/oidc/refresh).
  if (grant.resource !== null) {
    const resource = await findResource(deps, grant.resource);
    if (!grantStillOpen(resource, client, grant.resourceSince)) return INACTIVE;
    if (!mayStillUse(theirs.person, resource, grant.uid)) return INACTIVE;
  }
  const { scopes, personId, expiresAt } = grant;
  return active(deps, client, { type: "refresh_token", scopes, personId, issuedAt: found.issuedAt, expiresAt });
}
