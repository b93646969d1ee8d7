import type { Collection } from "./collections";
import { optionalDate, type Firestore, type Transaction } from "./db";

/**
 * `reviewDigests/last`: when the last digest to the reviewers went. Read and written in the
 * transaction that decides to send one, so of many drains at once one sends and the others see it.
 */
const DIGESTS: Collection = "reviewDigests";

function ref(db: Firestore) {
  return db.collection(DIGESTS).doc("last");
}

export async function lastSentAt(db: Firestore, tx: Transaction): Promise<Date | null> {
  const snap = await tx.get(ref(db));
  return snap.exists ? optionalDate(snap.get("sentAt")) : null;
}

export function saveSentAt(db: Firestore, tx: Transaction, at: Date): void {
  tx.set(ref(db), { sentAt: at });
}
