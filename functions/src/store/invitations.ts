import { createHash } from "node:crypto";
import type { DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { isDocumentId, stringList, toDate, type Firestore, type Transaction } from "./db";
import type { Invitation } from "../core/model/invitation";
import type { Actor } from "../core/model/history";

/**
 * `invitations/{id}`: the addresses let in before they ask (core/invitations). The id is
 * derived from the address, so an address has one invitation at most and a file of invitations
 * run twice finds its own; it keeps the address out of paths and logs.
 */
const INVITATIONS: Collection = "invitations";

export function invitationId(address: string): string {
  return `inv_${createHash("sha256").update(address).digest("base64url").slice(0, 27)}`;
}

const ref = (db: Firestore, id: string) => db.collection(INVITATIONS).doc(id);

export async function find(db: Firestore, id: string, tx?: Transaction): Promise<Invitation | null> {
  if (!isDocumentId(id)) return null;
  const snap = tx ? await tx.get(ref(db, id)) : await ref(db, id).get();
  const d = snap.data();
  return d ? fromStored(snap.id, d) : null;
}

export const findByAddress = (db: Firestore, address: string, tx?: Transaction) => find(db, invitationId(address), tx);

/** Writes it whole; `forgetAfter` is when the TTL policy may delete it. */
export function save(db: Firestore, tx: Transaction, invitation: Invitation, forgetAfter: Date): void {
  const { id, ...stored } = invitation;
  tx.set(ref(db, id), { ...stored, forgetAfter });
}

export function remove(db: Firestore, tx: Transaction, id: string): void {
  tx.delete(ref(db, id));
}

/** The ids of up to `limit` invitations the administrator `personId` made. */
export async function idsByInviter(db: Firestore, personId: string, limit: number): Promise<string[]> {
  const snap = await db.collection(INVITATIONS).where("invitedBy.personId", "==", personId).limit(limit).get();
  return snap.docs.map((d) => d.id);
}

/** Deletes these invitations, outside any transaction, in one batch (at most 500). */
export async function removeAll(db: Firestore, ids: string[]): Promise<void> {
  const batch = db.batch();
  for (const id of ids) batch.delete(ref(db, id));
  await batch.commit();
}

/** A page of invitations, newest first, after the one invited at `after` (its id breaking ties). */
export async function page(
  db: Firestore,
  limit: number,
  after: { at: Date; id: string } | null,
): Promise<Invitation[]> {
  let query = db.collection(INVITATIONS).orderBy("invitedAt", "desc").orderBy("__name__", "desc");
  if (after !== null) query = query.startAfter(after.at, after.id);
  const snap = await query.limit(limit).get();
  return snap.docs.map((d) => fromStored(d.id, d.data()));
}

function fromStored(id: string, d: DocumentData): Invitation {
  return {
    id,
    address: String(d.address),
    name: typeof d.name === "string" ? d.name : "",
    projects: stringList(d.projects),
    groups: stringList(d.groups),
    role: d.role === "admin" ? "admin" : "user",
    note: typeof d.note === "string" ? d.note : "",
    invitedBy: d.invitedBy as Actor,
    invitedAt: toDate(d.invitedAt),
    expiresAt: toDate(d.expiresAt),
    sentAt: toDate(d.sentAt),
    sends: typeof d.sends === "number" ? d.sends : 1,
  };
}
