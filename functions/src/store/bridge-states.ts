import type { Collection } from "./collections";
import type { BridgeState } from "../core/model/bridge-state";
import { optionalDate, optionalString, read, toDate, type Firestore, type Transaction } from "./db";

/** `bridgeStates/{sha256(state)}`: the state itself only travels in the cookie and to the provider. */
const BRIDGE_STATES: Collection = "bridgeStates";

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
