import type { Collection } from "./collections";
import { toDate, type Firestore, type Transaction } from "./db";

/**
 * `sendBudgets/{id}`: sends counted beyond each address, over a sliding window: one record per
 * client network (`client:<keyed hash>`, never the address itself) and the service's shards
 * (`service:<n>`). `forgetAfter` is when the record stops mattering (a TTL field).
 */
const BUDGETS: Collection = "sendBudgets";

export interface Budget {
  id: string;
  sends: Date[];
}

export async function findAll(db: Firestore, ids: string[], tx: Transaction): Promise<Budget[]> {
  const snaps = await tx.getAll(...ids.map((id) => db.collection(BUDGETS).doc(id)));
  return snaps.map((snap) => {
    const sends = snap.get("sends") as unknown;
    return { id: snap.id, sends: Array.isArray(sends) ? sends.map(toDate) : [] };
  });
}

export function save(db: Firestore, tx: Transaction, budget: Budget, forgetAfter: Date): void {
  tx.set(db.collection(BUDGETS).doc(budget.id), { sends: budget.sends, forgetAfter });
}
