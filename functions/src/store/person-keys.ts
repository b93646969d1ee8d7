import type { Collection } from "./collections";
import type { Firestore, Transaction } from "./db";
import type { KeyKind } from "../core/model/person";

/**
 * `personKeys/{kind}:{value}` → { personId }: one document per uid, address and number, created
 * in the same transaction as the change that claims it, so two people can never share one.
 */
const KEYS: Collection = "personKeys";

function keyId(kind: KeyKind, value: string): string {
  // Document ids cannot hold "/", and addresses may.
  return `${kind}:${encodeURIComponent(value)}`;
}

/**
 * Read and written by every first-admin bootstrap (`personKeys/bootstrap:first-admin`): two at
 * once contend on this one document, so the second runs again and sees the first's admin. Read
 * first (a transaction reads before it writes); the returned function writes it.
 */
export async function readBootstrapLock(db: Firestore, tx: Transaction): Promise<(at: Date) => void> {
  const lock = db.collection(KEYS).doc("bootstrap:first-admin");
  await tx.get(lock);
  return (at) => tx.set(lock, { at });
}

/** Who holds a key, read inside the transaction that is about to claim it. */
export async function keyHolder(db: Firestore, tx: Transaction, kind: KeyKind, value: string): Promise<string | null> {
  const snap = await tx.get(db.collection(KEYS).doc(keyId(kind, value)));
  const personId = snap.exists ? snap.get("personId") : null;
  return typeof personId === "string" ? personId : null;
}

/** Whether anyone holds a key, read outside any transaction: one document, by id. */
export async function isHeld(db: Firestore, kind: KeyKind, value: string): Promise<boolean> {
  return (await db.collection(KEYS).doc(keyId(kind, value)).get()).exists;
}

export function claimKeys(db: Firestore, tx: Transaction, personId: string, kind: KeyKind, values: string[]): void {
  // create() fails the whole commit if another person already holds the key.
  for (const value of values) tx.create(db.collection(KEYS).doc(keyId(kind, value)), { personId });
}

export function releaseKeys(db: Firestore, tx: Transaction, kind: KeyKind, values: string[]): void {
  for (const value of values) tx.delete(db.collection(KEYS).doc(keyId(kind, value)));
}

/** Points the key at another person, in `tx` (an account moved between people). */
export function moveKey(db: Firestore, tx: Transaction, kind: KeyKind, value: string, personId: string): void {
  tx.set(db.collection(KEYS).doc(keyId(kind, value)), { personId });
}
