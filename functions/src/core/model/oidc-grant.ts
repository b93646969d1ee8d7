/**
 * What a person let an app do while they are away: a grant of the OpenID Connect provider, made
 * when a sign-in that asked for `offline_access` is redeemed by a client registered for refresh
 * tokens, and carried on by its refresh tokens, a new one at each use (core/oidc/refresh). The
 * store keeps it (store/oidc-grants); no I/O here.
 */

/** Why a grant ended before its time. */
export type GrantEnd =
  /** A refresh token already rotated was presented again (RFC 9700 §4.14.2). */
  | "reuse"
  /** The client revoked it (RFC 7009). */
  | "revoked"
  /** The person may not sign in to the app any more: not approved, or gone. */
  | "person"
  /** The client may no longer hold refresh tokens. */
  | "client"
  /** The code it was made with was presented again (RFC 6749 §4.1.2). */
  | "code_replayed"
  /** The person (or an administrator) disconnected the app. */
  | "disconnected"
  /** The resource it was for was removed (or registered afresh since), or closed to the client. */
  | "resource";

export interface OidcGrant {
  id: string;
  clientId: string;
  uid: string;
  personId: string;
  /** The scopes granted, `offline_access` among them. */
  scopes: string[];
  /** The resource (RFC 8707) its access tokens are for; null: the provider's own. */
  resource: string | null;
  /** When that resource was registered, as the grant began: one registered afresh since is another. */
  resourceSince: Date | null;
  /** The sign-in it began with, which its refreshed ID tokens tell of (`auth_time`, `amr`, `acr`). */
  authTime: Date | null;
  amr: string[];
  acr: string | null;
  /** The sign-in's `sid` (core/oidc/backchannel), which its refreshed ID tokens carry too; null when it had none. */
  sid: string | null;
  createdAt: Date;
  lastUsedAt: Date;
  /** Its absolute end: no refresh after it, however recently used. */
  expiresAt: Date;
  /** The stored id of the one refresh token that works now; any earlier one, presented, ends the grant. */
  tokenId: string;
  /** The access token last issued on it, revoked when the grant ends or the next is issued. */
  accessTokenHash: string | null;
  endedAt: Date | null;
  endedBecause: GrantEnd | null;
}
