import type { Collection } from "./collections";
import type { PasskeyChallenge } from "../core/model/passkey";
import { optionalDate, optionalString, read, toDate, type Firestore, type Transaction } from "./db";

/** `passkeyChallenges/{sha256(challenge)}`: each WebAuthn challenge the service has handed out. */
const CHALLENGES: Collection = "passkeyChallenges";

export function save(db: Firestore, challenge: PasskeyChallenge): Promise<unknown> {
  const { hash, ...stored } = challenge;
  return db.collection(CHALLENGES).doc(hash).create(stored);
}

export async function findByHash(db: Firestore, hash: string, tx: Transaction): Promise<PasskeyChallenge | null> {
  const d = await read(db, `${CHALLENGES}/${hash}`, tx);
  if (!d) return null;
  return {
    hash,
    purpose: d.purpose === "register" ? "register" : "sign-in",
    personId: optionalString(d.personId),
    sessionKey: optionalString(d.sessionKey),
    binding: optionalString(d.binding),
    createdAt: toDate(d.createdAt),
    expiresAt: toDate(d.expiresAt),
    usedAt: optionalDate(d.usedAt),
  };
}

export function markUsed(db: Firestore, tx: Transaction, hash: string, at: Date): void {
  tx.update(db.collection(CHALLENGES).doc(hash), { usedAt: at });
}
