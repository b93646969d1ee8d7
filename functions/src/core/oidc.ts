import { createHash } from "node:crypto";
import { HOUR, MINUTE } from "../clock";
import type { Deps } from "../deps";
import * as codes from "../store/oidc-codes";
import * as clients from "../store/oidc-clients";
import * as people from "../store/people";
import * as accessTokens from "../store/oidc-tokens";
import { AppError, ensure } from "./errors";
import { constantTimeEqual, sha256 } from "./secrets";
import { personFor } from "./sessions";

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
}

export interface AuthorizeRequest {
  client: clients.OidcClient;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  nonce: string | null;
  codeChallenge: string;
}

/** base64url of a SHA-256 digest: 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * Everything that must hold before anything may be sent to `redirect_uri`. The client and its
 * exact redirect URI come first: until both are known good, a refusal is answered to the caller
 * and never delivered to the URI in the request (an open redirector otherwise).
 */
export async function checkAuthorizeRequest(deps: Pick<Deps, "store">, p: AuthorizeParams): Promise<AuthorizeRequest> {
  ensure(p.clientId, "oauth_invalid_request", "client_id is required");
  const client = await clients.findById(deps.store, p.clientId);
  ensure(client, "oauth_unknown_client");
  // Exact string match against the registered list: no prefix, no wildcard, no normalisation.
  ensure(p.redirectUri !== undefined && client.redirectUris.includes(p.redirectUri), "oauth_redirect_not_registered");
  ensure(p.responseType === "code", "oauth_unsupported_response_type");
  const scopes = (p.scope ?? "").split(" ").filter((s) => s !== "");
  ensure(scopes.includes("openid"), "oauth_invalid_request", "scope must include openid");
  // PKCE for every client, confidential ones too (RFC 9700 §2.1.1); `plain` would protect nothing.
  ensure(p.codeChallengeMethod === "S256" && p.codeChallenge !== undefined && S256_CHALLENGE.test(p.codeChallenge), "oauth_pkce_required");
  return {
    client,
    redirectUri: p.redirectUri,
    scopes: scopes.filter((s) => (SCOPES as readonly string[]).includes(s)),
    state: p.state ?? null,
    nonce: p.nonce ?? null,
    codeChallenge: p.codeChallenge,
  };
}

/** Issues a single-use authorization code for a signed-in, approved person. Returns the code. */
export async function issueAuthorizationCode(deps: Pick<Deps, "store" | "clock" | "random">, request: AuthorizeRequest, person: { id: string }, uid: string): Promise<string> {
  const code = deps.random.token(32);
  const now = deps.clock.now();
  await codes.save(deps.store, {
    hash: sha256(code),
    clientId: request.client.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    nonce: request.nonce,
    scopes: request.scopes,
    uid,
    personId: person.id,
    createdAt: now,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_LIFETIME_MS),
    usedAt: null,
    accessTokenHash: null,
  });
  return code;
}

/** The registered client whose secret was presented, or invalid_client. */
export async function authenticateClient(deps: Pick<Deps, "store">, clientId: string, secret: string): Promise<clients.OidcClient> {
  const client = await clients.findById(deps.store, clientId);
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

function pkceMatches(verifier: string, challenge: string): boolean {
  return constantTimeEqual(createHash("sha256").update(verifier, "ascii").digest("base64url"), challenge);
}

/**
 * Redeems an authorization code once. One transaction decides: of any number of concurrent
 * redemptions exactly one wins, and the code is marked used in the same commit that stores the
 * access token. A code presented again after it was used is refused, and the access token it
 * was redeemed for is revoked in that same transaction (RFC 6749 §4.1.2).
 *
 * The person is checked after that commit, as for an exchange code (the code is spent whatever
 * the outcome), through the same per-instance person cache as every gated request: the
 * transaction then holds its locks for one read and a commit, not two reads. A person who is no
 * longer approved gets no tokens; the access token stored for them is removed before anyone has
 * seen it.
 */
export async function redeemAuthorizationCode(
  deps: Pick<Deps, "store" | "clock" | "random" | "tokens" | "config" | "people">,
  input: { client: clients.OidcClient; code: string; redirectUri: string; codeVerifier: string },
): Promise<TokenResponse> {
  const hash = sha256(input.code);
  const accessToken = deps.random.token(32);
  const tokenHash = sha256(accessToken);
  const outcome = await deps.store.runTransaction(async (tx) => {
    const stored = await codes.findByHash(deps.store, hash, tx);
    ensure(stored && stored.clientId === input.client.clientId, "oauth_invalid_grant");
    if (stored.usedAt !== null) {
      if (stored.accessTokenHash !== null) accessTokens.revoke(deps.store, tx, stored.accessTokenHash);
      return { replayed: true as const };
    }
    const now = deps.clock.now();
    ensure(now.getTime() < stored.expiresAt.getTime(), "oauth_invalid_grant");
    ensure(stored.redirectUri === input.redirectUri, "oauth_invalid_grant");
    ensure(pkceMatches(input.codeVerifier, stored.codeChallenge), "oauth_invalid_grant");
    accessTokens.create(deps.store, tx, {
      hash: tokenHash,
      clientId: stored.clientId,
      uid: stored.uid,
      personId: stored.personId,
      scopes: stored.scopes,
      createdAt: now,
      expiresAt: new Date(now.getTime() + ACCESS_TOKEN_LIFETIME_MS),
    });
    codes.markUsed(deps.store, tx, hash, now, tokenHash);
    return { replayed: false as const, stored, now };
  });
  // Thrown after the commit, so the revocation above is kept.
  if (outcome.replayed) throw new AppError("oauth_invalid_grant");
  const { stored, now } = outcome;
  const person = await personFor(deps, { uid: stored.uid, personId: stored.personId });
  if (person === null || person.status !== "approved") {
    await accessTokens.remove(deps.store, tokenHash);
    throw new AppError("oauth_invalid_grant");
  }
  const iat = Math.floor(now.getTime() / 1000);
  let idToken: string;
  try {
    idToken = await deps.tokens.signIdToken({
      iss: deps.config.serviceUrl,
      sub: person.id,
      aud: stored.clientId,
      iat,
      exp: iat + ID_TOKEN_LIFETIME_MS / 1000,
      ...(stored.nonce === null ? {} : { nonce: stored.nonce }),
      ...claimsFor(person, stored.scopes),
    });
  } catch {
    throw new AppError("oauth_server_error");
  }
  return { access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_LIFETIME_MS / 1000, id_token: idToken, scope: stored.scopes.join(" ") };
}

export function isCodeVerifier(value: string): boolean {
  return CODE_VERIFIER.test(value);
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
    claims_supported: ["iss", "sub", "aud", "iat", "exp", "nonce", "email", "email_verified", "name"],
    authorization_response_iss_parameter_supported: true,
  };
}
