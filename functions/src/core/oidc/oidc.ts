import { HOUR, MINUTE } from "../../clock";
import type { Deps } from "../../deps";
import * as codes from "../../store/oidc-codes";
import * as clients from "../../store/oidc-clients";
import * as people from "../../store/people";
import * as accessTokens from "../../store/oidc-tokens";
import type { Transaction } from "../../store/db";
import { AppError, ensure } from "../errors";
import { groupCommit } from "../group-commit";
import { findClient } from "./clients";
import { isS256Challenge, pkceMatches } from "../pkce";
import { constantTimeEqual, sha256 } from "../secrets";
import { personFor } from "../sessions/sessions";

/** The code travels once through the browser and is redeemed by the client's server at once. */
export const AUTHORIZATION_CODE_LIFETIME_MS = 1 * MINUTE;
export const ACCESS_TOKEN_LIFETIME_MS = 1 * HOUR;
export const ID_TOKEN_LIFETIME_MS = 1 * HOUR;
export const SCOPES = ["openid", "email", "profile"] as const;

export interface AuthorizeParams {
  clientId?: string;
  redirectUri?: string;
  responseType?: string;
  scope?: string;
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  prompt?: string;
  maxAge?: string;
}

export interface AuthorizeRequest {
  client: clients.OidcClient;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  nonce: string | null;
  codeChallenge: string;
  /** `prompt` (OpenID Connect Core §3.1.2.1): none, or the identity host's pages it asks for. */
  prompt: { none: boolean; login: boolean; selectAccount: boolean };
  /** `max_age` in seconds: how long ago the person may have authenticated; null for any time. */
  maxAgeSeconds: number | null;
}

/**
 * `consent` is accepted and needs no page: clients are registered by the operator, whose
 * registration stands for it. Any other value is refused rather than silently ignored.
 */
export const PROMPTS = ["none", "login", "consent", "select_account"] as const;
const MAX_AGE = /^\d{1,10}$/;

function parsePrompt(value: string | undefined): AuthorizeRequest["prompt"] {
  const prompts = (value ?? "").split(" ").filter((p) => p !== "");
  ensure(prompts.every((p) => (PROMPTS as readonly string[]).includes(p)), "oauth_invalid_request", `prompt may only be ${PROMPTS.join(", ")}`);
  // "none" promises no page at all, so it cannot be asked together with one (§3.1.2.1).
  ensure(!prompts.includes("none") || prompts.length === 1, "oauth_invalid_request", "prompt none cannot be combined with another value");
  return { none: prompts.includes("none"), login: prompts.includes("login"), selectAccount: prompts.includes("select_account") };
}


/**
 * Everything that must hold before anything may be sent to `redirect_uri`. The client and its
 * exact redirect URI come first: until both are known good, a refusal is answered to the caller
 * and never delivered to the URI in the request (an open redirector otherwise).
 */
export async function checkAuthorizeRequest(deps: Pick<Deps, "store" | "clients">, p: AuthorizeParams): Promise<AuthorizeRequest> {
  ensure(p.clientId, "oauth_invalid_request", "client_id is required");
  const client = await findClient(deps, p.clientId);
  ensure(client, "oauth_unknown_client");
  // Exact string match against the registered list: no prefix, no wildcard, no normalisation.
  ensure(p.redirectUri !== undefined && client.redirectUris.includes(p.redirectUri), "oauth_redirect_not_registered");
  ensure(p.responseType === "code", "oauth_unsupported_response_type");
  const scopes = (p.scope ?? "").split(" ").filter((s) => s !== "");
  ensure(scopes.includes("openid"), "oauth_invalid_request", "scope must include openid");
  // PKCE for every client, confidential ones too (RFC 9700 §2.1.1); `plain` would protect nothing.
  ensure(p.codeChallengeMethod === "S256" && p.codeChallenge !== undefined && isS256Challenge(p.codeChallenge), "oauth_pkce_required");
  ensure(p.maxAge === undefined || MAX_AGE.test(p.maxAge), "oauth_invalid_request", "max_age must be a whole number of seconds");
  return {
    client,
    redirectUri: p.redirectUri,
    scopes: scopes.filter((s) => (SCOPES as readonly string[]).includes(s)),
    state: p.state ?? null,
    nonce: p.nonce ?? null,
    codeChallenge: p.codeChallenge,
    prompt: parsePrompt(p.prompt),
    maxAgeSeconds: p.maxAge === undefined ? null : Number(p.maxAge),
  };
}

/**
 * What the authorise endpoint does next for a valid request:
 * - `sign-in`: send the browser to the identity host, asking it for `prompt` (null: its usual page).
 * - `error`: tell the client at its redirect URI.
 * - `code`: issue one, for the session given.
 * A sign-in too old for `max_age` counts as none. With `prompt=none` nothing may be shown, so
 * where a page would be needed the client hears `login_required` instead.
 */
export type AuthorizeStep<S> = { kind: "sign-in"; prompt: string | null } | { kind: "error"; error: "login_required" | "access_denied" } | { kind: "code"; session: S };

export function authorizeStep<S extends { authTime: Date; approved: boolean }>(request: Pick<AuthorizeRequest, "prompt" | "maxAgeSeconds">, session: S | null, now: Date): AuthorizeStep<S> {
  const { prompt, maxAgeSeconds } = request;
  // In whole seconds, as `auth_time` is carried and as a relying party checks it.
  const ageSeconds = session === null ? 0 : Math.floor(now.getTime() / 1000) - Math.floor(session.authTime.getTime() / 1000);
  const stale = session !== null && maxAgeSeconds !== null && ageSeconds > maxAgeSeconds;
  if (session === null || stale || prompt.login || prompt.selectAccount) {
    if (prompt.none) return { kind: "error", error: "login_required" };
    // A sign-in the person already holds is not enough when it is too old or a new one was asked for.
    const pages = [...(prompt.login || stale ? ["login"] : []), ...(prompt.selectAccount ? ["select_account"] : [])];
    return { kind: "sign-in", prompt: pages.length === 0 ? null : pages.join(" ") };
  }
  return session.approved ? { kind: "code", session } : { kind: "error", error: "access_denied" };
}

/** Issues a single-use authorization code for a signed-in, approved person. Returns the code. */
export async function issueAuthorizationCode(deps: Pick<Deps, "store" | "clock" | "random">, request: AuthorizeRequest, person: { id: string }, principal: { uid: string; authTime: Date }): Promise<string> {
  const code = deps.random.token(32);
  const now = deps.clock.now();
  await codes.save(deps.store, {
    hash: sha256(code),
    clientId: request.client.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    nonce: request.nonce,
    scopes: request.scopes,
    uid: principal.uid,
    personId: person.id,
    authTime: principal.authTime,
    createdAt: now,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_LIFETIME_MS),
    usedAt: null,
    accessTokenHash: null,
  });
  return code;
}

/** The registered client whose secret was presented, or invalid_client. */
export async function authenticateClient(deps: Pick<Deps, "store" | "clients">, clientId: string, secret: string): Promise<clients.OidcClient> {
  const client = await findClient(deps, clientId);
  // Secrets are stored as SHA-256 digests; the digests are compared in constant time.
  ensure(client && constantTimeEqual(sha256(secret), client.secretHash), "oauth_invalid_client");
  return client;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  id_token: string;
  scope: string;
}

/** At most this many redemptions share a transaction: two writes each, within a commit's 500. */
export const REDEMPTIONS_PER_TRANSACTION = 100;
/** Transactions of redemptions running at once on an instance. */
export const REDEMPTION_TRANSACTIONS_IN_FLIGHT = 2;

interface Redemption {
  clientId: string;
  hash: string;
  redirectUri: string;
  codeVerifier: string;
  tokenHash: string;
}

/** An issued decision carries its ID token being signed, to be handed out only once the commit lands. */
type Decision = { kind: "issued"; stored: codes.OidcCode; idToken: Promise<string> } | { kind: "replayed" } | { kind: "refused"; error: AppError };

type TokenDeps = Pick<Deps, "store" | "clock" | "tokens" | "config" | "people">;

/**
 * One redemption, inside the batch's transaction: the code's checks, then its writes. A code
 * presented again after it was used, with its verifier, is refused, and the access token it was
 * redeemed for is revoked in the same commit (RFC 6749 §4.1.2). A wrong verifier, redirect URI
 * or client neither uses the code up nor revokes anything.
 */
function decide(deps: TokenDeps, tx: Transaction, r: Redemption, stored: codes.OidcCode | null, person: people.Person | null, now: Date): Decision {
  ensure(stored && stored.clientId === r.clientId, "oauth_invalid_grant");
  ensure(stored.redirectUri === r.redirectUri, "oauth_invalid_grant");
  ensure(pkceMatches(r.codeVerifier, stored.codeChallenge), "oauth_invalid_grant");
  // Only a presentation that proves possession (the verifier) counts as a reuse: a code seen
  // without it cannot be used to revoke what its rightful redemption was given.
  if (stored.usedAt !== null) {
    if (stored.accessTokenHash !== null) accessTokens.revoke(deps.store, tx, stored.accessTokenHash);
    return { kind: "replayed" };
  }
  ensure(now.getTime() < stored.expiresAt.getTime(), "oauth_invalid_grant");
  // A person who is no longer approved gets nothing: the code is spent, and no token is stored.
  if (person === null || person.status !== "approved") {
    codes.markUsed(deps.store, tx, r.hash, now, null);
    return { kind: "refused", error: new AppError("oauth_invalid_grant") };
  }
  accessTokens.create(deps.store, tx, {
    hash: r.tokenHash,
    clientId: stored.clientId,
    uid: stored.uid,
    personId: stored.personId,
    scopes: stored.scopes,
    createdAt: now,
    expiresAt: new Date(now.getTime() + ACCESS_TOKEN_LIFETIME_MS),
  });
  codes.markUsed(deps.store, tx, r.hash, now, r.tokenHash);
  return { kind: "issued", stored, idToken: signIdToken(deps, stored, person, now) };
}

/**
 * Starts signing the ID token (on libuv's thread pool) while the batch's commit is on its way,
 * so the signature and the round trip overlap. A signature whose commit fails, or whose
 * transaction is retried, is never handed out.
 */
function signIdToken(deps: TokenDeps, stored: codes.OidcCode, person: people.Person, now: Date): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  const signing = deps.tokens.signIdToken({
    iss: deps.config.serviceUrl,
    sub: person.id,
    aud: stored.clientId,
    iat,
    exp: iat + ID_TOKEN_LIFETIME_MS / 1000,
    ...(stored.nonce === null ? {} : { nonce: stored.nonce }),
    ...(stored.authTime === null ? {} : { auth_time: Math.floor(stored.authTime.getTime() / 1000) }),
    ...claimsFor(person, stored.scopes),
  });
  // Awaited only if the commit lands; a dropped one must not surface as an unhandled rejection.
  signing.catch(() => {});
  return signing;
}

/** Decides a batch of redemptions of distinct codes in one transaction: one read of them all, one commit. */
function decideAll(deps: TokenDeps, batch: Redemption[]): Promise<Decision[]> {
  return deps.store.runTransaction(async (tx) => {
    const found = await codes.findManyByHash(deps.store, batch.map((r) => r.hash), tx);
    // The people behind unused codes, through the per-instance cache every gated request uses:
    // read before anything is written, so a person who may not sign in gets no token stored.
    const owners = await Promise.all(found.map((code) => (code && code.usedAt === null ? personFor(deps, { uid: code.uid, personId: code.personId }) : null)));
    const now = deps.clock.now();
    return batch.map((r, i): Decision => {
      try {
        return decide(deps, tx, r, found[i] ?? null, owners[i] ?? null, now);
      } catch (error) {
        if (error instanceof AppError) return { kind: "refused", error };
        throw error;
      }
    });
  });
}

export type Redeemer = (input: { client: clients.OidcClient; code: string; redirectUri: string; codeVerifier: string }) => Promise<TokenResponse>;

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
export function authorizationCodeRedeemer(deps: Pick<Deps, "store" | "clock" | "random" | "tokens" | "config" | "people">): Redeemer {
  const decideGrouped = groupCommit((batch: Redemption[]) => decideAll(deps, batch), (r) => r.hash, {
    maxBatch: REDEMPTIONS_PER_TRANSACTION,
    inFlight: REDEMPTION_TRANSACTIONS_IN_FLIGHT,
  });
  return async (input) => {
    const accessToken = deps.random.token(32);
    const tokenHash = sha256(accessToken);
    const decision = await decideGrouped({ clientId: input.client.clientId, hash: sha256(input.code), redirectUri: input.redirectUri, codeVerifier: input.codeVerifier, tokenHash });
    // Thrown after the commit, so a replay's revocation is kept.
    if (decision.kind === "refused") throw decision.error;
    if (decision.kind === "replayed") throw new AppError("oauth_invalid_grant");
    const { stored } = decision;
    let idToken: string;
    try {
      idToken = await decision.idToken;
    } catch {
      throw new AppError("oauth_server_error");
    }
    return { access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_LIFETIME_MS / 1000, id_token: idToken, scope: stored.scopes.join(" ") };
  };
}


/** What the granted scopes let a client know: the address needs `email`, the name `profile`. */
function claimsFor(person: people.Person, scopes: string[]): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  const email = person.emails[0];
  // Only addresses a sign-in has verified are ever linked to a person.
  if (scopes.includes("email") && email !== undefined) Object.assign(claims, { email, email_verified: true });
  if (scopes.includes("profile")) claims.name = person.name;
  return claims;
}

/** The claims behind an access token, while it lives and its person is still approved. */
export async function userinfo(deps: Pick<Deps, "store" | "clock">, accessToken: string): Promise<Record<string, unknown>> {
  const token = await accessTokens.findByHash(deps.store, sha256(accessToken));
  ensure(token && deps.clock.now().getTime() < token.expiresAt.getTime(), "oauth_invalid_token");
  const person = await people.findById(deps.store, token.personId);
  ensure(person && person.status === "approved" && person.uids.includes(token.uid), "oauth_invalid_token");
  return { sub: person.id, ...claimsFor(person, token.scopes) };
}

/** The discovery document (OpenID Connect Discovery 1.0 §3). */
export function discovery(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/auth/oidc/authorize`,
    token_endpoint: `${issuer}/auth/oidc/token`,
    userinfo_endpoint: `${issuer}/auth/oidc/userinfo`,
    jwks_uri: `${issuer}/auth/oidc/jwks`,
    scopes_supported: SCOPES,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256"],
    claims_supported: ["iss", "sub", "aud", "iat", "exp", "auth_time", "nonce", "email", "email_verified", "name"],
    prompt_values_supported: PROMPTS,
    authorization_response_iss_parameter_supported: true,
  };
}
