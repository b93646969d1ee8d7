import type { Collection } from "./collections";
import { FieldValue, type DocumentData, type Timestamp } from "firebase-admin/firestore";
import { optionalDate, optionalString, stringList, toDate, type Firestore, type Transaction } from "./db";
import type { ServiceEvent } from "../core/model/event";
import type { Sealed } from "../core/model/sealed";

/**
 * `outbox/{id}`: mail the service has decided to send, written in the same transaction as the
 * decision, and sent by the drainer (core/outbox/drain). The message itself is sealed (encrypted
 * under a key derived from CODE_PEPPER): a code mail carries the code, and no stored record may.
 * A notice (an approval) stores no message at all, only whom it is about: the drainer writes it
 * when it sends it, so the function that decides it needs no key.
 *
 * - `pending`: to be sent once `nextAttemptAt` has come; a drainer that claims it pushes that
 *   time forward by its lease, so a claim that died with its drainer is taken up again.
 * - `sent`, `failed`: done; kept until `forgetAfter` for the log's sake.
 * - `none`: recorded where nothing is to be sent, so a send to an address on no account writes
 *   what a send to a person's address writes; never drained.
 * - `folded`: a security notice past a person's limit, told in a summary (another entry) instead.
 */
const OUTBOX: Collection = "outbox";

export type OutboxState = "pending" | "sent" | "failed" | "none" | "folded";

/**
 * Which of the drain's queues an entry waits in: `mail`, for people (codes, notices, the digest,
 * the erasure's job), taken first; `apps`, for the family's apps (events, their deliveries, logout
 * tokens); `bulk`, mail an administrator sends many of at once (invitations). The last two may come
 * by the thousand and must not hold up a code.
 */
export type OutboxLane = "mail" | "apps" | "bulk";

/**
 * What a security notice tells (core/people/security-notices), kept beside whom it is about so the
 * drainer can write it when it sends it. Nothing in it opens anything: lines of plain text, a
 * browser's name, and the digest (never the identifier) of the browser to remember.
 */
export interface OutboxNotice {
  /**
   * `newBrowser`, `waysIn`, `access`; `summary` for the one that tells of those past the limit;
   * `addressRemoved` for the one to an address taken off the person.
   */
  kind: string;
  /** What happened, a line each. */
  lines: string[];
  at: Date;
  /** The browser and system that did it ("Firefox on Windows"), or who did it where there was none. */
  from: string;
  /** The digest of a browser to remember as the person's once this notice is written; null for none. */
  learn: string | null;
  /** Nothing to tell, only a browser to remember: the first one a person signs in from. */
  quiet: boolean;
  /** A summary's count of the notices folded into it, by kind. */
  folded: Record<string, number>;
}

/** A sign-in whose end a client is told of (core/oidc/backchannel): its `sid`, and its `sub` unless the person was erased. */
export interface OutboxLogout {
  sid: string;
  sub: string | null;
}

export interface OutboxEntry {
  id: string;
  /** What kind of mail, for the log (`code`, `lock-notice`, `digest`), and for a notice how to write it (`approval`). */
  kind: string;
  /** The message, sealed; null for a notice, which is written when it is sent, from what it is `about`. */
  sealed: Sealed | null;
  /** What a notice is about (a person's id); null for a sealed message. */
  about: string | null;
  /**
   * The one address a notice to a person goes to, fixed when it was queued, in the transaction of
   * what it tells: their first address before the change (or the address a change took off them).
   * A change made since (a new first address, an address removed) cannot send it elsewhere. Null:
   * written to their first address when it is sent (a person who had none when it was queued).
   */
  to: string | null;
  /** What a security notice tells; null for every other kind. */
  notice?: OutboxNotice | null;
  /**
   * An event for the apps (core/events): on an `event` entry, to be fanned out to each
   * subscription; on a `delivery` entry (`about`: the subscription's app), to be posted to it.
   */
  event?: ServiceEvent | null;
  /** On a `backchannel-logout` entry (`about`: the client): the sign-in to tell it has ended. */
  logout?: OutboxLogout | null;
  state: OutboxState;
  lane: OutboxLane;
  attempts: number;
  nextAttemptAt: Date;
  /** The claim of the drainer sending it now; null when nobody is. */
  claim: string | null;
  /** Not sent by then, not sent at all (a code mail is worthless once its code has expired). */
  deliverBy: Date;
  createdAt: Date;
  sentAt: Date | null;
  /** The kind of the last failure only (`timeout`, `refused`, `rejected`...), never a server's text. */
  lastError: string | null;
  /**
   * Tried until it is done, past `deliverBy` and any number of attempts (an erasure's finishing
   * job): never given up. Such an entry is deleted by whoever finishes its work.
   */
  retryUntilDone?: boolean;
  /** When TTL deletes it; null for an entry retried until done, which no TTL may take while it waits. */
  forgetAfter: Date | null;
}

function ref(db: Firestore, id: string) {
  return db.collection(OUTBOX).doc(id);
}

function fromData(id: string, d: DocumentData): OutboxEntry {
  return {
    id,
    kind: String(d.kind),
    sealed: typeof d.sealed === "object" && d.sealed !== null ? (d.sealed as Sealed) : null,
    about: optionalString(d.about),
    to: optionalString(d.to) ?? legacyRecipient(d.notice),
    notice: noticeOf(d.notice),
    event: typeof d.event === "object" && d.event !== null ? (d.event as ServiceEvent) : null,
    logout:
      typeof d.logout === "object" && d.logout !== null
        ? { sid: String(d.logout.sid), sub: optionalString(d.logout.sub) }
        : null,
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
  };
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
    folded: Object.fromEntries(Object.entries(counts).filter((e): e is [string, number] => typeof e[1] === "number")),
  };
}

/** Entries queued before recipients were fixed: the removed address a notice named, if any. */
function legacyRecipient(notice: unknown): string | null {
  if (typeof notice !== "object" || notice === null) return null;
  return stringList((notice as Record<string, unknown>).alsoTo)[0] ?? null;
}

export function add(db: Firestore, tx: Transaction, entry: OutboxEntry): void {
  const { id, ...stored } = entry;
  tx.create(ref(db, id), stored);
}

/** Adds the entry outside any transaction. */
export async function addAlone(db: Firestore, entry: OutboxEntry): Promise<void> {
  const { id, ...stored } = entry;
  await ref(db, id).create(stored);
}

/** Counts one more notice of `kind` into the summary `id` (which exists). */
export function fold(db: Firestore, tx: Transaction, id: string, kind: string): void {
  tx.update(ref(db, id), { [`notice.folded.${kind}`]: FieldValue.increment(1) });
}

export async function findById(db: Firestore, id: string, tx?: Transaction): Promise<OutboxEntry | null> {
  const snap = tx ? await tx.get(ref(db, id)) : await ref(db, id).get();
  return snap.exists ? fromData(snap.id, snap.data() ?? {}) : null;
}

/** An entry as it was read, with its version (its update time): a write can be made on that version alone. */
export interface Read {
  entry: OutboxEntry;
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
export async function ofKindAbout(db: Firestore, kind: string, about: string, limit: number): Promise<OutboxEntry[]> {
  const snaps = await db
    .collection(OUTBOX)
    .where("kind", "==", kind)
    .where("about", "==", about)
    .orderBy("createdAt", "desc")
    .limit(limit)
    .get();
  return snaps.docs.map((s) => fromData(s.id, s.data()));
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

type Change = Partial<Pick<OutboxEntry, "state" | "attempts" | "nextAttemptAt" | "claim" | "sentAt" | "lastError">>;

export function update(db: Firestore, tx: Transaction, id: string, change: Change): void {
  tx.update(ref(db, id), change);
}
