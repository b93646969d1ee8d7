import type { Collection } from "./collections";
import { FieldValue, type DocumentData, type Timestamp } from "firebase-admin/firestore";
import { optionalDate, optionalString, stringList, toDate, type Firestore, type Transaction } from "./db";
import { isTraceId } from "../trace";
import type { ServiceEvent } from "../core/model/event";
import type { Sealed } from "../core/model/sealed";
import type {
  OutboxEntry,
  OutboxEntryOf,
  OutboxKind,
  OutboxKinds,
  OutboxLane,
  OutboxNotice,
  OutboxState,
  PersonNotice,
  Queued,
  SealedMail,
} from "../core/model/outbox";

/**
 * `outbox/{id}`: what the service has decided to send or do after a commit (core/model/outbox),
 * written in the same transaction as the decision, and sent or run by the drain
 * (core/outbox/drain). A mail is stored sealed (encrypted under a key derived from CODE_PEPPER): a
 * code mail carries the code, and no stored record may. A notice (an approval) stores no message
 * at all, only whom it is about: the drain writes it when it sends it, so the function that
 * decides it needs no key.
 */
const OUTBOX: Collection = "outbox";

/**
 * A document this code cannot read as any kind it knows (written by another version of it, or
 * damaged): kept as it is, for the drain to give up on and log, rather than left due for ever.
 */
export type Unreadable = Queued & { kind: null; storedKind: string };

/** An entry as read: one of the kinds, or one that is not. */
export type StoredEntry = OutboxEntry | Unreadable;

function ref(db: Firestore, id: string) {
  return db.collection(OUTBOX).doc(id);
}

/** What an entry of each kind carries, read from its document; null when it is not there. */
const PAYLOADS: { [K in OutboxKind]: (d: DocumentData) => OutboxKinds[K] | null } = {
  code: sealedMail,
  "lock-notice": sealedMail,
  digest: sealedMail,
  approval: personNotice,
  rejection: personNotice,
  "client-review": (d) => {
    const to = personNotice(d);
    const decision = d.decision === "approved" || d.decision === "blocked" ? d.decision : null;
    return to === null || typeof d.client !== "string" || decision === null
      ? null
      : { ...to, client: d.client, decision };
  },
  "security-notice": (d) => {
    const [to, notice] = [personNotice(d), noticeOf(d.notice)];
    return to === null || notice === null ? null : { ...to, notice };
  },
  invitation: about,
  "account-deletion": about,
  erasure: about,
  event: withEvent,
  delivery: withEvent,
  "backchannel-logout": (d) => {
    const [on, logout] = [about(d), d.logout as Record<string, unknown> | null | undefined];
    if (on === null || typeof logout !== "object" || logout === null) return null;
    return { ...on, logout: { sid: String(logout.sid), sub: optionalString(logout.sub) } };
  },
};

function sealedMail(d: DocumentData): SealedMail | null {
  return typeof d.sealed === "object" && d.sealed !== null ? { sealed: d.sealed as Sealed } : null;
}

function about(d: DocumentData): { about: string } | null {
  return typeof d.about === "string" ? { about: d.about } : null;
}

function personNotice(d: DocumentData): PersonNotice | null {
  const on = about(d);
  return on === null ? null : { ...on, to: optionalString(d.to) ?? legacyRecipient(d.notice) };
}

function withEvent(d: DocumentData): { about: string; event: ServiceEvent } | null {
  const on = about(d);
  return on === null || typeof d.event !== "object" || d.event === null
    ? null
    : { ...on, event: d.event as ServiceEvent };
}

const isKind = (kind: unknown): kind is OutboxKind => typeof kind === "string" && Object.hasOwn(PAYLOADS, kind);

function fromData(id: string, d: DocumentData): StoredEntry {
  const queued: Queued = {
    id,
    state: d.state as OutboxState,
    lane: d.lane === "apps" || d.lane === "bulk" ? d.lane : "mail",
    attempts: typeof d.attempts === "number" ? d.attempts : 0,
    nextAttemptAt: toDate(d.nextAttemptAt),
    claim: optionalString(d.claim),
    deliverBy: toDate(d.deliverBy),
    createdAt: toDate(d.createdAt),
    sentAt: optionalDate(d.sentAt),
    lastError: optionalString(d.lastError),
    retryUntilDone: d.retryUntilDone === true,
    forgetAfter: optionalDate(d.forgetAfter),
    trace: isTraceId(d.trace) ? d.trace : null,
  };
  const kind: unknown = d.kind;
  const payload = isKind(kind) ? PAYLOADS[kind](d) : null;
  if (!isKind(kind) || payload === null) return { ...queued, kind: null, storedKind: String(kind) };
  return { ...queued, kind, ...payload } as OutboxEntry;
}

function noticeOf(value: unknown): OutboxNotice | null {
  if (typeof value !== "object" || value === null) return null;
  const n = value as Record<string, unknown>;
  const counts = typeof n.folded === "object" && n.folded !== null ? (n.folded as Record<string, unknown>) : {};
  return {
    kind: String(n.kind),
    lines: stringList(n.lines),
    at: toDate(n.at),
    from: typeof n.from === "string" ? n.from : "",
    learn: optionalString(n.learn),
    quiet: n.quiet === true,
    ...(n.urgent === true ? { urgent: true } : {}),
    folded: Object.fromEntries(Object.entries(counts).filter((e): e is [string, number] => typeof e[1] === "number")),
  };
}

/** Entries queued before recipients were fixed: the removed address a notice named, if any. */
function legacyRecipient(notice: unknown): string | null {
  if (typeof notice !== "object" || notice === null) return null;
  return stringList((notice as Record<string, unknown>).alsoTo)[0] ?? null;
}

/** The document of `entry`: what it carries, with `sealed`, `about` and `to` null where its kind has none. */
function toData(entry: OutboxEntry): DocumentData {
  const { id: _, ...stored } = entry;
  return { sealed: null, about: null, to: null, ...stored };
}

export function add(db: Firestore, tx: Transaction, entry: OutboxEntry): void {
  tx.create(ref(db, entry.id), toData(entry));
}

/** Adds the entry outside any transaction. */
export async function addAlone(db: Firestore, entry: OutboxEntry): Promise<void> {
  await ref(db, entry.id).create(toData(entry));
}

/** Counts one more notice of `kind` into the summary `id` (which exists). */
export function fold(db: Firestore, tx: Transaction, id: string, kind: string): void {
  tx.update(ref(db, id), { [`notice.folded.${kind}`]: FieldValue.increment(1) });
}

export async function findById(db: Firestore, id: string, tx?: Transaction): Promise<StoredEntry | null> {
  const snap = tx ? await tx.get(ref(db, id)) : await ref(db, id).get();
  return snap.exists ? fromData(snap.id, snap.data() ?? {}) : null;
}

/** The entry `id` if it is one of `kind`; null when there is none, or it is of another. */
export async function findOf<K extends OutboxKind>(
  db: Firestore,
  kind: K,
  id: string,
  tx?: Transaction,
): Promise<OutboxEntryOf<K> | null> {
  const entry = await findById(db, id, tx);
  return entry?.kind === kind ? (entry as OutboxEntryOf<K>) : null;
}

/** An entry as it was read, with its version (its update time): a write can be made on that version alone. */
export interface Read {
  entry: StoredEntry;
  version: Timestamp;
}

/** The entry, read outside any transaction, with its version; null when there is none. */
export async function read(db: Firestore, id: string): Promise<Read | null> {
  const snap = await ref(db, id).get();
  return snap.exists ? { entry: fromData(snap.id, snap.data() ?? {}), version: snap.updateTime as Timestamp } : null;
}

/**
 * Pending entries of `lane` whose time has come, earliest first, each with its version; of any
 * lane (`null`), entries stored before there were lanes among them.
 */
export async function due(db: Firestore, now: Date, limit: number, lane: OutboxLane | null = null): Promise<Read[]> {
  const pending = db.collection(OUTBOX).where("state", "==", "pending");
  const snaps = await (lane === null ? pending : pending.where("lane", "==", lane))
    .where("nextAttemptAt", "<=", now)
    .orderBy("nextAttemptAt")
    .limit(limit)
    .get();
  return snaps.docs.map((s) => ({ entry: fromData(s.id, s.data()), version: s.updateTime }));
}

/**
 * Writes `change` if the entry is still at `version`, outside any transaction: one write, no lock
 * held across a read. Its new version; null when another write came first (or it is gone).
 */
export async function updateAt(
  db: Firestore,
  id: string,
  version: Timestamp,
  change: Change,
): Promise<Timestamp | null> {
  try {
    return (await ref(db, id).update(change, { lastUpdateTime: version })).writeTime;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    // FAILED_PRECONDITION: written since; NOT_FOUND: forgotten since.
    if (code === 9 || code === 5) return null;
    throw err;
  }
}

/** When the earliest pending mail falls due (it may be now), or null when nothing is pending. */
export async function nextDue(db: Firestore): Promise<Date | null> {
  const snaps = await db.collection(OUTBOX).where("state", "==", "pending").orderBy("nextAttemptAt").limit(1).get();
  const first = snaps.docs[0];
  return first ? toDate(first.get("nextAttemptAt")) : null;
}

/** How many pending entries are sealed under the CODE_PEPPER key `kid`: a key about to be retired. */
export async function pendingSealedUnder(db: Firestore, kid: string): Promise<number> {
  const count = await db
    .collection(OUTBOX)
    .where("state", "==", "pending")
    .where("sealed.kid", "==", kid)
    .count()
    .get();
  return count.data().count;
}

/** The newest entries of `kind` about `about` (an app's deliveries), newest first. */
export async function ofKindAbout<K extends OutboxKind>(
  db: Firestore,
  kind: K,
  about: string,
  limit: number,
): Promise<OutboxEntryOf<K>[]> {
  const snaps = await db
    .collection(OUTBOX)
    .where("kind", "==", kind)
    .where("about", "==", about)
    .orderBy("createdAt", "desc")
    .limit(limit)
    .get();
  return snaps.docs.map((s) => fromData(s.id, s.data())).filter((e): e is OutboxEntryOf<K> => e.kind === kind);
}

/**
 * How much is waiting, and since when: for GET /status. Entries of the kinds `except` (the apps'
 * deliveries, whose own endpoints may be down for a while; an erasure's job, which waits hours
 * between tries while the identity provider refuses) are left out: the oldest is looked for among
 * the 100 oldest pending entries.
 */
export async function backlog(
  db: Firestore,
  except: readonly string[],
): Promise<{ pending: number; oldest: Date | null }> {
  const pending = db.collection(OUTBOX).where("state", "==", "pending");
  const [count, left, oldest] = await Promise.all([
    pending.count().get(),
    pending.where("kind", "in", except).count().get(),
    pending.orderBy("createdAt").limit(100).get(),
  ]);
  const first = oldest.docs.find((d) => !except.includes(d.get("kind") as string));
  return { pending: count.data().count - left.data().count, oldest: first ? toDate(first.get("createdAt")) : null };
}

type Change = Partial<Pick<Queued, "state" | "attempts" | "nextAttemptAt" | "claim" | "sentAt" | "lastError">>;

export function update(db: Firestore, tx: Transaction, id: string, change: Change): void {
  tx.update(ref(db, id), change);
}

/**
 * Entries of `kind` queued since `since`, newest first, at most `cap` (past it, what is left out
 * is the oldest part of the window): their state, when they were queued, and whom they are about
 * (for the health report; only these fields are read).
 */
export async function queuedSince(
  db: Firestore,
  kind: OutboxKind,
  since: Date,
  cap: number,
): Promise<Array<{ state: OutboxState; createdAt: Date; about: string | null }>> {
  const snap = await db
    .collection(OUTBOX)
    .where("kind", "==", kind)
    .where("createdAt", ">=", since)
    .orderBy("createdAt", "desc")
    .limit(cap)
    .select("state", "createdAt", "about")
    .get();
  return snap.docs.map((d) => ({
    state: d.get("state") as OutboxState,
    createdAt: toDate(d.get("createdAt")),
    about: optionalString(d.get("about")),
  }));
}

/** One lane's pending entries: how many, and when the oldest was queued. */
export async function laneBacklog(db: Firestore, lane: OutboxLane): Promise<{ pending: number; oldest: Date | null }> {
  const pending = db.collection(OUTBOX).where("state", "==", "pending").where("lane", "==", lane);
  const [count, first] = await Promise.all([
    pending.count().get(),
    pending.orderBy("createdAt").limit(1).select("createdAt").get(),
  ]);
  const oldest = first.docs[0];
  return { pending: count.data().count, oldest: oldest === undefined ? null : toDate(oldest.get("createdAt")) };
}
