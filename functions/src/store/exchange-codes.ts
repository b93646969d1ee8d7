import type { Collection } from "./collections";
import { optionalDate, optionalString, read, toDate, type Firestore, type Transaction } from "./db";

/** `exchangeCodes/{sha256(code)}`: the code itself is never stored. */
const EXCHANGE_CODES: Collection = "exchangeCodes";

/** What a hand-off code is bound to; codes issued otherwise have none. */
export interface Binding {
  app: string;
  redirectUri: string;
  /** S256 PKCE challenge: redeeming needs its verifier. */
  codeChallenge: string;
}

export interface ExchangeCode {
  hash: string;
  uid: string;
  personId: string;
  createdAt: Date;
  expiresAt: Date;
  redeemedAt: Date | null;
  app: string | null;
  redirectUri: string | null;
  codeChallenge: string | null;
}

export function save(db: Firestore, code: ExchangeCode): Promise<unknown> {
  const { hash, ...stored } = code;
  // create(): a hash collision must fail loudly, never overwrite a live code.
  return db.collection(EXCHANGE_CODES).doc(hash).create(stored);
}

export async function findByHash(db: Firestore, hash: string, tx?: Transaction): Promise<ExchangeCode | null> {
  const d = await read(db, `${EXCHANGE_CODES}/${hash}`, tx);
  if (!d) return null;
  return {
    hash,
    uid: String(d.uid),
    personId: String(d.personId),
    createdAt: toDate(d.createdAt),
    expiresAt: toDate(d.expiresAt),
    redeemedAt: optionalDate(d.redeemedAt),
    app: optionalString(d.app),
    redirectUri: optionalString(d.redirectUri),
    codeChallenge: optionalString(d.codeChallenge),
  };
}

export function markRedeemed(db: Firestore, tx: Transaction, hash: string, at: Date): void {
  tx.update(db.collection(EXCHANGE_CODES).doc(hash), { redeemedAt: at });
}
