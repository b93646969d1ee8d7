import type { Collection } from "./collections";
import type { Firestore, Reading, Transaction } from "./db";

/**
 * `registrationBudgets/{id}`: how many clients registered themselves (core/oidc/registration) in
 * one clock hour from one source, the id a keyed digest of the source and the hour (never either
 * in the clear). `forgetAfter` is when the count stops mattering (a TTL field).
 */
const BUDGETS: Collection = "registrationBudgets";

function ref(db: Firestore, id: string) {
  return db.collection(BUDGETS).doc(id);
}

/** The counts of `ids` (0 for one not there): to read in a transaction. */
export function counts(db: Firestore, ids: string[]): Reading<number[]> {
  return {
    refs: ids.map((id) => ref(db, id)),
    from: (snaps) => snaps.map((snap) => Number(snap.get("count") ?? 0)),
  };
}

export function setCount(db: Firestore, tx: Transaction, id: string, count: number, forgetAfter: Date): void {
  tx.set(ref(db, id), { count, forgetAfter });
}
