import type { Collection } from "./collections";
import type { DocumentData } from "firebase-admin/firestore";
import { optionalDate, toDate, type Firestore } from "./db";

/** `apiKeys/{sha256(key)}`: the key itself is never stored; `prefix` identifies it to people. */
const API_KEYS: Collection = "apiKeys";

export interface ApiKey {
  hash: string;
  prefix: string;
  label: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export async function save(db: Firestore, key: ApiKey): Promise<void> {
  const { hash, ...stored } = key;
  await db.collection(API_KEYS).doc(hash).set(stored);
}

function fromDoc(hash: string, d: DocumentData): ApiKey {
  return {
    hash,
    prefix: String(d.prefix),
    label: String(d.label),
    createdAt: toDate(d.createdAt),
    revokedAt: optionalDate(d.revokedAt),
  };
}

export async function findByHash(db: Firestore, hash: string): Promise<ApiKey | null> {
  const d = (await db.collection(API_KEYS).doc(hash).get()).data();
  return d ? fromDoc(hash, d) : null;
}

export async function list(db: Firestore): Promise<ApiKey[]> {
  const snap = await db.collection(API_KEYS).get();
  return snap.docs.map((doc) => fromDoc(doc.id, doc.data()));
}

export async function revoke(db: Firestore, hash: string, at: Date): Promise<void> {
  await db.collection(API_KEYS).doc(hash).update({ revokedAt: at });
}
