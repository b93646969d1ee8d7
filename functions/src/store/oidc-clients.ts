import { createHash } from "node:crypto";
import { FieldPath, Timestamp, type DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import {
  isDocumentId,
  optionalDate,
  optionalString,
  stringList,
  toDate,
  type Firestore,
  type Reading,
  type Transaction,
} from "./db";
import type { ClientSecret, OidcClient } from "../core/model/oidc-client";

/**
 * `oidcClients/{clientId}`: relying parties, registered by the operator or by themselves; secrets
 * kept as hashes. A client whose id is a URL (its metadata document's) is kept at `url:` and the
 * URL's SHA-256, a name no other client id can take (core/oidc/clients isClientId has no colon),
 * with the URL itself in `clientId`.
 */
const OIDC_CLIENTS: Collection = "oidcClients";
const URL_ID = /^https?:\/\//;
const URL_KEY = "url:";

/**
 * The document a client id is kept at; null for one no document can be named by. A `url:` key is
 * the store's own name for a URL's client, never an id: a request that names it names no client,
 * or one client would answer to two ids (its consents, disconnects and re-reading keyed apart).
 */
function docIdOf(clientId: string): string | null {
  if (URL_ID.test(clientId)) return `${URL_KEY}${createHash("sha256").update(clientId).digest("hex")}`;
  return isDocumentId(clientId) && !clientId.startsWith(URL_KEY) ? clientId : null;
}

function ref(db: Firestore, clientId: string) {
  const id = docIdOf(clientId);
  if (id === null) throw new Error("no client can have this id");
  return db.collection(OIDC_CLIENTS).doc(id);
}

/**
 * How long a client that registered itself may wait for review (from its registration, or its
 * metadata document's last reading): unreviewed past this, nobody wanted it, and Firestore's TTL
 * forgets it (with the people who tried it, who are then not told).
 * A decision takes the expiry off: approved and blocked clients are kept.
 */
export const WAITING_CLIENT_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

function stored(client: OidcClient): DocumentData {
  const { clientId, ...rest } = client;
  const expiry =
    client.review === "waiting" ? { forgetAfter: new Date(client.createdAt.getTime() + WAITING_CLIENT_KEPT_MS) } : {};
  return URL_ID.test(clientId) ? { ...rest, ...expiry, clientId } : { ...rest, ...expiry };
}

export async function save(db: Firestore, client: OidcClient, tx?: Transaction): Promise<void> {
  if (tx) tx.set(ref(db, client.clientId), stored(client));
  else await ref(db, client.clientId).set(stored(client));
}

/** Stores a new client; create() fails (gRPC ALREADY_EXISTS) if the id is taken. */
export async function create(db: Firestore, client: OidcClient, tx?: Transaction): Promise<void> {
  if (tx) tx.create(ref(db, client.clientId), stored(client));
  else await ref(db, client.clientId).create(stored(client));
}

export async function findById(db: Firestore, clientId: string, tx?: Transaction): Promise<OidcClient | null> {
  // A client_id comes from the request: one no document can have names no client.
  if (docIdOf(clientId) === null) return null;
  const snap = tx ? await tx.get(ref(db, clientId)) : await ref(db, clientId).get();
  const d = snap.data();
  return d ? fromStored(clientId, d) : null;
}

/** The client `clientId`, null where there is none: to read with other documents in one call (readTogether). */
export function byId(db: Firestore, clientId: string): Reading<OidcClient | null> {
  return {
    refs: docIdOf(clientId) === null ? [] : [ref(db, clientId)],
    from: ([snap]) => {
      const d = snap?.data();
      return d ? fromStored(clientId, d) : null;
    },
  };
}

/** The names of the clients the operator registered (a client stored without `registeredBy` is theirs). */
export async function operatorNames(db: Firestore): Promise<string[]> {
  const snap = await db.collection(OIDC_CLIENTS).select("name", "registeredBy").get();
  return snap.docs
    .filter((d) => (d.get("registeredBy") ?? "operator") === "operator")
    .map((d) => String(d.get("name")));
}

export async function list(db: Firestore): Promise<OidcClient[]> {
  const snap = await db.collection(OIDC_CLIENTS).get();
  return snap.docs.map((doc) => fromDoc(doc.id, doc.data()));
}

/** Deletes the client's document: every endpoint then knows it no more than an id nobody registered. */
export function remove(db: Firestore, tx: Transaction, clientId: string): void {
  tx.delete(ref(db, clientId));
}

/**
 * Clients waiting for review, oldest first, `limit` at a time after the key a page ended on
 * (`${createdAt}~${document id}`, which the caller keeps opaque), each with its key.
 */
export async function waitingPage(
  db: Firestore,
  limit: number,
  after: string | null,
): Promise<{ clients: OidcClient[]; keys: string[] }> {
  let query = db
    .collection(OIDC_CLIENTS)
    .where("review", "==", "waiting")
    .orderBy("createdAt", "asc")
    .orderBy(FieldPath.documentId(), "asc");
  const cut = after === null ? -1 : after.indexOf("~");
  if (after !== null && cut > 0) {
    const at = new Date(after.slice(0, cut));
    // A key this list did not give reads as the start: the cursor is checked before it gets here.
    if (!Number.isNaN(at.getTime())) query = query.startAfter(Timestamp.fromDate(at), after.slice(cut + 1));
  }
  const snap = await query.limit(limit).get();
  return {
    clients: snap.docs.map((doc) => fromDoc(doc.id, doc.data())),
    keys: snap.docs.map((doc) => `${toDate(doc.get("createdAt")).toISOString()}~${doc.id}`),
  };
}

/** How many clients wait for review: one aggregation read. */
export async function countWaiting(db: Firestore): Promise<number> {
  return (await db.collection(OIDC_CLIENTS).where("review", "==", "waiting").count().get()).data().count;
}

/** A stored client: the URL in `clientId` for one kept at a hashed name, its document's id otherwise. */
function fromDoc(id: string, d: DocumentData): OidcClient {
  return fromStored(typeof d.clientId === "string" ? d.clientId : id, d);
}

function secretsOf(d: DocumentData): ClientSecret[] {
  if (Array.isArray(d.secrets))
    return (d.secrets as DocumentData[]).map((s) => ({
      hash: String(s.hash),
      createdAt: toDate(s.createdAt),
      expiresAt: optionalDate(s.expiresAt),
    }));
  // Registrations stored before rotation existed hold a single `secretHash`.
  return typeof d.secretHash === "string"
    ? [{ hash: d.secretHash, createdAt: toDate(d.createdAt), expiresAt: null }]
    : [];
}

function fromStored(clientId: string, d: DocumentData): OidcClient {
  return {
    clientId,
    name: String(d.name),
    secrets: secretsOf(d),
    redirectUris: stringList(d.redirectUris),
    postLogoutRedirectUris: stringList(d.postLogoutRedirectUris),
    backchannelLogoutUri: typeof d.backchannelLogoutUri === "string" ? d.backchannelLogoutUri : null,
    pkce: d.pkce === "optional" ? "optional" : "required",
    refreshTokens: d.refreshTokens === true,
    project: typeof d.project === "string" ? d.project : null,
    disabled: d.disabled === true,
    // Clients stored before clients could register themselves are all the operator's.
    registeredBy: d.registeredBy === "self" || d.registeredBy === "document" ? d.registeredBy : "operator",
    review: d.review === "waiting" || d.review === "blocked" ? d.review : "approved",
    clientUri: optionalString(d.clientUri),
    logoUri: optionalString(d.logoUri),
    // Clients stored before public clients existed all authenticate with a secret.
    tokenAuth: d.tokenAuth === "client_secret_post" || d.tokenAuth === "none" ? d.tokenAuth : "client_secret_basic",
    triedBy: stringList(d.triedBy),
    document:
      d.document && typeof d.document === "object"
        ? {
            fetchedAt: toDate(d.document.fetchedAt),
            freshUntil: toDate(d.document.freshUntil),
            failedUntil: optionalDate(d.document.failedUntil),
          }
        : null,
    createdAt: toDate(d.createdAt),
  };
}
