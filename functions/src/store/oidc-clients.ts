import type { DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { isDocumentId, optionalDate, optionalString, stringList, toDate, type Firestore, type Transaction } from "./db";
import type { ClientSecret, OidcClient } from "../core/model/oidc-client";

/** `oidcClients/{clientId}`: relying parties, registered by the operator or by themselves; secrets kept as hashes. */
const OIDC_CLIENTS: Collection = "oidcClients";

function ref(db: Firestore, clientId: string) {
  return db.collection(OIDC_CLIENTS).doc(clientId);
}

export async function save(db: Firestore, client: OidcClient, tx?: Transaction): Promise<void> {
  const { clientId, ...stored } = client;
  if (tx) tx.set(ref(db, clientId), stored);
  else await ref(db, clientId).set(stored);
}

/** Stores a new client; create() fails (gRPC ALREADY_EXISTS) if the id is taken. */
export async function create(db: Firestore, client: OidcClient, tx?: Transaction): Promise<void> {
  const { clientId, ...stored } = client;
  if (tx) tx.create(ref(db, clientId), stored);
  else await ref(db, clientId).create(stored);
}

export async function findById(db: Firestore, clientId: string, tx?: Transaction): Promise<OidcClient | null> {
  // A client_id comes from the request: one no document can have names no client.
  if (!isDocumentId(clientId)) return null;
  const snap = tx ? await tx.get(ref(db, clientId)) : await ref(db, clientId).get();
  const d = snap.data();
  return d ? fromStored(clientId, d) : null;
}

/** The names of the clients the operator registered (a client stored without `registeredBy` is theirs). */
export async function operatorNames(db: Firestore): Promise<string[]> {
  const snap = await db.collection(OIDC_CLIENTS).select("name", "registeredBy").get();
  return snap.docs.filter((d) => d.get("registeredBy") !== "self").map((d) => String(d.get("name")));
}

export async function list(db: Firestore): Promise<OidcClient[]> {
  const snap = await db.collection(OIDC_CLIENTS).get();
  return snap.docs.map((doc) => fromStored(doc.id, doc.data()));
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
    registeredBy: d.registeredBy === "self" ? "self" : "operator",
    review: d.review === "waiting" || d.review === "blocked" ? d.review : "approved",
    clientUri: optionalString(d.clientUri),
    logoUri: optionalString(d.logoUri),
    // Clients stored before public clients existed all authenticate with a secret.
    tokenAuth: d.tokenAuth === "client_secret_post" || d.tokenAuth === "none" ? d.tokenAuth : "client_secret_basic",
    createdAt: toDate(d.createdAt),
  };
}
