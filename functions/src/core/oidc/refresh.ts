/**
 * Refresh tokens (RFC 6749 §6) and their revocation (RFC 7009), for a client the operator
 * registered for them, once a sign-in that asked for `offline_access` is redeemed: the grant
 * (core/model/oidc-grant) the redemption begins lets the client act while the person is away.
 *
 * - A refresh token is 256 random bits, stored only as its keyed hash (core/pepper), bound to its
 *   client, and good for one use: each refresh answers a new one and ends the one presented.
 * - One presented again after it was rotated out ends its grant, with the access token last
 *   issued on it, and the newest refresh token with it (RFC 9700 §4.14.2): whoever holds a copy,
 *   thief or client, must send the person to sign in again. Two refreshes with one token at once
 *   are the same thing, decided in a transaction: one wins, and the other ends the grant.
 * - A grant ends for good GRANT_LIFETIME_MS (core/oidc/grants) after the sign-in that began it, however often it is
 *   used; and at the first refresh after its person may no longer sign in (no longer approved,
 *   or erased, which deletes it outright).
 * - Revoking a refresh token, current or rotated out, ends its grant; an access token is revoked
 *   on its own.
 */
import { mayStillUse } from "../people/access";
import { readTogether, type Transaction } from "../../store/db";
import * as grants from "../../store/oidc-grants";
import * as accessTokens from "../../store/oidc-tokens";
import * as people from "../../store/people";
import type { Deps } from "../deps";
import { AppError, ensure } from "../errors";
import type { GrantEnd, OidcGrant } from "../model/oidc-grant";
import { endGrant, newToken } from "./grants";
import type { OidcClient } from "../model/oidc-client";
import type { Person } from "../model/person";
import { pepperRing, refreshTokenIds } from "../pepper";
import { sha256 } from "../secrets";
import { signIdToken, tokenResponse, type TokenResponse } from "./token";
import { accessTokenLifetimeMs, handedOut, presented } from "./access-tokens";
import { findResource, grantStillOpen, scopesDefined } from "./resources";
import { inTurn, TurnRefused } from "../in-turn";

/**
 * Refreshes of one token by one client on this instance are decided one after another
 * (core/in-turn): of ten presented at once, the first is answered and the next ends the grant as a
 * reuse, each deciding on what the one before committed, none told to try again because they
 * collided in the store. Keyed by the client too, so that presentations under another client
 * (refused without a write) never hold the owner's line. A line holds REFRESH_LINE waiting, and a
 * refresh whose turn comes after REFRESH_WAIT_MS, half the request's 8 s deadline (http/app), is
 * answered 503 without running: a refresh answered "try again" has changed nothing, and a retry
 * with the same token is safe.
 */
export const REFRESH_LINE = 16;
export const REFRESH_WAIT_MS = 4000;
const refreshesInTurn = inTurn({ waiting: REFRESH_LINE, waitMs: REFRESH_WAIT_MS });

/** A presented refresh token's ids: its keyed hash under each key of the pepper's ring, the current first. */
export const presentedIds = (deps: Pick<Deps, "pepper">, refreshToken: string): string[] =>
  refreshTokenIds(pepperRing(deps), refreshToken);

/**
 * The grant a presented refresh token was issued on (current or rotated out), read in `tx` (null:
 * outside one), by the token's ids (`presentedIds`).
 */
export async function grantOf(
  deps: Pick<Deps, "store">,
  tx: Transaction | null,
  ids: string[],
): Promise<{ grant: OidcGrant | null; tokenId: string; clientId: string; issuedAt: Date } | null> {
  const [records] = await readTogether(tx ?? deps.store, grants.tokensById(deps.store, ids));
  const record = records.find((r) => r !== null) ?? null;
  if (record === null) return null;
  return {
    grant: await grants.find(deps.store, record.grantId, tx ?? undefined),
    tokenId: record.id,
    clientId: record.clientId,
    issuedAt: record.createdAt,
  };
}

type Outcome =
  | { kind: "issued"; grant: OidcGrant; person: Person; scopes: string[]; now: Date; accessToken: Promise<string> }
  | { kind: "refused"; error: AppError };

const refused = (): Outcome => ({ kind: "refused", error: new AppError("oauth_invalid_refresh_token") });

type RefreshDeps = Pick<Deps, "store" | "clock" | "random" | "pepper" | "transaction" | "tokens" | "config">;

/**
 * One refresh: in a transaction, the token presented is checked against its grant and traded for
 * the next one and a new access token; a refusal that ends the grant is committed before it is
 * answered. `scope`, when sent, narrows what the new access token may read (RFC 6749 §6).
 * `resource`, when sent, must be the grant's (RFC 8707 §2.2). A grant for a resource the operator
 * has since removed, or no longer opens to the client, refreshes no more; one whose person lacks
 * the resource's project now ends; and the scopes it carries are those the resource still defines.
 */
export async function refreshGrant(
  deps: RefreshDeps,
  input: { client: OidcClient; refreshToken: string; scope: string | null; resource: string | null },
): Promise<TokenResponse> {
  const next = newToken(deps);
  const jti = deps.random.token(32);
  const accessTokenHash = sha256(jti);
  const asked = input.scope === null ? null : input.scope.split(" ").filter((s) => s !== "");
  const ids = presentedIds(deps, input.refreshToken);
  const key = `${input.client.clientId}\u0000${ids[0] as string}`;
  const outcome = await refreshesInTurn(key, () =>
    decideRefresh(deps, { ...input, ids }, { next, accessTokenHash, jti, asked }),
  ).catch((err: unknown) => {
    if (err instanceof TurnRefused) throw new AppError("service_unavailable");
    throw err;
  });
  if (outcome.kind === "refused") throw outcome.error;
  const { grant, person, scopes, now, accessToken } = outcome;
  // The sign-in it began with (auth_time, amr, acr), and no nonce: none was sent for this one.
  const signing = signIdToken(deps, { ...grant, nonce: null, scopes }, person, now);
  return tokenResponse(accessToken, signing, scopes, next.token, grant.resource);
}

/** The refresh's transaction: the token presented checked against its grant and traded, or refused. */
function decideRefresh(
  deps: RefreshDeps,
  input: { client: OidcClient; ids: string[]; resource: string | null },
  made: { next: ReturnType<typeof newToken>; accessTokenHash: string; jti: string; asked: string[] | null },
): Promise<Outcome> {
  const { next, accessTokenHash, jti, asked } = made;
  return deps.transaction(async (tx): Promise<Outcome> => {
    const found = await grantOf(deps, tx, input.ids);
    // Another client's token is not this client's to use, nor to end.
    if (found === null || found.clientId !== input.client.clientId) return refused();
    const { grant } = found;
    if (grant === null || grant.endedAt !== null) return refused();
    const person = await people.findById(deps.store, grant.personId, tx);
    const now = deps.clock.now();
    const end = (because: GrantEnd): Outcome => {
      endGrant(deps, tx, grant, now, because);
      return refused();
    };
    if (found.tokenId !== grant.tokenId) return end("reuse");
    if (now.getTime() >= grant.expiresAt.getTime()) return refused();
    // No longer approved, or without the client's project, or without the account signed in with.
    if (!mayStillUse(person, input.client, grant.uid)) return end("person");
    if (input.resource !== null && input.resource !== grant.resource)
      return { kind: "refused", error: new AppError("oauth_invalid_target") };
    // Its resource, as the operator has it now: removed (or registered afresh since) or closed to
    // the client, it ends the grant, so that opening it again later brings no old grant back.
    const resource = grant.resource === null ? null : await findResource(deps, grant.resource, tx);
    if (grant.resource !== null && !grantStillOpen(resource, input.client, grant.resourceSince)) {
      endGrant(deps, tx, grant, now, "resource");
      return {
        kind: "refused",
        error: new AppError("oauth_invalid_target", "The resource is no longer open to this client"),
      };
    }
    if (resource !== null && !mayStillUse(person, resource, grant.uid)) return end("person");
    const scopes = scopesDefined(resource, asked ?? grant.scopes);
    if (!scopes.every((s) => grant.scopes.includes(s)))
      return { kind: "refused", error: new AppError("oauth_invalid_scope", "scope may only narrow what was granted") };
    grants.addToken(
      deps.store,
      tx,
      { id: next.tokenId, grantId: grant.id, clientId: grant.clientId, personId: grant.personId, createdAt: now },
      grant,
    );
    grants.rotate(deps.store, tx, grant.id, { tokenId: next.tokenId, accessTokenHash, lastUsedAt: now });
    if (grant.accessTokenHash !== null) accessTokens.revoke(deps.store, tx, grant.accessTokenHash);
    accessTokens.create(deps.store, tx, {
      hash: accessTokenHash,
      clientId: grant.clientId,
      uid: grant.uid,
      personId: grant.personId,
      scopes,
      resource: grant.resource,
      createdAt: now,
      expiresAt: new Date(now.getTime() + accessTokenLifetimeMs(grant.resource)),
    });
    const claims = grant.resource === null ? null : { ...grant, resource: grant.resource, scopes };
    return { kind: "issued", grant, person, scopes, now, accessToken: handedOut(deps, jti, claims, now) };
  });
}

/**
 * Revocation (RFC 7009 §2): a refresh token ends its grant, an access token ends alone. A token
 * that is unknown, expired or already revoked is answered as revoked; one issued to another
 * client is refused, and left as it is.
 */
export async function revokeToken(
  deps: Pick<Deps, "store" | "clock" | "pepper" | "transaction" | "random" | "tokens" | "config">,
  client: OidcClient,
  token: string,
): Promise<void> {
  const ids = presentedIds(deps, token);
  const mine = await deps.transaction(async (tx) => {
    const found = await grantOf(deps, tx, ids);
    if (found !== null) {
      if (found.clientId !== client.clientId) return false;
      if (found.grant !== null && found.grant.endedAt === null)
        endGrant(deps, tx, found.grant, deps.clock.now(), "revoked");
      return true;
    }
    // A JWT for a resource by its `jti`; a bare `jti` is no token of its own (core/oidc/access-tokens).
    const which = presented(deps, token);
    const access = which === null ? null : await accessTokens.findByHash(deps.store, which.hash, tx);
    if (which === null || access === null || access.resource !== which.resource) return true;
    if (access.clientId !== client.clientId) return false;
    accessTokens.revoke(deps.store, tx, which.hash);
    return true;
  });
  ensure(mine, "oauth_invalid_request", "the token was issued to another client");
}
