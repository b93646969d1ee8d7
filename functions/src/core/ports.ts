/**
 * What the rules need from outside themselves, as interfaces: the identity provider, mail, the
 * network and Firestore's transactions (implemented in adapters/ and store/), and the per-instance
 * services deps.ts builds for them (session tokens, the person and client caches).
 */
import type { Person } from "./model/person";
import type { Transaction } from "../store/db";
import type { TtlCache } from "./ttl-cache";
import type { OidcClient } from "./model/oidc-client";

/** What a verified sign-in at the identity provider proves. */
export interface SignIn {
  uid: string;
  /** Only an address the provider has verified; an unverified one proves nothing. */
  email: string | null;
  phone: string | null;
  name: string | null;
  provider: string;
  /** The account at the provider, as it names it (a handle, an id); null when it names none. */
  account: string | null;
  /**
   * Every sign-in method linked to the account, the sign-in's own among them (`password` for the
   * identity provider's own address check, `google.com`, `oidc.<name>`): any of them may have set
   * its address's verified flag. Left out: the sign-in's own provider alone.
   */
  linked?: string[];
}

/** A sign-in a token of the provider proves, with when the person actually authenticated. */
export interface VerifiedSignIn extends SignIn {
  /** The token's `auth_time`: kept across the token's refreshes, so not when it was minted. */
  authTime: Date;
  /** How the person authenticated, in RFC 8176's values (core/sessions/amr); empty when unknown. */
  amr: string[];
  /** The address a code of the service's proved for this sign-in; null for any other way in. */
  address: string | null;
  /** The passkey a sign-in of the service's verified (its id); null for any other way in. */
  passkeyId: string | null;
  /** For a recovery code's sign-in, when its set was made (what names the set); null for any other way in. */
  codesMadeAt: Date | null;
}

/**
 * What a sign-in of the service's own came in through, carried in its custom token to the session
 * it opens, so that taking that way in away ends the session: a code's address, a passkey's id, or
 * a recovery code's set (by when it was made).
 */
export interface SignedInThrough {
  address?: string;
  passkeyId?: string;
  codesMadeAt?: Date;
}

/** The managed identity provider, as the rules see it. */
export interface Identity {
  /** null when the token does not verify, is revoked, or its account is disabled. */
  verifyIdToken(token: string, checkRevoked: boolean): Promise<VerifiedSignIn | null>;
  /** The older session format (the provider's session cookie), still honoured until it expires. */
  verifyProviderSessionCookie(cookie: string): Promise<VerifiedSignIn | null>;
  /**
   * A custom token for `uid` that records how the person proved themselves (RFC 8176 values) and
   * what they came in through (`through`), which the session it opens remembers.
   */
  createCustomToken(uid: string, amr: string[], through?: SignedInThrough): Promise<string>;
  /**
   * The account for `email`, whose mailbox the caller has just proved: created (verified) when
   * there is none; an existing unverified one is taken back from whoever registered it first
   * (`takenBack`: its password, other sign-ins and live tokens are gone).
   */
  accountForEmail(email: string): Promise<{ uid: string; takenBack: boolean }>;
  revokeSessions(uid: string): Promise<void>;
  /**
   * Signs in at the identity provider with a credential from a provider behind it, as its own
   * sign-in page would: the account linked to that provider account, created when there is none.
   */
  signInWithProvider(input: ProviderSignIn): Promise<SignIn>;
  /** What the provider holds of these accounts (those it still has), for a person's copy of their data. */
  describeAccounts(uids: string[]): Promise<ProviderAccount[]>;
  /** Deletes these accounts (one already gone counts as deleted); gives back those it could not delete. */
  deleteAccounts(uids: string[]): Promise<string[]>;
}

/** An account at the identity provider, as a person's copy of their data shows it (no credential). */
export interface ProviderAccount {
  uid: string;
  email: string | null;
  emailVerified: boolean;
  phone: string | null;
  displayName: string | null;
  /** The sign-ins linked to it: the provider, and the account there as it names it. */
  providers: Array<{ provider: string; account: string | null; email: string | null }>;
  createdAt: string | null;
  lastSignInAt: string | null;
}

export interface ProviderSignIn {
  /** The identity provider's web API key. */
  apiKey: string;
  /** The provider's id at the identity provider (`google.com`, `oidc.<name>`). */
  providerId: string;
  /** What the provider gave for the sign-in: its ID token, or (plain OAuth 2.0) its access token. */
  credential: { idToken: string } | { accessToken: string };
  /** The address the provider sent the browser back to. */
  requestUri: string;
  signal: AbortSignal;
}

export interface MailMessage {
  /** One canonical address (core/email-address), never a list. */
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Outgoing mail, as the rules see it. Only the outbox's drain sends (core/outbox/drain). */
export interface Mailer {
  /**
   * Rejects when the mail was not accepted for delivery: with a MailRefused that says whether
   * trying again could help. `messageId` names the message, the same on every attempt.
   */
  send(message: MailMessage, options: { messageId: string }): Promise<void>;
  /** Rejects when the mail server cannot be reached or refuses us (for GET /status). */
  check(): Promise<void>;
}

/** Why a mail was not accepted, in kinds, never the server's own words (they can quote addresses). */
export class MailRefused extends Error {
  constructor(
    /** `timeout`, `unreachable`, `rejected`, `failed`. */
    readonly kind: string,
    /** The server refused this message for good (a 5xx reply): sending it again cannot help. */
    readonly permanent: boolean,
    options?: { cause?: unknown },
  ) {
    super(`mail not accepted (${kind}${permanent ? ", permanently" : ""})`, options);
    this.name = "MailRefused";
  }
}

/** What wakes the outbox's drainer: the `mail` function's task queue (adapters/mail-queue). */
export interface MailQueue {
  /** Asks for a drain now, or at `at`. */
  wake(at?: Date): Promise<void>;
}

/** What a task queue takes (the admin SDK's `TaskQueue`, or a stand-in for it in tests and the bench). */
export interface TaskEnqueuer {
  enqueue(data: Record<string, unknown>, options?: { scheduleTime?: Date; id?: string }): Promise<void>;
}

/** A task queue's dispatch rate and retries, as Cloud Tasks takes them. */
export interface QueueSettings {
  maxConcurrentDispatches: number;
  /** A failed task is tried again until it has made this many attempts, or for this long, whichever ends first. */
  maxAttempts: number;
  maxRetrySeconds: number;
  minBackoffSeconds: number;
  maxBackoffSeconds: number;
}

/** The network, as `fetch` reaches it: an adapter, so a test can stand in for a provider or a feed. */
export type Fetch = typeof fetch;

/**
 * Runs `work` in one Firestore read-write transaction, retried by Firestore on contention: every
 * counter, single-use code and limit is decided inside one.
 */
export type TransactionRunner = <T>(work: (tx: Transaction) => Promise<T>) => Promise<T>;

/** What a session token of ours says (core/sessions/session-token.ts signs and checks them). */
export interface SessionClaims {
  uid: string;
  personId: string;
  /** The session's own id (`sid`), what logout ends it by; null in tokens issued before it was carried. */
  sessionId: string | null;
  /** When the person authenticated at the identity provider (OpenID Connect's `auth_time`). */
  authTime: Date;
  /** How they authenticated (RFC 8176); empty in tokens issued before it was carried. */
  amr: string[];
  issuedAt: Date;
  expiresAt: Date;
}

export interface SessionTokens {
  issue(
    claims: { uid: string; personId: string; sessionId: string; authTime: Date; amr: string[] },
    now: Date,
    lifetimeMs: number,
  ): Promise<{ token: string; issuedAt: Date; expiresAt: Date }>;
  /** null for anything that is not a live session token of ours: wrong key, type, issuer, expired. */
  verify(token: string, now: Date): Promise<SessionClaims | null>;
  /**
   * An OpenID Connect ID token, signed by the same ring under `typ: JWT` and the client as
   * audience, so neither kind of token passes for the other.
   */
  signIdToken(
    claims: { iss: string; sub: string; aud: string; iat: number; exp: number } & Record<string, unknown>,
  ): Promise<string>;
  /**
   * A back-channel logout token (OpenID Connect Back-Channel Logout 1.0 §2.4), signed by the same
   * ring under `typ: logout+jwt`, so it passes for neither an ID token nor a session token.
   */
  signLogoutToken(
    claims: { iss: string; aud: string; iat: number; exp: number; jti: string } & Record<string, unknown>,
  ): Promise<string>;
  /**
   * An access token for one resource (RFC 9068), signed by the same ring under `typ: at+jwt`, so
   * it passes for no ID, logout or session token, nor they for it.
   */
  signAccessToken(
    claims: {
      iss: string;
      sub: string;
      aud: string;
      iat: number;
      exp: number;
      jti: string;
      client_id: string;
    } & Record<string, unknown>,
  ): Promise<string>;
  /** The `jti`, audience and issuer of a live access token this ring signed; null for anything else. */
  readAccessToken(token: string, now: Date): { jti: string; aud: string; iss: string } | null;
  /** The ring's public keys as a JWK Set: what relying parties verify ID tokens with. */
  publicJwks(): { keys: Array<Record<string, unknown>> };
}

/**
 * People read on gated requests, by person id: a hot session costs no database read. A change
 * made on another instance (its PATCH) shows here within the TTL; one made here evicts at once.
 */
export type PersonCache = TtlCache<Person>;

/**
 * Registered clients read by the authorise and token endpoints, kept per instance: a busy
 * relying party costs no read per request. A registration changed by the operator (a new
 * secret, a redirect URI removed, the client disabled) takes effect within the TTL. Unknown ids
 * are kept as null.
 */
export type ClientCache = TtlCache<OidcClient | null>;

/** Why a metadata document could not be read (adapters/document-fetch); each is said on a page as it is. */
export type DocumentFetchFailure =
  | "not_https"
  | "private_address"
  | "unresolvable"
  | "redirect"
  | "status"
  | "too_large"
  | "timeout"
  | "not_json"
  | "unreachable";

export class DocumentFetchError extends Error {
  constructor(
    readonly reason: DocumentFetchFailure,
    message: string,
  ) {
    super(message);
    this.name = "DocumentFetchError";
  }
}

/** A JSON document fetched from a URL a caller named, and how long its headers let it be kept. */
export interface FetchedDocument {
  json: unknown;
  maxAgeSeconds: number | null;
  noStore: boolean;
}

/**
 * Reads a document at a URL a stranger may name (an OAuth client's metadata document): https,
 * public addresses only, no redirects, a size and a time cap. Rejects with DocumentFetchError.
 */
export type DocumentFetch = (url: string) => Promise<FetchedDocument>;

/** What the health report counts as it happens (core/status/health-counts): code requests and sign-ins refused. */
export type CountedSeries = "codes" | "signIns";

/** Refusals counted for the health report, apart from the requests (core/status/health-counts). */
export interface HealthCounts {
  /** Counts one refusal of `series`, for `reason` (the refusal's reason, as its answer names it). */
  count(series: CountedSeries, reason: string): void;
  /** Settles once every count made so far has been written (or dropped). */
  written(): Promise<void>;
}
