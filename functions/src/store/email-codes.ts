import type { Collection } from "./collections";
import { optionalString, toDate, type Firestore, type Transaction } from "./db";
import type { CodeState } from "../core/model/email-codes";

/**
 * `emailCodes/{addressId}`: the one live code of an address. The id is a keyed hash of the
 * canonical address (core/pepper) and the code is kept only as a keyed hash of purpose,
 * address and code; neither the address nor the code is stored. A destroyed code stays as a
 * tombstone without its hash, so later checks can say why it no longer works.
 */
const EMAIL_CODES: Collection = "emailCodes";

export interface EmailCode {
  addressId: string;
  /** The pepper key that made `hash` (and `addressId`). */
  kid: string;
  hash: string | null;
  state: CodeState;
  /** Wrong guesses compared so far. */
  attempts: number;
  /** Which send made this code, so a late delivery report cannot touch a newer one. */
  sendId: string;
  createdAt: Date;
  expiresAt: Date;
}

const STATES: readonly CodeState[] = ["ready", "expired", "exhausted"];

function ref(db: Firestore, addressId: string) {
  return db.collection(EMAIL_CODES).doc(addressId);
}

/** The code held under the first of `addressIds` that has one (the ids of one address under each key). */
export async function findFirst(db: Firestore, addressIds: string[], tx: Transaction): Promise<EmailCode | null> {
  const snaps = await tx.getAll(...addressIds.map((id) => ref(db, id)));
  const snap = snaps.find((s) => s.exists);
  if (!snap) return null;
  const d = snap.data() ?? {};
  return {
    addressId: snap.id,
    kid: String(d.kid),
    hash: optionalString(d.hash),
    state: STATES.includes(d.state) ? d.state : "expired",
    attempts: typeof d.attempts === "number" ? d.attempts : 0,
    sendId: String(d.sendId),
    createdAt: toDate(d.createdAt),
    expiresAt: toDate(d.expiresAt),
  };
}

/** Writes `code` in place of whatever the address held, under every key. */
export function replace(db: Firestore, tx: Transaction, code: EmailCode, otherIds: string[]): void {
  const { addressId, ...stored } = code;
  tx.set(ref(db, addressId), stored);
  for (const id of otherIds) if (id !== addressId) tx.delete(ref(db, id));
}

export function recordAttempt(db: Firestore, tx: Transaction, addressId: string, attempts: number): void {
  tx.update(ref(db, addressId), { attempts });
}

/** The code can never be used again; the tombstone keeps only why. */
export function destroy(db: Firestore, tx: Transaction, addressId: string, state: "expired" | "exhausted"): void {
  tx.update(ref(db, addressId), { state, hash: null });
}

/** Consumed, or never delivered: gone without a trace. */
export function remove(db: Firestore, tx: Transaction, addressId: string): void {
  tx.delete(ref(db, addressId));
}
