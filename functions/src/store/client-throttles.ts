import type { Collection } from "./collections";
import type { Throttle } from "../core/model/client-throttle";
import { optionalDate, toDate, type Firestore, type Reading, type Transaction } from "./db";

/**
 * `clientThrottles/{id}`: failed client authentications at the token endpoint, per client id and
 * caller (a keyed digest of the two, never either): the recent failures, and until when further
 * attempts are refused. `forgetAfter` is when the record stops mattering (a TTL field).
 */
const THROTTLES: Collection = "clientThrottles";

function ref(db: Firestore, id: string) {
  return db.collection(THROTTLES).doc(id);
}

/** The throttles of `ids` (a record with no failures for each that is not there): to read in a transaction. */
export function byId(db: Firestore, ids: string[]): Reading<Throttle[]> {
  return {
    refs: ids.map((id) => ref(db, id)),
    from: (snaps) =>
      snaps.map((snap) => {
        const failures = snap.get("failures") as unknown;
        return {
          id: snap.id,
          failures: Array.isArray(failures) ? failures.map(toDate) : [],
          refusedUntil: optionalDate(snap.get("refusedUntil")),
        };
      }),
  };
}

export function save(db: Firestore, tx: Transaction, throttle: Throttle, forgetAfter: Date): void {
  tx.set(ref(db, throttle.id), { failures: throttle.failures, refusedUntil: throttle.refusedUntil, forgetAfter });
}
