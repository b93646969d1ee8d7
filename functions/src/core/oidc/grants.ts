/**
 * Grants (core/model/oidc-grant) begun and ended: written in the transaction of what begins or
 * ends them (a redemption, a refresh, a revocation, a replayed code). What a grant lets a client
 * do, and when it ends, is told in core/oidc/refresh.
 */
import { DAY } from "../../clock";
import type { Transaction } from "../../store/db";
import * as grants from "../../store/oidc-grants";
import * as accessTokens from "../../store/oidc-tokens";
import type { OidcCode } from "../../store/oidc-codes";
import type { Deps } from "../deps";
import type { GrantEnd, OidcGrant } from "../model/oidc-grant";
import { pepperRing, refreshTokenIds } from "../pepper";

/** How long a grant lasts from the sign-in that began it, however often it is refreshed. */
export const GRANT_LIFETIME_MS = 30 * DAY;

/** A grant ready to begin: its id, and its first refresh token with the id it is stored under. */
export interface NewGrant {
  id: string;
  token: string;
  tokenId: string;
}

/** A fresh refresh token and the id it is stored under (the ring's first key). */
export function newToken(deps: Pick<Deps, "random" | "pepper">): { token: string; tokenId: string } {
  const token = deps.random.token(32);
  return { token, tokenId: refreshTokenIds(pepperRing(deps), token)[0] as string };
}

export function newGrant(deps: Pick<Deps, "random" | "pepper">): NewGrant {
  return { id: deps.random.id(), ...newToken(deps) };
}

/** Writes the grant a redemption begins, in its transaction, with its first token and access token. */
export function beginGrant(
  deps: Pick<Deps, "store">,
  tx: Transaction,
  grant: NewGrant,
  code: OidcCode,
  accessTokenHash: string,
  sid: string | null,
  now: Date,
  resourceSince: Date | null,
): void {
  const stored: OidcGrant = {
    id: grant.id,
    clientId: code.clientId,
    uid: code.uid,
    personId: code.personId,
    scopes: code.scopes,
    resource: code.resource,
    resourceSince,
    authTime: code.authTime,
    amr: code.amr,
    acr: code.acr,
    sid,
    createdAt: now,
    lastUsedAt: now,
    expiresAt: new Date((code.authTime ?? now).getTime() + GRANT_LIFETIME_MS),
    tokenId: grant.tokenId,
    accessTokenHash,
    endedAt: null,
    endedBecause: null,
  };
  grants.create(deps.store, tx, stored);
  grants.addToken(
    deps.store,
    tx,
    { id: grant.tokenId, grantId: grant.id, clientId: code.clientId, personId: code.personId, createdAt: now },
    stored,
  );
}

/** Ends the grant, and the access token last issued on it, in `tx`. */
export function endGrant(
  deps: Pick<Deps, "store">,
  tx: Transaction,
  grant: OidcGrant,
  now: Date,
  because: GrantEnd,
): void {
  grants.end(deps.store, tx, grant.id, now, because);
  if (grant.accessTokenHash !== null) accessTokens.revoke(deps.store, tx, grant.accessTokenHash);
}
