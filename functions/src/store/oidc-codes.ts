import type { Collection } from "./collections";
import type { DocumentData } from "firebase-admin/firestore";
import { optionalDate, optionalString, stringList, toDate, type Firestore, type Reading, type Transaction } from "./db";

/** `oidcCodes/{sha256(code)}`: authorization codes; the code itself is never stored. */
const OIDC_CODES: Collection = "oidcCodes";

export interface OidcCode {
  hash: string;
  clientId: string;
  redirectUri: string;
  /** base64url(SHA-256(code_verifier)), as the client sent it (RFC 7636, method S256); null when a PKCE-optional client sent none. */
  codeChallenge: string | null;
  nonce: string | null;
  scopes: string[];
  uid: string;
  personId: string;
  /** When the person authenticated (the ID token's `auth_time`); null on codes stored without it. */
  authTime: Date | null;
  /** How the person authenticated (RFC 8176), for the ID token's `amr`; empty when not known. */
  amr: string[];
  /** The authentication context class the request asked for and the session met (the ID token's `acr`); null when none was asked. */
  acr: string | null;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  /** The access token the code was redeemed for: revoked if the code is ever presented again. */
  accessTokenHash: string | null;
  /** The identity host's session it was issued from; null on codes stored without it. */
  sessionKey: string | null;
  /** The grant (refresh tokens) it began, if it asked for one: ended too if the code comes again. */
  grantId: string | null; /** The resource (RFC 8707) its access token is for; null: the provider's own (userinfo). */
  resource: string | null;
}

export function save(db: Firestore, code: OidcCode): Promise<unknown> {
  const { hash, ...stored } = code;
  // create(): a hash collision must fail loudly, never overwrite a live code.
  return db
    .collection(OIDC_CODES)
    .doc(hash)
    .create({ ...stored, forgetAfter: code.expiresAt });
}

/** The codes behind these hashes, in order (null where none is stored), read in the transaction. */
/** The codes of `hashes`, null for each that is not there: to read in a transaction (readTogether). */
export function byHash(db: Firestore, hashes: string[]): Reading<Array<OidcCode | null>> {
  return {
    refs: hashes.map((hash) => db.collection(OIDC_CODES).doc(hash)),
    from: (snaps) =>
      snaps.map((snap, i) => {
        const d = snap.data();
        return d === undefined ? null : fromStored(hashes[i] as string, d);
      }),
  };
}

/** The person's codes not yet redeemed, read in `tx`. */
export async function unusedOf(db: Firestore, tx: Transaction, personId: string): Promise<OidcCode[]> {
  const snap = await tx.get(db.collection(OIDC_CODES).where("personId", "==", personId));
  return snap.docs.map((d) => fromStored(d.id, d.data())).filter((c) => c.usedAt === null);
}

/** Deletes a code that was never redeemed: presented later, it is unknown. */
export function remove(db: Firestore, tx: Transaction, hash: string): void {
  tx.delete(db.collection(OIDC_CODES).doc(hash));
}

function fromStored(hash: string, d: DocumentData): OidcCode {
  return {
    hash,
    clientId: String(d.clientId),
    redirectUri: String(d.redirectUri),
    codeChallenge: optionalString(d.codeChallenge),
    nonce: optionalString(d.nonce),
    scopes: stringList(d.scopes),
    uid: String(d.uid),
    personId: String(d.personId),
    authTime: optionalDate(d.authTime),
    amr: stringList(d.amr),
    acr: optionalString(d.acr),
    createdAt: toDate(d.createdAt),
    expiresAt: toDate(d.expiresAt),
    usedAt: optionalDate(d.usedAt),
    accessTokenHash: optionalString(d.accessTokenHash),
    grantId: optionalString(d.grantId),
    sessionKey: optionalString(d.sessionKey),
    resource: optionalString(d.resource),
  };
}

/**
 * Spends the code. One redeemed for an access token is kept (`forgetAfter`, its TTL field) until
 * that token expires, so a later presentation can still revoke it.
 */
export function markUsed(
  db: Firestore,
  tx: Transaction,
  hash: string,
  at: Date,
  accessToken: { hash: string; expiresAt: Date } | null,
  grantId: string | null = null,
): void {
  tx.update(db.collection(OIDC_CODES).doc(hash), {
    usedAt: at,
    accessTokenHash: accessToken?.hash ?? null,
    grantId,
    ...(accessToken === null ? {} : { forgetAfter: accessToken.expiresAt }),
  });
}
