import type { Collection } from "./collections";
import type { DocumentData, Query } from "firebase-admin/firestore";
import { FieldValue, Timestamp } from "firebase-admin/firestore";
import { isDocumentId, optionalString, stringList, toDate, type Firestore, type Reading, type Transaction } from "./db";
import { claimKeys, moveKey, releaseKeys } from "./person-keys";
import {
  listKeyOf,
  searchTerms,
  type KeyKind,
  type NewPerson,
  type Origin,
  type Person,
  type Suggestion,
} from "../core/model/person";

/** `people/{personId}`: a person and the accounts, addresses and numbers that lead to them. */
const PEOPLE: Collection = "people";

export function fromDoc(id: string, d: DocumentData): Person {
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
    origin: originOf(d.origin),
    note: typeof d.note === "string" ? d.note : "",
    ...(d.awaitingNotice === true ? { awaitingNotice: true } : {}),
    ...suggestionOf(d.suggestion),
    ...endedSessionsOf(d.endedSessions),
    ...knownBrowsersOf(d.knownBrowsers),
    ...(d.newBrowserNotices === false ? { newBrowserNotices: false as const } : {}),
    ...(typeof d.eventSeq === "number" ? { eventSeq: d.eventSeq } : {}),
    ...(d.enrolmentFrom instanceof Timestamp ? { enrolmentFrom: d.enrolmentFrom.toDate() } : {}),
    ...(d.tokensValidAfter instanceof Timestamp ? { tokensValidAfter: d.tokensValidAfter.toDate() } : {}),
  };
}

function suggestionOf(value: unknown): { suggestion?: Suggestion } {
  if (typeof value !== "object" || value === null) return {};
  const o = value as Record<string, unknown>;
  return { suggestion: { rule: String(o.rule), projects: stringList(o.projects), groups: stringList(o.groups) } };
}

function originOf(value: unknown): Origin | null {
  if (typeof value !== "object" || value === null) return null;
  const o = value as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  if (o.via === "email") return { via: "email", address: text(o.address) };
  if (o.via === "account")
    return {
      via: "account",
      bridge: optionalString(o.bridge),
      provider: text(o.provider),
      account: text(o.account),
      displayName: text(o.displayName),
      ...(typeof o.claimedAddress === "string" ? { claimedAddress: o.claimedAddress } : {}),
    };
  return null;
}

/** The stored document: the person, and what lists and searches find them by. */
function toStored(person: Person): DocumentData {
  const { id: _id, awaitingNotice, ...rest } = person;
  return {
    ...rest,
    ...(awaitingNotice === true ? { awaitingNotice: true } : {}),
    listKey: listKeyOf(person),
    searchTerms: searchTerms(person),
  };
}

function endedSessionsOf(value: unknown): { endedSessions?: Record<string, Date> } {
  if (typeof value !== "object" || value === null) return {};
  const entries = Object.entries(value as Record<string, unknown>).filter(
    (entry): entry is [string, Timestamp] => entry[1] instanceof Timestamp,
  );
  return entries.length === 0 ? {} : { endedSessions: Object.fromEntries(entries.map(([k, t]) => [k, t.toDate()])) };
}

function knownBrowsersOf(value: unknown): { knownBrowsers?: Record<string, Date> } {
  if (typeof value !== "object" || value === null) return {};
  const entries = Object.entries(value as Record<string, unknown>).filter(
    (entry): entry is [string, Timestamp] => entry[1] instanceof Timestamp,
  );
  return entries.length === 0 ? {} : { knownBrowsers: Object.fromEntries(entries.map(([k, t]) => [k, t.toDate()])) };
}

/** Writes the browsers the person is known to sign in from (the whole set: the caller read it in `tx` and bounded it). */
export function setKnownBrowsers(db: Firestore, tx: Transaction, personId: string, known: Record<string, Date>): void {
  tx.update(db.collection(PEOPLE).doc(personId), { knownBrowsers: known });
}

/** Begins the person's enrolment (the passkey rule's grace for a first passkey) at `at`, in `tx`. */
export function setEnrolmentFrom(db: Firestore, tx: Transaction, personId: string, at: Date): void {
  tx.update(db.collection(PEOPLE).doc(personId), { enrolmentFrom: at });
}

/** Turns the notices of sign-ins from new browsers on or off for the person (one write, no read). */
export function setNewBrowserNotices(db: Firestore, tx: Transaction, personId: string, on: boolean): void {
  tx.update(db.collection(PEOPLE).doc(personId), { newBrowserNotices: on ? FieldValue.delete() : false });
}

/**
 * Writes the person's ended sessions (the whole set: the caller read it in `tx` and pruned it),
 * and with `tokensValidAfter`, the time before which their ID tokens' sign-ins are refused.
 */
export function setEndedSessions(
  db: Firestore,
  tx: Transaction,
  personId: string,
  ended: Record<string, Date>,
  eventSeq?: number,
  tokensValidAfter?: Date,
): void {
  tx.update(db.collection(PEOPLE).doc(personId), {
    endedSessions: ended,
    ...(eventSeq === undefined ? {} : { eventSeq }),
    ...(tokensValidAfter === undefined ? {} : { tokensValidAfter }),
  });
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

/** The person `personId`, null where there is none: to read with other documents in one call (readTogether). */
export function byId(db: Firestore, personId: string): Reading<Person | null> {
  const refs = isDocumentId(personId) ? [db.collection(PEOPLE).doc(personId)] : [];
  return {
    refs,
    from: ([snap]) => (snap?.exists ? fromDoc(snap.id, snap.data() ?? {}) : null),
  };
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

/** People not yet named in a digest to the reviewers, at most `limit`, read in `tx` when given. */
export async function awaitingNotice(db: Firestore, limit: number, tx?: Transaction): Promise<Person[]> {
  const query = db.collection(PEOPLE).where("awaitingNotice", "==", true).limit(limit);
  const snap = tx ? await tx.get(query) : await query.get();
  return snap.docs.map((d) => fromDoc(d.id, d.data()));
}

/** Marks people as named in a digest, in `tx`. */
export function markNoticed(db: Firestore, tx: Transaction, personIds: string[]): void {
  for (const id of personIds) tx.update(db.collection(PEOPLE).doc(id), { awaitingNotice: false });
}

/** Whether any person is an administrator, read in `tx`. */
export async function anyAdmin(db: Firestore, tx: Transaction): Promise<boolean> {
  const snap = await tx.get(db.collection(PEOPLE).where("role", "==", "admin").limit(1));
  return !snap.empty;
}

/** The approved administrators, at most `atMost`, read in `tx`. */
export async function approvedAdminList(db: Firestore, tx: Transaction, atMost: number): Promise<Person[]> {
  const query = db.collection(PEOPLE).where("role", "==", "admin").where("status", "==", "approved");
  return (await tx.get(query.limit(atMost))).docs.map((d) => fromDoc(d.id, d.data()));
}

/** Creates the person and claims every uid, address and number on it, all in `tx`. */
export function create(db: Firestore, tx: Transaction, input: NewPerson, personId: string, at: Date): Person {
  const person: Person = { origin: null, note: "", ...input, id: personId, createdAt: at, updatedAt: at };
  tx.create(db.collection(PEOPLE).doc(personId), toStored(person));
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
  const { id } = next;
  tx.set(db.collection(PEOPLE).doc(id), toStored(next));
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
 * Moves account `uid` to `to` in `tx`, both people written as given (`to` holding `uid` now): the
 * account's key claim is rewritten in place, and `from`, who held it, is written as given or, with
 * no `next`, deleted.
 */
export function moveAccount(
  db: Firestore,
  tx: Transaction,
  uid: string,
  from: { id: string; next: Person | null } | null,
  to: Person,
): void {
  if (from !== null) {
    const fromRef = db.collection(PEOPLE).doc(from.id);
    if (from.next === null) tx.delete(fromRef);
    else tx.set(fromRef, toStored(from.next));
  }
  tx.set(db.collection(PEOPLE).doc(to.id), toStored(to));
  moveKey(db, tx, "uid", uid, to.id);
}

/** Deletes the person, in `tx`, and lets go of every uid, address and number they held. */
export function remove(db: Firestore, tx: Transaction, person: Person): void {
  tx.delete(db.collection(PEOPLE).doc(person.id));
  releaseKeys(db, tx, "uid", person.uids);
  releaseKeys(db, tx, "email", person.emails);
  releaseKeys(db, tx, "phone", person.phones);
}
