import type { DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { read, stringList, toDate, type Firestore, type Transaction } from "./db";

/** `oidcAccessTokens/{sha256(token)}` (a JWT's: of its `jti`): access tokens; the token is never stored. */
const OIDC_ACCESS_TOKENS: Collection = "oidcAccessTokens";

export interface AccessToken {
  hash: string;
  clientId: string;
  uid: string;
  personId: string;
  scopes: string[];
  /**
   * The resource (RFC 8707) it is for: then the client holds it as a JWT naming this record's id
   * as its `jti`, and the record answers for that JWT alone (core/oidc/access-tokens). Null: an
   * opaque token of the provider's own.
   */
  resource: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export function create(db: Firestore, tx: Transaction, token: AccessToken): void {
  const { hash, ...stored } = token;
  tx.create(db.collection(OIDC_ACCESS_TOKENS).doc(hash), stored);
}

/** Every access token of the person, read in `tx`: for what ends them all for one client. */
export async function ofPerson(db: Firestore, tx: Transaction, personId: string): Promise<AccessToken[]> {
  const snap = await tx.get(db.collection(OIDC_ACCESS_TOKENS).where("personId", "==", personId));
  return snap.docs.map((d) => fromStored(d.id, d.data()));
}

export async function findByHash(db: Firestore, hash: string, tx?: Transaction): Promise<AccessToken | null> {
  const d = await read(db, `${OIDC_ACCESS_TOKENS}/${hash}`, tx);
  return d ? fromStored(hash, d) : null;
}

function fromStored(hash: string, d: DocumentData): AccessToken {
  return {
    hash,
    clientId: String(d.clientId),
    uid: String(d.uid),
    personId: String(d.personId),
    scopes: stringList(d.scopes),
    resource: typeof d.resource === "string" ? d.resource : null,
    createdAt: toDate(d.createdAt),
    expiresAt: toDate(d.expiresAt),
  };
}

export function revoke(db: Firestore, tx: Transaction, hash: string): void {
  tx.delete(db.collection(OIDC_ACCESS_TOKENS).doc(hash));
}
