import type { DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { isDocumentId, optionalDate, stringList, toDate, type Firestore, type Transaction } from "./db";

/**
 * `sessions/{sessionId}`: the sessions a person has opened, for them to see and end (the account
 * page) and for administrators. The session token stays the credential: this record is what the
 * service remembers of it (how and when it began, the browser that asked, roughly when it was
 * last seen), never a way in. `expiresAt` is the token's own expiry, and a TTL field.
 */
const SESSIONS: Collection = "sessions";

export interface SessionRecord {
  sessionId: string;
  personId: string;
  uid: string;
  openedAt: Date;
  /** When the person authenticated (the ID token's auth_time). */
  authTime: Date;
  /** How (RFC 8176). */
  amr: string[];
  /** The address whose code opened it; null for any other way in. Removing the address ends it. */
  address: string | null;
  /** The passkey that opened it (its id); null for any other way in. Removing the passkey ends it. */
  passkeyId: string | null;
  /**
   * For a session a recovery code opened, when its set was made (what names the set); null for
   * any other way in. A new set, or the set's removal, ends it.
   */
  codesMadeAt: Date | null;
  /** The browser's User-Agent when the session was opened, cut to a length. */
  userAgent: string;
  lastSeenAt: Date;
  expiresAt: Date;
  /** When it was ended early (signed out here, or from elsewhere); null while it lives. */
  endedAt: Date | null;
}

function ref(db: Firestore, sessionId: string) {
  return db.collection(SESSIONS).doc(sessionId);
}

function fromData(id: string, d: DocumentData): SessionRecord {
  return {
    sessionId: id,
    personId: String(d.personId),
    uid: String(d.uid),
    openedAt: toDate(d.openedAt),
    authTime: toDate(d.authTime),
    amr: stringList(d.amr),
    address: typeof d.address === "string" ? d.address : null,
    passkeyId: typeof d.passkeyId === "string" ? d.passkeyId : null,
    codesMadeAt: optionalDate(d.codesMadeAt),
    userAgent: typeof d.userAgent === "string" ? d.userAgent : "",
    lastSeenAt: toDate(d.lastSeenAt),
    expiresAt: toDate(d.expiresAt),
    endedAt: optionalDate(d.endedAt),
  };
}

export async function record(db: Firestore, session: SessionRecord): Promise<void> {
  const { sessionId, ...stored } = session;
  await ref(db, sessionId).set(stored);
}

/** The session was seen at `at`; a session opened before sessions were recorded has no record to touch. */
export async function touch(db: Firestore, sessionId: string, at: Date): Promise<void> {
  await ref(db, sessionId).update({ lastSeenAt: at });
}

/** The person's sessions that have neither expired nor been ended, most recently seen first. */
export async function findLive(db: Firestore, personId: string, now: Date, tx?: Transaction): Promise<SessionRecord[]> {
  const query = db.collection(SESSIONS).where("personId", "==", personId).where("expiresAt", ">", now);
  const snap = tx ? await tx.get(query) : await query.get();
  return snap.docs
    .map((doc) => fromData(doc.id, doc.data()))
    .filter((s) => s.endedAt === null)
    .sort((a, b) => b.lastSeenAt.getTime() - a.lastSeenAt.getTime());
}

export async function exists(db: Firestore, sessionId: string, tx: Transaction): Promise<boolean> {
  return (await tx.get(ref(db, sessionId))).exists;
}

/** The session's record; null for one opened before sessions were recorded, or by a key no record can have. */
export async function findById(db: Firestore, sessionId: string, tx: Transaction): Promise<SessionRecord | null> {
  if (!isDocumentId(sessionId)) return null;
  const snap = await tx.get(ref(db, sessionId));
  const d = snap.data();
  return d === undefined ? null : fromData(sessionId, d);
}

export function markEnded(db: Firestore, tx: Transaction, sessionId: string, at: Date): void {
  tx.update(ref(db, sessionId), { endedAt: at });
}

/** Every session record of the person's, live, ended or expired (until its TTL removes it), newest first. */
export async function listByPerson(db: Firestore, personId: string): Promise<SessionRecord[]> {
  const snap = await db.collection(SESSIONS).where("personId", "==", personId).get();
  return snap.docs.map((d) => fromData(d.id, d.data())).sort((a, b) => b.openedAt.getTime() - a.openedAt.getTime());
}

/** How the sessions opened since `since` began, newest first, at most `cap` (past it, the oldest are left out; for the health report). */
export async function openedSince(
  db: Firestore,
  since: Date,
  cap: number,
): Promise<Array<{ openedAt: Date; amr: string[] }>> {
  const snap = await db
    .collection(SESSIONS)
    .where("openedAt", ">=", since)
    .orderBy("openedAt", "desc")
    .limit(cap)
    .select("openedAt", "amr")
    .get();
  return snap.docs.map((d) => ({ openedAt: toDate(d.get("openedAt")), amr: stringList(d.get("amr")) }));
}
