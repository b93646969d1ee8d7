import type { Collection } from "./collections";
import type { DocumentData, Query } from "firebase-admin/firestore";
import { optionalDate, optionalString, read, stringList, toDate, type Firestore, type Transaction } from "./db";

/** `notifications/{id}`: a start-page notice, for everyone (`audience: ["*"]`) or named people. */
const NOTIFICATIONS: Collection = "notifications";
/** `startpageReads/{personId}`: which notices a person has read. */
const READS: Collection = "startpageReads";

export const EVERYONE = "*";
export type Level = "info" | "warning" | "critical";

export interface Notification {
  /** Sorts by creation time and is unique (time, then randomness): the page cursor. */
  id: string;
  title: string;
  body: string;
  link: string | null;
  level: Level;
  audience: string[];
  createdAt: Date;
}

export interface ReadState {
  readIds: string[];
  allReadAt: Date | null;
}

export async function create(db: Firestore, n: Notification): Promise<void> {
  const { id, ...stored } = n;
  await db
    .collection(NOTIFICATIONS)
    .doc(id)
    .create({ ...stored, sortKey: id });
}

/** Newest first, for one person, strictly before the cursor `before` (an id) when given. */
export async function listFor(
  db: Firestore,
  personId: string,
  limit: number,
  before: string | null,
): Promise<Notification[]> {
  let query: Query = db.collection(NOTIFICATIONS).where("audience", "array-contains-any", [EVERYONE, personId]);
  if (before !== null) query = query.where("sortKey", "<", before);
  const snap = await query.orderBy("sortKey", "desc").limit(limit).get();
  return snap.docs.map((doc) => fromData(doc.id, doc.data()));
}

/** The notice with this id, whoever it is for; null when there is none. */
export async function find(db: Firestore, id: string): Promise<Notification | null> {
  const d = await read(db, `${NOTIFICATIONS}/${id}`);
  return d ? fromData(id, d) : null;
}

function fromData(id: string, d: DocumentData): Notification {
  return {
    id,
    title: String(d.title),
    body: String(d.body),
    link: optionalString(d.link),
    level: d.level === "warning" || d.level === "critical" ? d.level : "info",
    audience: stringList(d.audience),
    createdAt: toDate(d.createdAt),
  };
}

/** The notices addressed to the person by name (not those for everyone). */
export async function addressedTo(db: Firestore, personId: string): Promise<Notification[]> {
  const snap = await db.collection(NOTIFICATIONS).where("audience", "array-contains", personId).get();
  return snap.docs.map((doc) => fromData(doc.id, doc.data()));
}

export async function readState(db: Firestore, personId: string, tx?: Transaction): Promise<ReadState> {
  const d = await read(db, `${READS}/${personId}`, tx);
  return { readIds: stringList(d?.readIds), allReadAt: optionalDate(d?.allReadAt) };
}

export function saveReadState(db: Firestore, tx: Transaction, personId: string, state: ReadState): void {
  tx.set(db.collection(READS).doc(personId), state);
}
