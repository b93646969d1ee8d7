import type { Collection } from "./collections";
import type { DocumentData, Query } from "firebase-admin/firestore";
import { FieldValue, Timestamp } from "firebase-admin/firestore";
import { isDocumentId, optionalString, stringList, toDate, type Firestore, type Transaction } from "./db";

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

/**
 * What a person proved when they first came, for the reviewer who decides on them: an address
 * (a request for access), or an account at a provider (a bridge sign-up, or a sign-in at the
 * identity provider nobody recognised). Null for a person an
 * administrator added.
 */
export type Origin =
  | { via: "email"; address: string }
  | {
      via: "account";
      /** The bridge it came through (`gaming`, `federated`); null for a sign-in at the identity provider itself. */
      bridge: string | null;
      /** The provider that holds the account (`gaming`, `google.com`, `oidc.codehost`, `phone`). */
      provider: string;
      /** The account at the provider, as the provider names it; "" when it named none. */
      account: string;
      /** The name the provider gave; "" when none. */
      displayName: string;
    };

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
  origin: Origin | null;
  /** What they wrote to the reviewer when they asked for access (plain text, core/text); "" for nothing. */
  note: string;
  /** New and pending, and not yet named in a digest to the reviewers (core/people/review-notices). */
  awaitingNotice?: boolean;
  /**
   * Sessions of this person ended early (by logout), each until it would have expired anyway.
   * Kept on the person so the read every session request already makes brings them along.
   */
  endedSessions?: Record<string, Date>;
  /**
   * The browsers this person has signed in from, each by the digest of its identifier cookie (the
   * identifier itself is never stored), with when it was learned: at most KNOWN_BROWSERS_KEPT,
   * newest kept (core/people/security-notices). Kept on the person so POST /auth/verify, which
   * reads them already, decides "a browser not seen before" without another read.
   */
  knownBrowsers?: Record<string, Date>;
  /** Present, and false, only when the person turned off the notices of sign-ins from new browsers. */
  newBrowserNotices?: false;
}

export type NewPerson = Omit<
  Person,
  "id" | "createdAt" | "updatedAt" | "endedSessions" | "origin" | "note" | "knownBrowsers" | "newBrowserNotices"
> &
  Partial<Pick<Person, "origin" | "note">>;
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
    origin: originOf(d.origin),
    note: typeof d.note === "string" ? d.note : "",
    ...(d.awaitingNotice === true ? { awaitingNotice: true } : {}),
    ...endedSessionsOf(d.endedSessions),
    ...knownBrowsersOf(d.knownBrowsers),
    ...(d.newBrowserNotices === false ? { newBrowserNotices: false as const } : {}),
  };
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
    };
  return null;
}

/**
 * The order people are listed in, and the cursor of a page: when they were created, then their
 * id, as one string (ISO 8601 sorts as text). Unique, so a page that ends between two people made
 * in the same millisecond still goes on at the right one.
 */
export function listKeyOf(person: Pick<Person, "id" | "createdAt">): string {
  return `${person.createdAt.toISOString()}~${person.id}`;
}

/** How long a search term may be: a longer one is matched by its first this many characters. */
export const TERM_MAX = 40;
/** How many search terms one person is indexed under, at most. */
const TERMS_MAX = 400;

/** The words a person is found by: their name's words, and each address whole, its local part and its domain. */
export function searchWords(person: Pick<Person, "name" | "emails">): string[] {
  const words = person.name.toLowerCase().normalize("NFKC").split(/\s+/u);
  for (const email of person.emails) words.push(email, ...email.split("@"));
  return [...new Set(words.filter((w) => w !== ""))];
}

/**
 * Every prefix of every search word (up to TERM_MAX characters): a query's first word is looked
 * up with one array-contains, so "lov" finds Ada Lovelace and "ada@" finds ada@example.org.
 */
export function searchTerms(person: Pick<Person, "name" | "emails">): string[] {
  const terms = new Set<string>();
  for (const word of searchWords(person)) {
    const chars = [...word].slice(0, TERM_MAX);
    for (let n = 1; n <= chars.length; n++) terms.add(chars.slice(0, n).join(""));
  }
  return [...terms].slice(0, TERMS_MAX);
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

/** Turns the notices of sign-ins from new browsers on or off for the person (one write, no read). */
export async function setNewBrowserNotices(db: Firestore, personId: string, on: boolean): Promise<void> {
  await db
    .collection(PEOPLE)
    .doc(personId)
    .update({ newBrowserNotices: on ? FieldValue.delete() : false });
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

export interface PeopleFilter {
  status?: PersonStatus;
  role?: Role;
  /** An address, canonical: the people holding it. */
  email?: string;
  /** A granted project. */
  project?: string;
  /** A search term (see searchTerms): lowercase, at most TERM_MAX characters. */
  term?: string;
}

export type ListOrder = "oldest" | "newest";

/**
 * People matching `filter`, in list order (listKeyOf), from just after the list key `after`.
 * One array-contains at most (Firestore's rule): an address, else a search term, else a project;
 * the caller filters by the rest. Each combination has its composite index in
 * firestore.indexes.json (test/people-queries.test.ts holds the two together).
 */
export async function listPage(
  db: Firestore,
  filter: PeopleFilter,
  order: ListOrder,
  limit: number,
  after: string | null,
): Promise<Person[]> {
  let query: Query = db.collection(PEOPLE);
  for (const clause of listClauses(filter)) query = query.where(clause.field, clause.op, clause.value);
  // An address names one person at most: no order, and no index beyond the one for `emails`.
  if (filter.email === undefined) {
    // A range on the ordering field, not a cursor: the same page wherever the query runs.
    if (after !== null) query = query.where("listKey", order === "oldest" ? ">" : "<", after);
    query = query.orderBy("listKey", order === "oldest" ? "asc" : "desc");
  }
  const snap = await query.limit(limit).get();
  return snap.docs.map((d) => fromDoc(d.id, d.data()));
}

interface Clause {
  field: string;
  op: "array-contains" | "==";
  value: string;
}

/** The filters of a list query, in the order its composite index names them. */
export function listClauses(filter: PeopleFilter): Clause[] {
  const clauses: Clause[] = [];
  if (filter.email !== undefined) clauses.push({ field: "emails", op: "array-contains", value: filter.email });
  else if (filter.term !== undefined) clauses.push({ field: "searchTerms", op: "array-contains", value: filter.term });
  else if (filter.project !== undefined)
    clauses.push({ field: "projects", op: "array-contains", value: filter.project });
  if (filter.status !== undefined) clauses.push({ field: "status", op: "==", value: filter.status });
  if (filter.role !== undefined) clauses.push({ field: "role", op: "==", value: filter.role });
  return clauses;
}

/** How many people have `status`: one aggregation read (per 1,000 counted). */
export async function countByStatus(db: Firestore, status: PersonStatus): Promise<number> {
  return (await db.collection(PEOPLE).where("status", "==", status).count().get()).data().count;
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

/**
 * Writes what lists and searches find people by (listKey, searchTerms) wherever it is missing or
 * out of date: people stored before the service kept them. Reads every person once; idempotent.
 */
export async function reindex(db: Firestore): Promise<number> {
  const snap = await db.collection(PEOPLE).get();
  const stale = snap.docs.filter((d) => {
    const person = fromDoc(d.id, d.data());
    const terms = stringList(d.get("searchTerms"));
    const wanted = searchTerms(person);
    return d.get("listKey") !== listKeyOf(person) || terms.join("\n") !== wanted.join("\n");
  });
  for (let i = 0; i < stale.length; i += 400) {
    const batch = db.batch();
    for (const d of stale.slice(i, i + 400)) {
      const person = fromDoc(d.id, d.data());
      batch.update(d.ref, { listKey: listKeyOf(person), searchTerms: searchTerms(person) });
    }
    await batch.commit();
  }
  return stale.length;
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

/** Deletes the person, in `tx`, and lets go of every uid, address and number they held. */
export function remove(db: Firestore, tx: Transaction, person: Person): void {
  tx.delete(db.collection(PEOPLE).doc(person.id));
  releaseKeys(db, tx, "uid", person.uids);
  releaseKeys(db, tx, "email", person.emails);
  releaseKeys(db, tx, "phone", person.phones);
}
