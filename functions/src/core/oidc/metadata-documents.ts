/**
 * Clients whose id is the https URL of their metadata document (OAuth Client ID Metadata
 * Documents, draft-ietf-oauth-client-id-metadata-document; the Model Context Protocol's first way
 * for a client to make itself known). Where the operator's policy lets clients register
 * themselves (OIDC_REGISTRATION not `closed`), the authorise endpoint reads the document the id
 * names, through the guarded fetch (adapters/document-fetch: https, public addresses, no
 * redirects, a size and a time cap), checks it, and keeps the client as one that registered
 * itself (`registeredBy: "document"`): waiting for review or approved as the policy says, asked
 * each person's consent, a public client bound by PKCE.
 *
 * The document is the client's own word, read again once its reading is stale (its
 * Cache-Control, between DOCUMENT_FRESH_MIN_MS and DOCUMENT_FRESH_MAX_MS). Each first reading of a
 * URL no client has yet counts against the registration budgets (core/oidc/registration-budget)
 * before anything is fetched, so a stranger cannot make the provider fetch URLs without bound.
 */
import { DAY, HOUR, MINUTE } from "../../clock";
import * as clients from "../../store/oidc-clients";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import type { Caller } from "../model/caller";
import type { OidcClient } from "../model/oidc-client";
import { DocumentFetchError } from "../ports";
import { isDocumentClientId } from "./clients";
import { countRegistration } from "./registration-budget";
import {
  checkMetadata,
  ensureNameNotTaken,
  ensureRegistrationOpen,
  isSelfRedirectUri,
  operatorNames,
  selfRegisteredClient,
} from "./registration";

/** A document larger than this is refused unread: the draft's own suggestion is 5 KB. */
export const DOCUMENT_MAX_BYTES = 5 * 1024;
/** The whole reading, from the name's resolution to the body's last byte. */
export const DOCUMENT_TIMEOUT_MS = 5_000;
/** However little the document's headers allow, a reading stands this long: no fetch per request. */
export const DOCUMENT_FRESH_MIN_MS = 5 * MINUTE;
/** However much they allow, a document is read again after a day: a changed one is seen. */
export const DOCUMENT_FRESH_MAX_MS = DAY;
/** Where its headers say nothing. */
export const DOCUMENT_FRESH_DEFAULT_MS = HOUR;

type DocumentDeps = Pick<
  Deps,
  "store" | "clock" | "transaction" | "pepper" | "config" | "log" | "documents" | "clients"
>;

const documentError = (detail: string) => new AppError("oauth_client_document", detail);

/** How long a reading stands, from its Cache-Control, within the provider's bounds. */
export function freshFor(maxAgeSeconds: number | null, noStore: boolean): number {
  if (noStore) return DOCUMENT_FRESH_MIN_MS;
  const asked = maxAgeSeconds === null ? DOCUMENT_FRESH_DEFAULT_MS : maxAgeSeconds * 1000;
  return Math.min(DOCUMENT_FRESH_MAX_MS, Math.max(DOCUMENT_FRESH_MIN_MS, asked));
}

/**
 * The document, checked: an object whose `client_id` is the URL it was read from, character for
 * character; a public client (no secret: the document is public, so none it could hold would be
 * one); its redirect URIs on the document's own host, or on loopback for a native app (RFC 8252),
 * so the host the consent page names is the one whose owner wrote the document. The rest is
 * checked as a registration is (core/oidc/registration checkMetadata); a missing `client_name`
 * is the document's host.
 */
export function checkDocument(url: string, json: unknown) {
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw documentError("The app's metadata document is not a JSON object");
  const body = json as Record<string, unknown>;
  if (body.client_id !== url) throw documentError("The app's metadata document names another client_id than its URL");
  if (body.client_secret !== undefined || body.client_secret_expires_at !== undefined)
    throw documentError("The app's metadata document holds a client secret, which a public document cannot keep");
  const method = body.token_endpoint_auth_method;
  if (method !== undefined && method !== null && method !== "none")
    throw documentError('A metadata document\'s client authenticates with "none" alone (a public client, with PKCE)');
  const host = new URL(url).host;
  let metadata;
  try {
    metadata = checkMetadata({ ...body, client_name: body.client_name ?? host, token_endpoint_auth_method: "none" });
  } catch (err) {
    if (err instanceof AppError) throw documentError(`The app's metadata document: ${err.detail ?? err.message}`);
    throw err;
  }
  const elsewhere = metadata.redirectUris.find((u) => new URL(u).protocol === "https:" && new URL(u).host !== host);
  if (elsewhere !== undefined || !metadata.redirectUris.every(isSelfRedirectUri))
    throw documentError(`The app's redirect URIs must be on ${host}, or on loopback`);
  return metadata;
}

/** Readings of one URL under way in this instance: concurrent sign-ins to a new app fetch it once. */
const underWay = new Map<string, Promise<OidcClient>>();

/**
 * The client whose id is the URL `clientId`, as the authorise endpoint needs it: from the store
 * while its reading is fresh, else read afresh (and kept). null where the policy is closed, or the
 * URL is no such id; a blocked client is returned as it is (the caller refuses it), never read
 * again. A document that cannot be read or used is `oauth_client_document`, said on a page.
 */
export async function documentClient(deps: DocumentDeps, clientId: string, from: Caller): Promise<OidcClient | null> {
  if (deps.config.oidcRegistration.policy === "closed" || !isDocumentClientId(clientId)) return null;
  const stored = await clients.findById(deps.store, clientId);
  const now = deps.clock.now();
  if (stored !== null && (stored.review === "blocked" || stored.disabled)) return stored;
  if (stored?.document && now < stored.document.freshUntil) return stored;
  // A reading again that failed stands as a refusal until the floor has passed: not one fetch per request.
  if (stored?.document?.failedUntil && now < stored.document.failedUntil)
    throw documentError("The app's metadata document could not be read lately; try again in a few minutes");
  const running = underWay.get(clientId);
  if (running) return running;
  const reading = readDocument(deps, clientId, stored === null, from).finally(() => underWay.delete(clientId));
  underWay.set(clientId, reading);
  return reading;
}

async function readDocument(deps: DocumentDeps, url: string, first: boolean, from: Caller): Promise<OidcClient> {
  ensureRegistrationOpen(deps);
  // Counted before the fetch: a refused reading of a new URL fetches nothing.
  if (first) await deps.transaction((tx) => countRegistration(deps, tx, from, "document"));
  let read;
  try {
    read = await readAndCheck(deps, url);
  } catch (err) {
    // A kept client's reading again that failed is remembered, so the next request does not
    // fetch again: only a first reading is counted against the budgets, this one must be bounded.
    if (!first && err instanceof AppError) await rememberFailure(deps, url);
    throw err;
  }
  const { fetched, metadata } = read;
  const now = deps.clock.now();
  const document = {
    fetchedAt: now,
    freshUntil: new Date(now.getTime() + freshFor(fetched.maxAgeSeconds, fetched.noStore)),
    failedUntil: null,
  };
  const policy = deps.config.oidcRegistration.policy;
  const { client, created, reReview } = await deps.transaction(async (tx) => {
    const before = await clients.findById(deps.store, url, tx);
    const read: OidcClient = {
      ...selfRegisteredClient(deps, metadata, now),
      clientId: url,
      secrets: [],
      registeredBy: "document",
      document,
    };
    if (before === null) {
      await clients.create(deps.store, read, tx);
      return { client: read, created: true, reReview: false };
    }
    // What a reviewer approved was a name, the places people are sent, whether it may act while
    // they are away, and the home page and logo it showed: a change to any is reviewed again,
    // where clients are reviewed.
    const changed =
      before.name !== read.name ||
      before.redirectUris.join("\n") !== read.redirectUris.join("\n") ||
      before.refreshTokens !== read.refreshTokens ||
      before.clientUri !== read.clientUri ||
      before.logoUri !== read.logoUri;
    const review = policy === "reviewed" && before.review === "approved" && changed ? "waiting" : before.review;
    const next: OidcClient = {
      ...read,
      review,
      disabled: before.disabled,
      triedBy: before.triedBy,
      createdAt: before.createdAt,
    };
    await clients.save(deps.store, next, tx);
    return { client: next, created: false, reReview: review !== before.review };
  });
  deps.clients.evict(url);
  const redirectHosts = [...new Set(client.redirectUris.map((u) => new URL(u).host))];
  if (created)
    deps.log.info("client registered itself", {
      clientId: url,
      review: client.review,
      by: "metadata document",
      redirectHosts,
    });
  if (reReview)
    deps.log.info("client metadata document changed", { clientId: url, review: client.review, redirectHosts });
  return client;
}

async function readAndCheck(deps: DocumentDeps, url: string) {
  let fetched;
  try {
    fetched = await deps.documents(url);
  } catch (err) {
    if (err instanceof DocumentFetchError)
      throw documentError(`The app's metadata document could not be read: ${err.message}`);
    throw err;
  }
  const metadata = checkDocument(url, fetched.json);
  ensureNameNotTaken(metadata.clientName, await operatorNames(deps));
  return { fetched, metadata };
}

/** Marks a kept client's failed reading: none again before the provider's floor has passed. */
async function rememberFailure(deps: DocumentDeps, url: string): Promise<void> {
  const failedUntil = new Date(deps.clock.now().getTime() + DOCUMENT_FRESH_MIN_MS);
  await deps.transaction(async (tx) => {
    const before = await clients.findById(deps.store, url, tx);
    if (before === null || before.document === null) return;
    await clients.save(deps.store, { ...before, document: { ...before.document, failedUntil } }, tx);
  });
  deps.clients.evict(url);
}
