import type { Collection } from "./collections";
import { optionalDate, toDate, type Firestore, type Transaction } from "./db";

/**
 * `clientThrottles/{id}`: failed client authentications at the token endpoint, per client id and
 * caller (a keyed digest of the two, never either): the recent failures, and until when further
 * attempts are refused. `forgetAfter` is when the record stops mattering (a TTL field).
 */
const THROTTLES: Collection = "clientThrottles";

export interface Throttle {
  id: string;
  failures: Date[];
  refusedUntil: Date | null;
}

function ref(db: Firestore, id: string) {
  return db.collection(THROTTLES).doc(id);
}

export async function findAll(db: Firestore, ids: string[], tx: Transaction): Promise<Throttle[]> {
  if (ids.length === 0) return [];
  const snaps = await tx.getAll(...ids.map((id) => ref(db, id)));
  return snaps.map((snap) => {
    const failures = snap.get("failures") as unknown;
    return {
      id: snap.id,
      failures: Array.isArray(failures) ? failures.map(toDate) : [],
      refusedUntil: optionalDate(snap.get("refusedUntil")),
    };
  });
}

export function save(db: Firestore, tx: Transaction, throttle: Throttle, forgetAfter: Date): void {
  tx.set(ref(db, throttle.id), { failures: throttle.failures, refusedUntil: throttle.refusedUntil, forgetAfter });
}
