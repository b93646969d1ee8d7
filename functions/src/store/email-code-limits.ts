import type { Collection } from "./collections";
import { optionalDate, toDate, type Firestore, type Transaction } from "./db";
import type { LimitState } from "../core/model/email-codes";

/**
 * `emailCodeLimits/{addressId}`: what one address has used, keyed like its code (a keyed hash,
 * never the address): its sends inside the last hour, its run of failed checks across codes,
 * and the end of its lockout. An address's run of recovery-code guesses is a record of its own,
 * under another keyed id (core/pepper `recoveryRunIds`), with no sends. `forgetAfter` is when the
 * record stops mattering (a TTL field).
 */
const LIMITS: Collection = "emailCodeLimits";

export interface CodeLimits extends LimitState {
  addressId: string;
}

function ref(db: Firestore, addressId: string) {
  return db.collection(LIMITS).doc(addressId);
}

/** The records of one address under each key of the ring (more than one only during a rotation). */
/** The records of `addressIds` (one address under each pepper key); read outside a transaction when `tx` is absent. */
export async function findAll(db: Firestore, addressIds: string[], tx?: Transaction): Promise<CodeLimits[]> {
  const refs = addressIds.map((id) => ref(db, id));
  const snaps = tx ? await tx.getAll(...refs) : await db.getAll(...refs);
  return snaps
    .filter((s) => s.exists)
    .map((s) => {
      const d = s.data() ?? {};
      return {
        addressId: s.id,
        sends: Array.isArray(d.sends) ? d.sends.map(toDate) : [],
        failures: typeof d.failures === "number" ? d.failures : 0,
        lockedUntil: optionalDate(d.lockedUntil),
        lockouts: typeof d.lockouts === "number" ? d.lockouts : 0,
        noticeAt: optionalDate(d.noticeAt),
      };
    });
}

/** Saves the address's state under `addressId` (the current key's) and drops its records under older keys. */
export function save(
  db: Firestore,
  tx: Transaction,
  addressId: string,
  kid: string,
  state: LimitState,
  forgetAfter: Date,
  found: CodeLimits[],
): void {
  tx.set(ref(db, addressId), {
    kid,
    sends: state.sends,
    failures: state.failures,
    lockedUntil: state.lockedUntil,
    lockouts: state.lockouts,
    noticeAt: state.noticeAt,
    forgetAfter,
  });
  for (const old of found) if (old.addressId !== addressId) tx.delete(ref(db, old.addressId));
}
