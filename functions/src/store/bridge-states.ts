import type { Collection } from "./collections";
import { optionalDate, optionalString, read, toDate, type Firestore, type Transaction } from "./db";

/** `bridgeStates/{sha256(state)}`: the state itself only travels in the cookie and to the provider. */
const BRIDGE_STATES: Collection = "bridgeStates";

export interface BridgeState {
  hash: string;
  provider: string;
  /** Where the browser goes once signed in; checked against the service's own hosts at start. */
  redirect: string;
  /** Where the provider sends the browser back to: this sign-in's callback address. */
  callback: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  /** The `federated` bridge's provider selector; null on other bridges. */
  idp: string | null;
  /**
   * The PKCE verifier and nonce of an OpenID Connect sign-in (null on other bridges). The
   * verifier has to be sent as it is, so it cannot be hashed; it is erased when the state is
   * used, and is worth nothing without the authorization code and our client secret.
   */
  codeVerifier: string | null;
  nonce: string | null;
  /**
   * The name a provider answering by form_post sent beside its answer (a device maker's `user`
   * field, on an account's first sign-in only, and in no token), kept for the person it makes.
   */
  postedName: string | null;
}

export function save(db: Firestore, state: BridgeState): Promise<unknown> {
  const { hash, ...stored } = state;
  return db.collection(BRIDGE_STATES).doc(hash).create(stored);
}

export async function findByHash(db: Firestore, hash: string, tx: Transaction): Promise<BridgeState | null> {
  const d = await read(db, `${BRIDGE_STATES}/${hash}`, tx);
  if (!d) return null;
  return {
    hash,
    provider: String(d.provider),
    redirect: String(d.redirect),
    callback: String(d.callback),
    createdAt: toDate(d.createdAt),
    expiresAt: toDate(d.expiresAt),
    usedAt: optionalDate(d.usedAt),
    idp: optionalString(d.idp),
    codeVerifier: optionalString(d.codeVerifier),
    nonce: optionalString(d.nonce),
    postedName: optionalString(d.postedName),
  };
}

/** Used once; the verifier goes with the use. */
export function markUsed(db: Firestore, tx: Transaction, hash: string, at: Date): void {
  tx.update(db.collection(BRIDGE_STATES).doc(hash), { usedAt: at, codeVerifier: null });
}

/** Keeps the name a form_post answer carried, for the GET callback that uses the state. */
export function keepPostedName(db: Firestore, tx: Transaction, hash: string, name: string): void {
  tx.update(db.collection(BRIDGE_STATES).doc(hash), { postedName: name });
}
