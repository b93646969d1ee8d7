import { HOUR } from "../../clock";
import type { Deps } from "../deps";
import { readTogether, type Transaction } from "../../store/db";
import * as codes from "../../store/oidc-codes";
import * as accessTokens from "../../store/oidc-tokens";
import { AppError, ensure } from "../errors";
import { groupCommit } from "../group-commit";
import { pkceMatches } from "../pkce";
import { sha256 } from "../secrets";
import { personFor } from "../sessions/sessions";
import { mayStillUse } from "../people/access";
import { claimsFor, OFFLINE_ACCESS } from "./scopes";
import { beginGrant, endGrant, newGrant, type NewGrant } from "./grants";
import { recordSignIn } from "./backchannel";
import { accessTokenLifetimeMs, handedOut } from "./access-tokens";
import { findResource, mayAskFor, scopesDefined } from "./resources";
import type { Resource } from "../model/resource";
import * as grants from "../../store/oidc-grants";
import type { OidcGrant } from "../model/oidc-grant";
import { type Person } from "../model/person";
import type { OidcClient, RegisteredBy } from "../model/oidc-client";

export const ID_TOKEN_LIFETIME_MS = 1 * HOUR;

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  /** For a sign-in that asked for `openid`; a request for a resource alone (plain OAuth) gets none. */
  id_token?: string;
  scope: string;
  /** For a client registered for refresh tokens, when the sign-in asked for `offline_access`. */
  refresh_token?: string;
}

/** At most this many redemptions share a transaction: two writes each, within a commit's 500. */
export const REDEMPTIONS_PER_TRANSACTION = 100;
/** Transactions of redemptions running at once on an instance. */
export const REDEMPTION_TRANSACTIONS_IN_FLIGHT = 2;

interface Redemption {
  clientId: string;
  /** Who registered the client: one that registered itself may ask for a resource open to agents. */
  registeredBy: RegisteredBy;
  /** The client's project, which the person must hold (maySignInTo); null: none asked. */
  project: string | null;
  hash: string;
  redirectUri: string;
  codeVerifier: string | null;
  /** `resource` as the token request sent it (RFC 8707 §2.2): if sent, the code's own; null: not sent. */
  resource: string | null;
  /** The access token's `jti`: the opaque token itself, or the one the JWT for a resource names. */
  jti: string;
  tokenHash: string;
  /** The grant to begin if the code asked for offline_access: ready for a client registered for refresh tokens. */
  grant: NewGrant | null;
}

/** An issued decision carries its ID token being signed, to be handed out only once the commit lands. */
type Decision =
  | {
      kind: "issued";
      stored: codes.OidcCode;
      accessToken: Promise<string>;
      idToken: Promise<string | null>;
      refreshToken: string | null;
    }
  | { kind: "replayed" }
  | { kind: "refused"; error: AppError };

type TokenDeps = Pick<Deps, "store" | "clock" | "tokens" | "config" | "personCache" | "transaction" | "pepper">;

/**
 * One redemption, inside the batch's transaction: the code's checks, then its writes. A code
 * presented again after it was used, with its verifier, is refused, and the access token it was
 * redeemed for is revoked in the same commit (RFC 6749 §4.1.2). A wrong verifier, redirect URI
 * or client neither uses the code up nor revokes anything.
 */
function decide(
  deps: TokenDeps,
  tx: Transaction,
  r: Redemption,
  stored: codes.OidcCode | null,
  person: Person | null,
  replayedGrant: OidcGrant | null,
  resource: Resource | null,
  now: Date,
  recorded: Set<string>,
): Decision {
  ensure(stored && stored.clientId === r.clientId, "oauth_invalid_grant");
  ensure(stored.redirectUri === r.redirectUri, "oauth_invalid_grant");
  // A code issued without a challenge (a PKCE-optional client) must be redeemed without a verifier,
  // and one issued with a challenge only with its verifier (RFC 9700 §2.1.1: no downgrade).
  ensure(
    stored.codeChallenge === null
      ? r.codeVerifier === null
      : r.codeVerifier !== null && pkceMatches(r.codeVerifier, stored.codeChallenge),
    "oauth_invalid_grant",
  );
  // Only a presentation that proves possession (the verifier) counts as a reuse: a code seen
  // without it cannot be used to revoke what its rightful redemption was given.
  if (stored.usedAt !== null) {
    if (stored.accessTokenHash !== null) accessTokens.revoke(deps.store, tx, stored.accessTokenHash);
    if (replayedGrant !== null && replayedGrant.endedAt === null)
      endGrant(deps, tx, replayedGrant, now, "code_replayed");
    return { kind: "replayed" };
  }
  ensure(now.getTime() < stored.expiresAt.getTime(), "oauth_invalid_grant");
  // A token for another resource than the sign-in asked for is not this code's to give; nor one for
  // a resource removed since (registered afresh after the code was made), or no longer open to this client.
  ensure(r.resource === null || r.resource === stored.resource, "oauth_invalid_target");
  ensure(
    stored.resource === null || (mayAskFor(resource, r) && stored.createdAt.getTime() >= resource.createdAt.getTime()),
    "oauth_invalid_target",
  );
  // The scopes the resource defines now (one registered afresh meanwhile may define fewer).
  const issued = { ...stored, scopes: scopesDefined(resource, stored.scopes) };
  // A person who is no longer approved, or no longer has the client's project (or the resource's),
  // or no longer holds the account the code was issued to (let go with an address), gets nothing:
  // the code is spent, and no token is stored.
  if (!mayStillUse(person, r, issued.uid) || (resource !== null && !mayStillUse(person, resource, issued.uid))) {
    codes.markUsed(deps.store, tx, r.hash, now, null);
    return { kind: "refused", error: new AppError("oauth_invalid_grant") };
  }
  const expiresAt = new Date(now.getTime() + accessTokenLifetimeMs(issued.resource));
  accessTokens.create(deps.store, tx, {
    hash: r.tokenHash,
    clientId: issued.clientId,
    uid: issued.uid,
    personId: issued.personId,
    scopes: issued.scopes,
    resource: issued.resource,
    createdAt: now,
    expiresAt,
  });
  // The session it came from, as the client will know it: back-channel logout tells the client when it ends.
  const sid = issued.sessionKey === null ? null : recordSignIn(deps, tx, issued, issued.sessionKey, now, recorded);
  const grant = r.grant !== null && issued.scopes.includes(OFFLINE_ACCESS) ? r.grant : null;
  if (grant !== null) beginGrant(deps, tx, grant, issued, r.tokenHash, sid, now, resource?.createdAt ?? null);
  codes.markUsed(deps.store, tx, r.hash, now, { hash: r.tokenHash, expiresAt }, grant?.id ?? null);
  const forResource = issued.resource === null ? null : { ...issued, resource: issued.resource };
  return {
    kind: "issued",
    stored: issued,
    accessToken: handedOut(deps, r.jti, forResource, now),
    idToken: signIdToken(deps, { ...issued, sid }, person, now),
    refreshToken: grant?.token ?? null,
  };
}

/** What an ID token tells of the sign-in behind it: the code's, or the grant's it began. */
export type SignIn = Pick<codes.OidcCode, "clientId" | "nonce" | "authTime" | "amr" | "acr" | "scopes"> & {
  /** The sign-in's `sid` for this client (core/oidc/backchannel); null when it came from no session. */
  sid: string | null;
};

/**
 * Starts signing the ID token (on libuv's thread pool) while the batch's commit is on its way,
 * so the signature and the round trip overlap. A signature whose commit fails, or whose
 * transaction is retried, is never handed out. A sign-in that did not ask for `openid` (an OAuth
 * request for a resource alone, as an MCP client makes) gets no ID token: null.
 */
export function signIdToken(
  deps: Pick<Deps, "tokens" | "config">,
  signIn: SignIn,
  person: Person,
  now: Date,
): Promise<string | null> {
  if (!signIn.scopes.includes("openid")) return Promise.resolve(null);
  const iat = Math.floor(now.getTime() / 1000);
  const signing = deps.tokens.signIdToken({
    iss: deps.config.serviceUrl,
    sub: person.id,
    aud: signIn.clientId,
    iat,
    exp: iat + ID_TOKEN_LIFETIME_MS / 1000,
    ...(signIn.nonce === null ? {} : { nonce: signIn.nonce }),
    ...(signIn.authTime === null ? {} : { auth_time: Math.floor(signIn.authTime.getTime() / 1000) }),
    ...(signIn.amr.length === 0 ? {} : { amr: signIn.amr }),
    ...(signIn.acr === null ? {} : { acr: signIn.acr }),
    ...(signIn.sid === null ? {} : { sid: signIn.sid }),
    ...claimsFor(person, signIn.scopes),
  });
  // Awaited only if the commit lands; a dropped one must not surface as an unhandled rejection.
  signing.catch(() => {});
  return signing;
}

/** Decides a batch of redemptions of distinct codes in one transaction: one read of them all, one commit. */
function decideAll(deps: TokenDeps, batch: Redemption[]): Promise<Decision[]> {
  return deps.transaction(async (tx) => {
    const [found] = await readTogether(
      tx,
      codes.byHash(
        deps.store,
        batch.map((r) => r.hash),
      ),
    );
    // The people behind unused codes, through the per-instance cache every gated request uses:
    // read before anything is written, so a person who may not sign in gets no token stored.
    const owners = await Promise.all(
      found.map((code) =>
        code && code.usedAt === null ? personFor(deps, { uid: code.uid, personId: code.personId }) : null,
      ),
    );
    // The grants of codes presented again, to end with them; read, as every read, before a write.
    const replayed = await Promise.all(
      found.map((code) =>
        code && code.usedAt !== null && code.grantId !== null ? grants.find(deps.store, code.grantId, tx) : null,
      ),
    );
    // The resources unused codes were issued for, as the operator has them now (a removal, or a
    // client no longer let in, counts from the moment it is made).
    const resources = await Promise.all(
      found.map((code) =>
        code && code.usedAt === null && code.resource !== null ? findResource(deps, code.resource, tx) : null,
      ),
    );
    const now = deps.clock.now();
    // One write per sign-in in a commit, however many of the batch's codes came from it.
    const recorded = new Set<string>();
    return batch.map((r, i): Decision => {
      try {
        const [code, owner, grant, resource] = [found[i], owners[i], replayed[i], resources[i]];
        return decide(deps, tx, r, code ?? null, owner ?? null, grant ?? null, resource ?? null, now, recorded);
      } catch (error) {
        if (error instanceof AppError) return { kind: "refused", error };
        throw error;
      }
    });
  });
}

export type Redeemer = (input: {
  client: OidcClient;
  code: string;
  redirectUri: string;
  codeVerifier: string | null;
  resource: string | null;
}) => Promise<TokenResponse>;

/**
 * Redeems authorization codes, each once: a transaction decides, so of any number of concurrent
 * redemptions of a code (on any instance) exactly one wins, and the code is marked used in the
 * same commit that stores its access token.
 *
 * Concurrent redemptions on this instance share a transaction (group commit, see
 * group-commit.ts): under load the database work per token shrinks instead of queueing, and
 * each code is still decided on its own. Two redemptions of one code never share a batch.
 *
 * The person is checked inside the batch, before its commit, through the same per-instance
 * person cache as every gated request: a person who is no longer approved gets no tokens, and
 * their code is spent with no access token stored. The ID token is signed while the commit is
 * on its way and handed out only once it has landed.
 */
export function authorizationCodeRedeemer(
  deps: Pick<Deps, "store" | "clock" | "random" | "tokens" | "config" | "personCache" | "transaction" | "pepper">,
): Redeemer {
  const decideGrouped = groupCommit(
    (batch: Redemption[]) => decideAll(deps, batch),
    (r) => r.hash,
    {
      maxBatch: REDEMPTIONS_PER_TRANSACTION,
      inFlight: REDEMPTION_TRANSACTIONS_IN_FLIGHT,
    },
  );
  return async (input) => {
    const jti = deps.random.token(32);
    const tokenHash = sha256(jti);
    const decision = await decideGrouped({
      clientId: input.client.clientId,
      registeredBy: input.client.registeredBy,
      project: input.client.project,
      hash: sha256(input.code),
      redirectUri: input.redirectUri,
      codeVerifier: input.codeVerifier,
      resource: input.resource,
      jti,
      tokenHash,
      grant: input.client.refreshTokens ? newGrant(deps) : null,
    });
    // Thrown after the commit, so a replay's revocation is kept.
    if (decision.kind === "refused") throw decision.error;
    if (decision.kind === "replayed") throw new AppError("oauth_invalid_grant");
    const { stored } = decision;
    return tokenResponse(decision.accessToken, decision.idToken, stored.scopes, decision.refreshToken, stored.resource);
  };
}

/**
 * The token endpoint's answer, once what it answers for has committed: the access token (a JWT
 * for a resource) and the ID token awaited (a signature that failed is a server error, and
 * nothing more is handed out).
 */
export async function tokenResponse(
  accessTokenSigning: Promise<string>,
  signing: Promise<string | null>,
  scopes: string[],
  refreshToken: string | null,
  resource: string | null,
): Promise<TokenResponse> {
  let idToken: string | null;
  let accessToken: string;
  try {
    [accessToken, idToken] = await Promise.all([accessTokenSigning, signing]);
  } catch {
    throw new AppError("oauth_server_error");
  }
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: accessTokenLifetimeMs(resource) / 1000,
    ...(idToken === null ? {} : { id_token: idToken }),
    scope: scopes.join(" "),
    ...(refreshToken === null ? {} : { refresh_token: refreshToken }),
  };
}
