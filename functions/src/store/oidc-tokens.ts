import type { Collection } from "./collections";
import { read, stringList, toDate, type Firestore, type Transaction } from "./db";

/** `oidcAccessTokens/{sha256(token)}`: access tokens for userinfo; the token is never stored. */
const OIDC_ACCESS_TOKENS: Collection = "oidcAccessTokens";

export interface AccessToken {
  hash: string;
  clientId: string;
  uid: string;
  personId: string;
  scopes: string[];
  createdAt: Date;
  expiresAt: Date;
}

export function create(db: Firestore, tx: Transaction, token: AccessToken): void {
  const { hash, ...stored } = token;
  tx.create(db.collection(OIDC_ACCESS_TOKENS).doc(hash), stored);
}

export async function findByHash(db: Firestore, hash: string, tx?: Transaction): Promise<AccessToken | null> {
  const d = await read(db, `${OIDC_ACCESS_TOKENS}/${hash}`, tx);
  if (!d) return null;
  return {
    hash,
    clientId: String(d.clientId),
    uid: String(d.uid),
    personId: String(d.personId),
    scopes: stringList(d.scopes),
    createdAt: toDate(d.createdAt),
    expiresAt: toDate(d.expiresAt),
  };
}

export function revoke(db: Firestore, tx: Transaction, hash: string): void {
  tx.delete(db.collection(OIDC_ACCESS_TOKENS).doc(hash));
}
