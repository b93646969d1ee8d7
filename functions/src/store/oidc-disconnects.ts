import { createHash } from "node:crypto";
import type { Collection } from "./collections";
import { toDate, type Firestore, type Transaction } from "./db";

/**
 * `oidcDisconnects/{sha256(personId, clientId)}`: an app the person (or an administrator, or the
 * operator) disconnected, and when: until the person lets it in again on the authorise
 * endpoint's page (core/oidc/disconnects), it gets no code for them without asking. Kept until
 * then, or until the person is erased.
 */
const DISCONNECTS: Collection = "oidcDisconnects";

export interface OidcDisconnect {
  personId: string;
  clientId: string;
  disconnectedAt: Date;
}

const ref = (db: Firestore, personId: string, clientId: string) =>
  db.collection(DISCONNECTS).doc(createHash("sha256").update(`${personId}\u0000${clientId}`).digest("hex"));

/** Records it (again: the latest disconnect is the one kept). */
export function record(db: Firestore, tx: Transaction, d: OidcDisconnect): void {
  tx.set(ref(db, d.personId, d.clientId), d);
}

export async function find(db: Firestore, personId: string, clientId: string): Promise<OidcDisconnect | null> {
  const d = (await ref(db, personId, clientId).get()).data();
  return d === undefined
    ? null
    : { personId: String(d.personId), clientId: String(d.clientId), disconnectedAt: toDate(d.disconnectedAt) };
}

export async function forget(db: Firestore, personId: string, clientId: string): Promise<void> {
  await ref(db, personId, clientId).delete();
}

/** Forgets it in `tx` (the person's yes to an app that asks their consent: core/oidc/consents). */
export function forgetIn(db: Firestore, tx: Transaction, personId: string, clientId: string): void {
  tx.delete(ref(db, personId, clientId));
}
