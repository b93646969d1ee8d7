/**
 * A relying party of the OpenID Connect provider, registered by the operator, or by itself (RFC
 * 7591) where the operator's policy lets clients register. The store keeps it
 * (store/oidc-clients), its secrets as digests; no I/O here.
 */

/** A client secret's SHA-256 digest; `expiresAt` set on a rotated-out secret still inside its overlap. */
export interface ClientSecret {
  hash: string;
  createdAt: Date;
  expiresAt: Date | null;
}

export type PkcePolicy = "required" | "optional";

/**
 * Who registered the client. The operator's clients are the family's own: their registration
 * stands for the person's consent. A client that registered itself, by RFC 7591 (`self`) or by
 * the metadata document its https client_id names (`document`: core/oidc/metadata-documents),
 * asks each person's consent (core/oidc/consents), and is shown as unverified.
 */
export type RegisteredBy = "operator" | "self" | "document";

/** The people told of a waiting client's review at most: the first so many who tried it. */
export const TRIED_BY_MAX = 20;

/**
 * Whether a self-registered client may be used: "approved" (the operator's clients always),
 * "waiting" for a reviewer where the policy says clients are reviewed, or "blocked".
 */
export type ClientReview = "approved" | "waiting" | "blocked";

/**
 * How the client authenticates at the token, revocation and introspection endpoints (RFC 7591
 * `token_endpoint_auth_method`): with a secret, either way (Basic or the form); or, a public
 * client (a native or browser app, which can keep no secret), by its client_id alone, which only
 * a self-registered client can be, PKCE then being what binds a code to it.
 */
export type TokenAuth = "client_secret_basic" | "client_secret_post" | "none";

export interface OidcClient {
  clientId: string;
  name: string;
  secrets: ClientSecret[];
  redirectUris: string[];
  /** Where RP-initiated logout may send the browser back to (core/oidc/logout), matched exactly. */
  postLogoutRedirectUris: string[];
  /** Where the provider posts a logout token when a sign-in to the client ends (core/oidc/backchannel); null for none. */
  backchannelLogoutUri: string | null;
  /** "optional": the client may omit the challenge; one that is sent is still enforced. */
  pkce: PkcePolicy;
  /**
   * Whether the client may act while the person is away: a sign-in to it that asks for
   * `offline_access` then gets a refresh token (core/oidc/refresh). Off unless the operator says.
   */
  refreshTokens: boolean;
  /**
   * The project a person must be granted to sign in to the client (as the gate asks of an app's
   * endpoints: an administrator and a `*` grant have every project); null: any approved person.
   * A person who loses it is signed out of the client (back-channel logout), and its refresh
   * tokens for them stop working.
   */
  project: string | null;
  /** A disabled client is unknown to the authorise and token endpoints. */
  disabled: boolean;
  registeredBy: RegisteredBy;
  review: ClientReview;
  /** A self-registered client's home page and logo, as it gave them (https URLs); null when none. */
  clientUri: string | null;
  logoUri: string | null;
  tokenAuth: TokenAuth;
  /**
   * The people who tried to sign in to it while it waited for review (person ids, the first
   * TRIED_BY_MAX), told of the reviewer's decision and then forgotten.
   */
  triedBy: string[];
  /**
   * For a client whose id is its metadata document's URL: when the document was last read, and
   * until when that reading stands (its Cache-Control, within the provider's bounds); null for
   * every other client. `failedUntil`: a reading again that failed is not tried again before
   * then (the provider's floor), each request meanwhile refused as that reading was; null when
   * the last reading was good.
   */
  document: { fetchedAt: Date; freshUntil: Date; failedUntil: Date | null } | null;
  createdAt: Date;
}

/** Whether the client is one of the family's own, registered by the operator. */
export const firstParty = (client: Pick<OidcClient, "registeredBy">): boolean => client.registeredBy === "operator";

/** Whether the client registered itself, either way: only such clients are reviewed and asked consent for. */
export const selfRegistered = (client: Pick<OidcClient, "registeredBy">): boolean => !firstParty(client);

/**
 * Whether the client may be used at all: neither disabled by the operator nor, if it registered
 * itself, waiting for review or blocked. Every endpoint that serves a client asks this.
 */
export const usable = (client: Pick<OidcClient, "disabled" | "review">): boolean =>
  !client.disabled && client.review === "approved";
