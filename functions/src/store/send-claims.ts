import type { Collection } from "./collections";
import type { Firestore } from "./db";

/**
 * `sendClaims/{addressId}~{minute}`: an address's send in one minute, claimed by a send the
 * budgets beyond its address let through (core/email-codes/send-budgets), before the transaction
 * that decides the address's limits. A create: of sends racing for one address, one claims the
 * minute and goes on, and the others are refused at once rather than contending for the address's
 * record. Let go when the send's code is not issued after all. `forgetAfter` is when it stops
 * mattering (a TTL field).
 */
const CLAIMS: Collection = "sendClaims";

/** Claims `id`; fails (gRPC ALREADY_EXISTS), writing nothing, when another send holds it. */
export async function claim(db: Firestore, id: string, at: Date, forgetAfter: Date): Promise<void> {
  await db.collection(CLAIMS).doc(id).create({ at, forgetAfter });
}

/** Lets go of a claim whose send issued no code. */
export async function release(db: Firestore, id: string): Promise<void> {
  await db.collection(CLAIMS).doc(id).delete();
}
