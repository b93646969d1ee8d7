import type { DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { optionalDate, toDate, type Firestore, type Transaction } from "./db";

/**
 * `recoveryCodes/{personId}`: a person's one-time recovery codes, as keyed hashes only (each
 * HMAC-SHA256 under the CODE_PEPPER key `kid`, bound to the person: core/pepper), with when each
 * was used. One document per person: a new set replaces the old in one write, and a use is
 * decided in a transaction on it, so of concurrent uses of one code one wins.
 */
const CODES: Collection = "recoveryCodes";

export interface StoredCode {
  hash: string;
  usedAt: Date | null;
}

export interface RecoveryCodes {
  personId: string;
  kid: string;
  /** When the set was made: also what names it, in the sessions its codes open. */
  madeAt: Date;
  /** The address the session that made them came in through (see Passkey `address`); null for none. */
  address: string | null;
  codes: StoredCode[];
}

function ref(db: Firestore, personId: string) {
  return db.collection(CODES).doc(personId);
}

function fromData(personId: string, d: DocumentData): RecoveryCodes {
  const codes = Array.isArray(d.codes) ? (d.codes as Array<Record<string, unknown>>) : [];
  return {
    personId,
    kid: String(d.kid ?? ""),
    madeAt: toDate(d.madeAt),
    address: typeof d.address === "string" ? d.address : null,
    codes: codes.map((c) => ({ hash: String(c.hash ?? ""), usedAt: optionalDate(c.usedAt) })),
  };
}

export async function findByPerson(db: Firestore, personId: string, tx?: Transaction): Promise<RecoveryCodes | null> {
  const snap = tx ? await tx.get(ref(db, personId)) : await ref(db, personId).get();
  return snap.exists ? fromData(personId, snap.data() ?? {}) : null;
}

/** A new set, in place of any before it: the old codes end in the same write. */
export function replace(db: Firestore, tx: Transaction, codes: RecoveryCodes): void {
  tx.set(ref(db, codes.personId), {
    personId: codes.personId,
    kid: codes.kid,
    madeAt: codes.madeAt,
    address: codes.address,
    codes: codes.codes.map((c) => ({ hash: c.hash, usedAt: c.usedAt })),
  });
}

/** Marks the code at `index` used, writing the set as read in `tx` with that one change. */
export function markUsed(db: Firestore, tx: Transaction, read: RecoveryCodes, index: number, at: Date): void {
  tx.update(ref(db, read.personId), {
    codes: read.codes.map((c, i) => ({ hash: c.hash, usedAt: i === index ? at : c.usedAt })),
  });
}

/** How many people's sets are keyed with pepper key `kid`: they stop matching once it leaves the ring. */
export async function countKeyedWith(db: Firestore, kid: string): Promise<number> {
  return (await db.collection(CODES).where("kid", "==", kid).count().get()).data().count;
}

/** Ends every code of the person (the operator's clearing, an erasure). */
export function remove(db: Firestore, tx: Transaction, personId: string): void {
  tx.delete(ref(db, personId));
}
