import type { Collection } from "./collections";
import type { DocumentData, Query } from "firebase-admin/firestore";
import { Timestamp } from "firebase-admin/firestore";
import { isDocumentId, toDate, stringList, type Firestore, type Transaction } from "./db";

export type { Transaction };

/** `people/{personId}`: a person and the accounts, addresses and numbers that lead to them. */
const PEOPLE: Collection = "people";
/**
 * `personKeys/{kind}:{value}` → { personId }: one document per uid, address and number, created
 * in the same transaction as the change that claims it, so two people can never share one.
 */
const KEYS: Collection = "personKeys";

export type PersonStatus = "pending" | "approved" | "rejected";
export type Role = "user" | "admin";

export interface Person {
  id: string;
  uids: string[];
  emails: string[];
  phones: string[];
  name: string;
  role: Role;
  projects: string[];
  groups: string[];
  status: PersonStatus;
  createdAt: Date;
  updatedAt: Date;
  /**
   * Sessions of this person ended early (by logout), each until it would have expired anyway.
   * Kept on the person so the read every session request already makes brings them along.
   */
  endedSessions?: Record<string, Date>;
}

export type NewPerson = Omit<Person, "id" | "createdAt" | "updatedAt" | "endedSessions">;
export type KeyKind = "uid" | "email" | "phone";

function fromDoc(id: string, d: DocumentData): Person {
  return {
    id,
    uids: stringList(d.uids),
    emails: stringList(d.emails),
    phones: stringList(d.phones),
    name: typeof d.name === "string" ? d.name : "",
    role: d.role === "admin" ? "admin" : "user",
    projects: stringList(d.projects),
    groups: stringList(d.groups),
    status: d.status === "approved" || d.status === "rejected" ? d.status : "pending",
    createdAt: toDate(d.createdAt),
    updatedAt: toDate(d.updatedAt),
    ...endedSessionsOf(d.endedSessions),
  };
}

function endedSessionsOf(value: unknown): { endedSessions?: Record<string, Date> } {
  if (typeof value !== "object" || value === null) return {};
  const entries = Object.entries(value as Record<string, unknown>).filter(
    (entry): entry is [string, Timestamp] => entry[1] instanceof Timestamp,
  );
  return entries.length === 0 ? {} : { endedSessions: Object.fromEntries(entries.map(([k, t]) => [k, t.toDate()])) };
}

/** Writes the person's ended sessions (the whole set: the caller read it in `tx` and pruned it). */
export function setEndedSessions(db: Firestore, tx: Transaction, personId: string, ended: Record<string, Date>): void {
  tx.update(db.collection(PEOPLE).doc(personId), { endedSessions: ended });
}

function keyId(kind: KeyKind, value: string): string {
  // Document ids cannot hold "/", and addresses may.
  return `${kind}:${encodeURIComponent(value)}`;
}

async function first(query: Query, tx?: Transaction): Promise<Person | null> {
  const snap = tx ? await tx.get(query.limit(1)) : await query.limit(1).get();
  const doc = snap.docs[0];
  return doc ? fromDoc(doc.id, doc.data()) : null;
}

export async function findById(db: Firestore, personId: string, tx?: Transaction): Promise<Person | null> {
  if (!isDocumentId(personId)) return null;
  const ref = db.collection(PEOPLE).doc(personId);
  const snap = tx ? await tx.get(ref) : await ref.get();
  return snap.exists ? fromDoc(snap.id, snap.data() ?? {}) : null;
}

export function findByUid(db: Firestore, uid: string, tx?: Transaction): Promise<Person | null> {
  return first(db.collection(PEOPLE).where("uids", "array-contains", uid), tx);
}

/** `email` must already be canonical (see core/email-address). */
export function findByEmail(db: Firestore, email: string, tx?: Transaction): Promise<Person | null> {
  return first(db.collection(PEOPLE).where("emails", "array-contains", email), tx);
}

/** `phone` must be E.164. */
export function findByPhone(db: Firestore, phone: string, tx?: Transaction): Promise<Person | null> {
  return first(db.collection(PEOPLE).where("phones", "array-contains", phone), tx);
}

export async function list(
  db: Firestore,
  filter: { email?: string; status?: PersonStatus; role?: Role; project?: string },
  limit: number,
): Promise<Person[]> {
  let query: Query = db.collection(PEOPLE);
  // Equality and one array-contains: answered by merging single-field indexes, no composite index.
  if (filter.email) query = query.where("emails", "array-contains", filter.email);
  else if (filter.project) query = query.where("projects", "array-contains", filter.project);
  if (filter.status) query = query.where("status", "==", filter.status);
  if (filter.role) query = query.where("role", "==", filter.role);
  const snap = await query.limit(limit).get();
  return snap.docs.map((d) => fromDoc(d.id, d.data()));
}

/** Whether any person is an administrator, read in `tx`. */
export async function anyAdmin(db: Firestore, tx: Transaction): Promise<boolean> {
  const snap = await tx.get(db.collection(PEOPLE).where("role", "==", "admin").limit(1));
  return !snap.empty;
}

/** How many approved administrators there are, counting at most `atMost`, read in `tx`. */
export async function approvedAdmins(db: Firestore, tx: Transaction, atMost: number): Promise<number> {
  const query = db.collection(PEOPLE).where("role", "==", "admin").where("status", "==", "approved");
  return (await tx.get(query.limit(atMost))).size;
}

/**
 * Read and written by every first-admin bootstrap (`personKeys/bootstrap:first-admin`): two at
 * once contend on this one document, so the second runs again and sees the first's admin. Read
 * first (a transaction reads before it writes); the returned function writes it.
 */
export async function readBootstrapLock(db: Firestore, tx: Transaction): Promise<(at: Date) => void> {
  const lock = db.collection(KEYS).doc("bootstrap:first-admin");
  await tx.get(lock);
  return (at) => tx.set(lock, { at });
}

/** Who holds a key, read inside the transaction that is about to claim it. */
export async function keyHolder(db: Firestore, tx: Transaction, kind: KeyKind, value: string): Promise<string | null> {
  const snap = await tx.get(db.collection(KEYS).doc(keyId(kind, value)));
  const personId = snap.exists ? snap.get("personId") : null;
  return typeof personId === "string" ? personId : null;
}

function claimKeys(db: Firestore, tx: Transaction, personId: string, kind: KeyKind, values: string[]): void {
  // create() fails the whole commit if another person already holds the key.
  for (const value of values) tx.create(db.collection(KEYS).doc(keyId(kind, value)), { personId });
}

function releaseKeys(db: Firestore, tx: Transaction, kind: KeyKind, values: string[]): void {
  for (const value of values) tx.delete(db.collection(KEYS).doc(keyId(kind, value)));
}

/** Creates the person and claims every uid, address and number on it, all in `tx`. */
export function create(db: Firestore, tx: Transaction, input: NewPerson, personId: string, at: Date): Person {
  const person: Person = { ...input, id: personId, createdAt: at, updatedAt: at };
  const { id: _id, ...stored } = person;
  tx.create(db.collection(PEOPLE).doc(personId), stored);
  claimKeys(db, tx, personId, "uid", input.uids);
  claimKeys(db, tx, personId, "email", input.emails);
  claimKeys(db, tx, personId, "phone", input.phones);
  return person;
}

/**
 * Replaces the person with `next`, moving key claims for added and removed uids, addresses and
 * numbers. The caller has checked (with keyHolder, in the same tx) that added keys are free.
 */
export function replace(db: Firestore, tx: Transaction, before: Person, next: Person): void {
  const { id, ...stored } = next;
  tx.set(db.collection(PEOPLE).doc(id), stored);
  const kinds: Array<[KeyKind, "uids" | "emails" | "phones"]> = [
    ["uid", "uids"],
    ["email", "emails"],
    ["phone", "phones"],
  ];
  for (const [kind, field] of kinds) {
    const added = next[field].filter((v) => !before[field].includes(v));
    const removed = before[field].filter((v) => !next[field].includes(v));
    releaseKeys(db, tx, kind, removed);
    claimKeys(db, tx, id, kind, added);
  }
}

/**
 * Moves account `uid` from `from` to `to` in `tx`: its key claim is rewritten in place, and a
 * `from` left with no account, address or number (nothing anyone could sign in as) is deleted.
 */
export function moveAccount(
  db: Firestore,
  tx: Transaction,
  uid: string,
  from: Person | null,
  to: Person,
  at: Date,
): void {
  if (from !== null) {
    const rest = from.uids.filter((u) => u !== uid);
    const fromRef = db.collection(PEOPLE).doc(from.id);
    if (rest.length === 0 && from.emails.length === 0 && from.phones.length === 0) tx.delete(fromRef);
    else tx.update(fromRef, { uids: rest, updatedAt: at });
  }
  tx.update(db.collection(PEOPLE).doc(to.id), { uids: [...to.uids, uid], updatedAt: at });
  tx.set(db.collection(KEYS).doc(keyId("uid", uid)), { personId: to.id });
}
