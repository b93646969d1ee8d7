import type { DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { isDocumentId, optionalDate, stringList, toDate, type Firestore, type Transaction } from "./db";
import type { Passkey } from "../core/model/passkey";

/**
 * `passkeys/{sha256(credential id)}`: a person's passkey, the public half of a key their
 * authenticator holds. The document id is also the passkey's id in the API: a credential id can
 * be up to 1,023 bytes, more than a document id may hold once encoded.
 */
const PASSKEYS: Collection = "passkeys";

function fromDoc(id: string, d: DocumentData): Passkey {
  return {
    id,
    personId: String(d.personId),
    uid: String(d.uid),
    credentialId: String(d.credentialId),
    publicKey: String(d.publicKey),
    counter: typeof d.counter === "number" ? d.counter : 0,
    transports: stringList(d.transports),
    aaguid: typeof d.aaguid === "string" ? d.aaguid : "",
    backupEligible: d.backupEligible === true,
    backedUp: d.backedUp === true,
    name: typeof d.name === "string" ? d.name : "",
    address: typeof d.address === "string" ? d.address : null,
    createdAt: toDate(d.createdAt),
    lastUsedAt: optionalDate(d.lastUsedAt),
    suspectAt: optionalDate(d.suspectAt),
  };
}

/** create(): a credential registered twice fails the commit rather than replacing the first. */
export function create(db: Firestore, tx: Transaction, passkey: Passkey): void {
  const { id, ...stored } = passkey;
  tx.create(db.collection(PASSKEYS).doc(id), stored);
}

export async function findById(db: Firestore, id: string, tx?: Transaction): Promise<Passkey | null> {
  if (!isDocumentId(id)) return null;
  const ref = db.collection(PASSKEYS).doc(id);
  const snap = tx ? await tx.get(ref) : await ref.get();
  const d = snap.data();
  return d === undefined ? null : fromDoc(id, d);
}

/** A person's passkeys, oldest first. */
export async function listByPerson(db: Firestore, personId: string, tx?: Transaction): Promise<Passkey[]> {
  // Equality only, so no composite index: the few a person holds are ordered here.
  const query = db.collection(PASSKEYS).where("personId", "==", personId);
  const snap = tx ? await tx.get(query) : await query.get();
  // Two made in the same millisecond keep one order, whatever order the query returned them in.
  return snap.docs
    .map((d) => fromDoc(d.id, d.data()))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function recordUse(
  db: Firestore,
  tx: Transaction,
  id: string,
  use: { counter: number; backedUp: boolean; at: Date },
): void {
  tx.update(db.collection(PASSKEYS).doc(id), { counter: use.counter, backedUp: use.backedUp, lastUsedAt: use.at });
}

export function markSuspect(db: Firestore, tx: Transaction, id: string, at: Date): void {
  tx.update(db.collection(PASSKEYS).doc(id), { suspectAt: at });
}

export function rename(db: Firestore, tx: Transaction, id: string, name: string): void {
  tx.update(db.collection(PASSKEYS).doc(id), { name });
}

export function remove(db: Firestore, tx: Transaction, id: string): void {
  tx.delete(db.collection(PASSKEYS).doc(id));
}
