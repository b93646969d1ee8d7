import { HOUR, type Clock } from "../../clock";
import type { Deps } from "../deps";
import { AppError, ensure, limitReached } from "../errors";
import { alreadyExists } from "../failures";
import { readTogether } from "../../store/db";
import * as clients from "../../store/oidc-clients";
import * as throttles from "../../store/client-throttles";
import type { Throttle } from "../model/client-throttle";
import { afterFailure, forgetAfter as throttleForgetAfter, refusedUntil, throttleId } from "./client-throttle";
import { pepperRing } from "../pepper";
import { registeredFor } from "./grant-types";
import { constantTimeEqual, sha256 } from "../secrets";
import type { ClientCache } from "../ports";
import { ttlCache } from "../ttl-cache";
import { selfRegistered, usable, type OidcClient, type PkcePolicy } from "../model/oidc-client";

export const CLIENT_CACHE_TTL_MS = 30_000;
export const CLIENT_CACHE_MAX = 1_000;
/** What every client the operator registers is: the family's own, approved by its registration. */
const OPERATORS = {
  registeredBy: "operator",
  review: "approved",
  clientUri: null,
  logoUri: null,
  tokenAuth: "client_secret_basic",
  triedBy: [] as string[],
  document: null,
} as const;

/** How long a rotated-out secret keeps working unless the operator says otherwise. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * HOUR;

export function clientCache(clock: Clock, ttlMs = CLIENT_CACHE_TTL_MS, max = CLIENT_CACHE_MAX): ClientCache {
  return ttlCache<OidcClient | null>(clock, ttlMs, max);
}

/**
 * The registered, enabled client, from this instance's cache while fresh. Unknown ids are cached
 * too (as null, bounded like the rest): a repeated unknown id costs what a known one does, so the
 * time an answer takes does not tell which ids exist. A disabled client is unknown, and so is a
 * self-registered one waiting for review or blocked: it gets nothing until it is approved.
 */
export async function findClient(deps: Pick<Deps, "store" | "clients">, clientId: string): Promise<OidcClient | null> {
  const cached = deps.clients.get(clientId);
  if (cached !== undefined) return cached;
  const stored = await clients.findById(deps.store, clientId);
  const client = stored && usable(stored) ? stored : null;
  deps.clients.set(clientId, client);
  return client;
}

/** Compared against when the client is unknown, so both paths do the same work. */
const DUMMY_HASH = sha256("no client has this secret");

/**
 * Whether `secret` is one of the client's live secrets. Every live secret is compared (no early
 * exit), and an unknown client is compared against a dummy digest: the same work either way.
 */
export function secretMatches(client: OidcClient | null, secret: string, now: Date): boolean {
  const digest = sha256(secret);
  const live = (client?.secrets ?? []).filter((s) => s.expiresAt === null || now.getTime() < s.expiresAt.getTime());
  let matched = false;
  for (const s of live.length > 0 ? live : [{ hash: DUMMY_HASH }]) {
    if (constantTimeEqual(digest, s.hash) && live.length > 0) matched = true;
  }
  return client !== null && matched;
}

/**
 * The registered client whose secret was presented, or invalid_client. A wrong secret is counted
 * against the client id and `caller` in a transaction (core/oidc/client-throttle), and past the
 * limit answered 429 instead. A right secret passes whatever was counted: the caller's address is
 * what a direct call to the function may write for itself, so wrong secrets sent in a relying
 * party's name must not lock the party out, and the success path reads no throttle at all.
 */
export async function authenticateClient(
  deps: Pick<Deps, "store" | "clients" | "clock" | "transaction" | "pepper">,
  clientId: string,
  secret: string,
  caller: string,
): Promise<OidcClient> {
  const client = await findClient(deps, clientId);
  // Secrets are stored as SHA-256 digests, compared in constant time; an unknown client costs the same.
  const matched = secretMatches(client, secret, deps.clock.now());
  if (client && matched) return client;
  await deps.transaction(async (tx) => {
    const [[throttle]] = await readTogether(
      tx,
      throttles.byId(deps.store, [throttleId(pepperRing(deps), clientId, caller)]),
    );
    const now = deps.clock.now();
    const until = refusedUntil(throttle as Throttle, now);
    // A refused attempt is not counted: nothing can make a running refusal longer.
    if (until) throw limitReached("oauth_client_throttled", now, until);
    const next = afterFailure(throttle as Throttle, now);
    throttles.save(deps.store, tx, next, throttleForgetAfter(next));
  });
  throw new AppError("oauth_invalid_client");
}

/**
 * A public client (RFC 7591 `token_endpoint_auth_method` "none"), by its client_id alone: only a
 * client that registered itself as one has no secret to prove. Any other, the operator's above
 * all, is invalid_client without its secret, as an unknown id is; nothing is counted against the
 * throttle, since no secret was guessed. What binds a public client's code to it is PKCE, which
 * every self-registered client must use (core/oidc/registration).
 */
export async function authenticatePublicClient(
  deps: Pick<Deps, "store" | "clients">,
  clientId: string,
): Promise<OidcClient> {
  const client = await findClient(deps, clientId);
  ensure(client !== null && selfRegistered(client) && client.tokenAuth === "none", "oauth_invalid_client");
  return client;
}

export interface ClientRegistration {
  clientId: string;
  clientSecret: string;
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  backchannelLogoutUri?: string | null;
  pkce?: PkcePolicy;
  /** The grant types it may use at the token endpoint (core/oidc/grant-types); authorization_code alone unless named. */
  grantTypes?: readonly string[];
  project?: string | null;
}

/**
 * Registers (or re-registers, replacing its secrets) a relying party with its fixed redirect URI
 * allowlist; refused for a grant type the token endpoint does not take (registeredFor).
 */
export async function registerClient(deps: Pick<Deps, "store" | "clock">, client: ClientRegistration): Promise<void> {
  const grants = registeredFor(client.grantTypes ?? ["authorization_code"]);
  const now = deps.clock.now();
  await clients.save(deps.store, {
    clientId: client.clientId,
    name: client.name,
    secrets: [{ hash: sha256(client.clientSecret), createdAt: now, expiresAt: null }],
    redirectUris: client.redirectUris,
    postLogoutRedirectUris: client.postLogoutRedirectUris ?? [],
    backchannelLogoutUri: client.backchannelLogoutUri ?? null,
    pkce: client.pkce ?? "required",
    ...grants,
    project: client.project ?? null,
    disabled: false,
    ...OPERATORS,
    createdAt: now,
  });
}

/**
 * Registers a new relying party with a generated secret, returned once; only its hash is stored.
 * Refused for a grant type the token endpoint does not take (registeredFor).
 */
export async function createClient(
  deps: Pick<Deps, "store" | "clock" | "random">,
  registration: Omit<
    OidcClient,
    | "secrets"
    | "disabled"
    | "createdAt"
    | "refreshTokens"
    | "registeredBy"
    | "review"
    | "clientUri"
    | "logoUri"
    | "tokenAuth"
    | "triedBy"
    | "document"
  > & {
    grantTypes: readonly string[];
  },
): Promise<{ clientSecret: string; client: OidcClient }> {
  const { grantTypes, ...client } = registration;
  const grants = registeredFor(grantTypes);
  const clientSecret = deps.random.token(32);
  const now = deps.clock.now();
  const stored: OidcClient = {
    ...client,
    ...grants,
    secrets: [{ hash: sha256(clientSecret), createdAt: now, expiresAt: null }],
    disabled: false,
    ...OPERATORS,
    createdAt: now,
  };
  try {
    await clients.create(deps.store, stored);
  } catch (err) {
    // The id is taken: a registration is never overwritten from here.
    if (alreadyExists(err))
      throw new AppError(
        "client_exists",
        `an OpenID Connect client "${client.clientId}" is already registered (rotate its secret instead)`,
      );
    throw err;
  }
  return { clientSecret, client: stored };
}

/** A client id: what a URL and a Basic header carry without escaping, and a document can be named. */
export function isClientId(value: string): boolean {
  return /^[A-Za-z0-9._~-]{1,128}$/.test(value) && value !== "." && value !== ".." && !value.startsWith("__");
}

/**
 * A client id that is the URL of the client's metadata document (draft-ietf-oauth-client-id-
 * metadata-document §3): https, with a path, no fragment, user info, dot segments or query;
 * printable ASCII, at most 2048 characters. Compared as the string it is, never normalised.
 */
export function isDocumentClientId(value: string): boolean {
  if (value.length > 2048 || !/^[\x21-\x7e]+$/.test(value) || !value.startsWith("https://")) return false;
  if (!URL.canParse(value) || /[#?]/.test(value)) return false;
  const url = new URL(value);
  if (url.username !== "" || url.password !== "" || url.pathname === "/") return false;
  const raw = value.slice(value.indexOf("/", "https://".length));
  return raw.split("/").every((segment) => segment !== "." && segment !== "..") && url.href === value;
}

/** A redirect URI a client may register: absolute, https (or http on loopback), no fragment. */
export function isRedirectUri(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.hash !== "" || value.includes("#")) return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
}

type StoreDeps = Pick<Deps, "store" | "clock" | "transaction">;

/** Applies `change` to a stored client in a transaction; throws when there is no such client. */
async function update(
  deps: StoreDeps,
  clientId: string,
  change: (client: OidcClient, now: Date) => OidcClient,
): Promise<OidcClient> {
  return deps.transaction(async (tx) => {
    const client = await clients.findById(deps.store, clientId, tx);
    if (!client) throw unknownClient(clientId);
    const next = change(client, deps.clock.now());
    await clients.save(deps.store, next, tx);
    return next;
  });
}

/** The refusal for a client id nobody registered, naming it. */
export function unknownClient(clientId: string): AppError {
  return new AppError("client_not_found", `no OpenID Connect client "${clientId}"`);
}

export function addRedirectUri(deps: StoreDeps, clientId: string, uri: string): Promise<OidcClient> {
  return update(deps, clientId, (c) =>
    c.redirectUris.includes(uri) ? c : { ...c, redirectUris: [...c.redirectUris, uri] },
  );
}

export function removeRedirectUri(deps: StoreDeps, clientId: string, uri: string): Promise<OidcClient> {
  return update(deps, clientId, (c) => ({ ...c, redirectUris: c.redirectUris.filter((u) => u !== uri) }));
}

/** Where RP-initiated logout may send the browser back to, once it has signed the person out. */
export function addPostLogoutRedirectUri(deps: StoreDeps, clientId: string, uri: string): Promise<OidcClient> {
  return update(deps, clientId, (c) =>
    c.postLogoutRedirectUris.includes(uri) ? c : { ...c, postLogoutRedirectUris: [...c.postLogoutRedirectUris, uri] },
  );
}

export function removePostLogoutRedirectUri(deps: StoreDeps, clientId: string, uri: string): Promise<OidcClient> {
  return update(deps, clientId, (c) => ({
    ...c,
    postLogoutRedirectUris: c.postLogoutRedirectUris.filter((u) => u !== uri),
  }));
}

/** Where the provider tells the client of a sign-in's end (null: nowhere). */
export function setBackchannelLogoutUri(deps: StoreDeps, clientId: string, uri: string | null): Promise<OidcClient> {
  return update(deps, clientId, (c) => ({ ...c, backchannelLogoutUri: uri }));
}

export function setPkcePolicy(deps: StoreDeps, clientId: string, pkce: PkcePolicy): Promise<OidcClient> {
  return update(deps, clientId, (c) => ({ ...c, pkce }));
}

/**
 * Lets the client hold refresh tokens, or not: taken away, every grant it holds ends at its next
 * refresh (core/oidc/refresh), and it gets no new ones.
 */
export function setRefreshTokens(deps: StoreDeps, clientId: string, allowed: boolean): Promise<OidcClient> {
  return update(deps, clientId, (c) => ({ ...c, refreshTokens: allowed }));
}

/** The project a person must hold to sign in to the client; null: any approved person. */
export function setClientProject(deps: StoreDeps, clientId: string, project: string | null): Promise<OidcClient> {
  return update(deps, clientId, (c) => ({ ...c, project }));
}

export function disableClient(deps: StoreDeps, clientId: string): Promise<OidcClient> {
  return update(deps, clientId, (c) => ({ ...c, disabled: true }));
}

/** Undoes `disableClient`: the registration, its redirect URIs and its secrets as they were. */
export function enableClient(deps: StoreDeps, clientId: string): Promise<OidcClient> {
  return update(deps, clientId, (c) => ({ ...c, disabled: false }));
}

/**
 * A new secret (returned once, stored as its hash). The secrets live until now keep working until
 * `overlapMs` from now, so the relying party can switch over; expired ones are dropped.
 */
export async function rotateSecret(
  deps: StoreDeps & Pick<Deps, "random">,
  clientId: string,
  overlapMs = DEFAULT_ROTATION_OVERLAP_MS,
): Promise<{ clientSecret: string; client: OidcClient }> {
  const clientSecret = deps.random.token(32);
  const client = await update(deps, clientId, (c, now) => {
    const until = new Date(now.getTime() + overlapMs);
    const kept = c.secrets
      .filter((s) => s.expiresAt === null || now.getTime() < s.expiresAt.getTime())
      .map((s) => ({ ...s, expiresAt: s.expiresAt !== null && s.expiresAt < until ? s.expiresAt : until }));
    const fresh = { hash: sha256(clientSecret), createdAt: now, expiresAt: null };
    return { ...c, secrets: overlapMs > 0 ? [fresh, ...kept] : [fresh] };
  });
  return { clientSecret, client };
}

export function listClients(deps: Pick<Deps, "store">): Promise<OidcClient[]> {
  return clients.list(deps.store);
}

export function showClient(deps: Pick<Deps, "store">, clientId: string): Promise<OidcClient | null> {
  return clients.findById(deps.store, clientId);
}
