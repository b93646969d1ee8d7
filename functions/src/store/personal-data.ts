import type { CollectionReference, Query, QueryDocumentSnapshot } from "firebase-admin/firestore";
import { FieldPath, FieldValue } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { deleteEvery, isDocumentId, optionalDate, stringList, toDate, type Firestore, type Transaction } from "./db";
import type { EventType } from "../core/model/event";
import type { OutboxKind } from "../core/model/outbox";

/**
 * What the service keeps about a person beyond their own document, found by their id: for their
 * copy of it (an export) and for erasing it. Each collection that names a person is listed here
 * with the field that names them; test/people/erasure.test.ts scans every collection after an erasure,
 * so a collection that keeps a person and is missing here fails it.
 */
const SESSIONS: Collection = "sessions";
const PASSKEYS: Collection = "passkeys";
const PASSKEY_CHALLENGES: Collection = "passkeyChallenges";
const EXCHANGE_CODES: Collection = "exchangeCodes";
const OIDC_CODES: Collection = "oidcCodes";
const OIDC_TOKENS: Collection = "oidcAccessTokens";
const OIDC_GRANTS: Collection = "oidcGrants";
const OIDC_REFRESH_TOKENS: Collection = "oidcRefreshTokens";
const OIDC_SIGN_INS: Collection = "oidcSignIns";
const OIDC_DISCONNECTS: Collection = "oidcDisconnects";
const OIDC_CONSENTS: Collection = "oidcConsents";
const PROJECT_ACCESS: Collection = "projectAccess";
const OUTBOX: Collection = "outbox";
const HISTORY: Collection = "personHistory";
const NOTIFICATIONS: Collection = "notifications";
const READS: Collection = "startpageReads";
const NOTICE_WINDOWS: Collection = "noticeWindows";
const INVITATIONS: Collection = "invitations";
const RECOVERY_CODES: Collection = "recoveryCodes";
/** The clients waiting for review, which keep the ids of the people who tried them (`triedBy`). */
const OIDC_CLIENTS: Collection = "oidcClients";
/** The operator's lifts of the passkey rule, by person id, in its one document (store/sign-in-rules). */
const SIGN_IN_RULES: Collection = "signInRules";
/**
 * `erasures/{personId}`: an erasure begun and not yet finished, with the accounts at the identity
 * provider still to delete (the person's document, which named them, is gone), when it began and
 * when it was last tried. Deleted once the erasure is done, and never before: no TTL, since an
 * erasure forgotten unfinished would leave the accounts at the provider with nothing to find them.
 */
const ERASURES: Collection = "erasures";
/**
 * The outbox kind of an erasure's finishing job (core/people/erasure-job): nothing is mailed; the
 * drain runs it, and retries it with backoff until the erasure is done. The sweep leaves it.
 */
const ERASURE_JOB = "erasure" satisfies OutboxKind;

/** The event that tells the apps of an erasure (core/model/event): the one the sweep keeps. */
const ERASED_EVENT: EventType = "person.erased";

/** How many documents one sweep deletes per batch (Firestore allows 500 writes in one). */
const SWEEP_BATCH = 400;

/** The records that name a person in a field of theirs, each a query by that field. */
function naming(db: Firestore, personId: string): Query[] {
  return [
    db.collection(SESSIONS).where("personId", "==", personId),
    db.collection(PASSKEYS).where("personId", "==", personId),
    db.collection(PASSKEY_CHALLENGES).where("personId", "==", personId),
    db.collection(EXCHANGE_CODES).where("personId", "==", personId),
    db.collection(OIDC_CODES).where("personId", "==", personId),
    db.collection(OIDC_TOKENS).where("personId", "==", personId),
    db.collection(OIDC_GRANTS).where("personId", "==", personId),
    db.collection(OIDC_REFRESH_TOKENS).where("personId", "==", personId),
    db.collection(OIDC_SIGN_INS).where("personId", "==", personId),
    db.collection(OIDC_DISCONNECTS).where("personId", "==", personId),
    db.collection(OIDC_CONSENTS).where("personId", "==", personId),
    db.collection(PROJECT_ACCESS).where("personId", "==", personId),
    db.collection(RECOVERY_CODES).where("personId", "==", personId),
  ];
}

/** The address of the administrator `personId` taken out of the actor field `actor` of a collection's documents. */
async function forgetAddress(
  db: Firestore,
  collection: CollectionReference,
  actor: "by" | "invitedBy",
  personId: string,
): Promise<void> {
  let after: QueryDocumentSnapshot | null = null;
  for (;;) {
    let query = collection.where(`${actor}.personId`, "==", personId).orderBy(FieldPath.documentId());
    if (after !== null) query = query.startAfter(after);
    const snap = await query.limit(SWEEP_BATCH).get();
    const named = snap.docs.filter((d) => d.get(`${actor}.email`) !== null);
    if (named.length > 0) {
      const batch = db.batch();
      for (const d of named) batch.update(d.ref, { [`${actor}.email`]: null });
      await batch.commit();
    }
    if (snap.size < SWEEP_BATCH) break;
    after = snap.docs[snap.docs.length - 1] ?? null;
  }
}

/** What names the person outside their document, all of it, for an erasure; idempotent. */
export async function sweepPerson(db: Firestore, personId: string): Promise<number> {
  let deleted = 0;
  for (const query of naming(db, personId)) deleted += await deleteEvery(db, query);
  // A lift of the passkey rule for them (the break-glass) names them by their id.
  const rules = db.collection(SIGN_IN_RULES).doc("passkey");
  if ((await rules.get()).get(`lifts.${personId}`) !== undefined)
    await rules.update({ [`lifts.${personId}`]: FieldValue.delete() });
  // Mail about them not yet written (an approval, a notice): nothing to send once they are gone;
  // and the events about them for the apps, with each app's delivery of them, which say what
  // changed. Their erasure's own job stays, to finish what this erasure could not, and so does the
  // event of their erasure, which holds their ids alone: it tells the apps to forget them.
  const [about, events] = await Promise.all([
    db.collection(OUTBOX).where("about", "==", personId).get(),
    db.collection(OUTBOX).where("event.personId", "==", personId).get(),
  ]);
  const waiting = [...new Map([...about.docs, ...events.docs].map((d) => [d.id, d])).values()];
  const unsent = waiting.filter((d) => d.get("kind") !== ERASURE_JOB && d.get("event.type") !== ERASED_EVENT);
  for (let i = 0; i < unsent.length; i += SWEEP_BATCH) {
    const batch = db.batch();
    for (const d of unsent.slice(i, i + SWEEP_BATCH)) batch.delete(d.ref);
    await batch.commit();
  }
  deleted += unsent.length;
  // Their history goes but for the entry that they were erased (it names no personal data).
  const history = db.collection(HISTORY).where("personId", "==", personId).where("event", "!=", "erased");
  deleted += await deleteEvery(db, history);
  // Where they acted on others (as an administrator), the others' history, and the invitations they
  // sent, keep that someone did, not who: their id names nobody once they are gone, their address
  // would (an invitation sent again names its inviter by address, and by role once it has none).
  await forgetAddress(db, db.collection(HISTORY), "by", personId);
  await forgetAddress(db, db.collection(INVITATIONS), "invitedBy", personId);
  // A waiting client they tried keeps their id to tell them of its review: nobody to tell now.
  const tried = await db.collection(OIDC_CLIENTS).where("triedBy", "array-contains", personId).get();
  for (const d of tried.docs) await d.ref.update({ triedBy: FieldValue.arrayRemove(personId) });
  // Start-page notices addressed to them by name: they leave the audience; a notice for nobody goes.
  for (;;) {
    const snap = await db
      .collection(NOTIFICATIONS)
      .where("audience", "array-contains", personId)
      .limit(SWEEP_BATCH)
      .get();
    if (snap.empty) break;
    const batch = db.batch();
    for (const d of snap.docs) {
      const rest = stringList(d.get("audience")).filter((id) => id !== personId);
      if (rest.length === 0) batch.delete(d.ref);
      else batch.update(d.ref, { audience: FieldValue.arrayRemove(personId) });
    }
    await batch.commit();
    deleted += snap.size;
  }
  return deleted;
}

/** Begins an erasure, in `tx`: the accounts still to delete at the identity provider. */
export function beginErasure(db: Firestore, tx: Transaction, personId: string, uids: string[], at: Date): void {
  tx.set(db.collection(ERASURES).doc(personId), { uids, startedAt: at, lastTriedAt: null });
  tx.delete(db.collection(READS).doc(personId));
  tx.delete(db.collection(NOTICE_WINDOWS).doc(personId));
}

/**
 * Notes an attempt that left accounts at the provider (when, for the operator), and takes away the
 * `forgetAfter` of an erasure begun while erasures still expired, so that a TTL policy left on the
 * collection never deletes it either.
 */
export async function erasureTried(db: Firestore, personId: string, at: Date): Promise<void> {
  try {
    await db.collection(ERASURES).doc(personId).update({ lastTriedAt: at, forgetAfter: FieldValue.delete() });
  } catch (err) {
    // NOT_FOUND: finished meanwhile by another attempt.
    if ((err as { code?: unknown }).code !== 5) throw err;
  }
}

export interface UnfinishedErasure {
  personId: string;
  uids: string[];
  startedAt: Date;
  /** The last attempt that left accounts at the provider; null before the first. */
  lastTriedAt: Date | null;
}

/** Every erasure begun and not finished, oldest first: for the operator (`people erasures`, `doctor`). */
export async function unfinishedErasures(db: Firestore): Promise<UnfinishedErasure[]> {
  const snap = await db.collection(ERASURES).orderBy("startedAt").limit(1000).get();
  return snap.docs.map((d) => ({
    personId: d.id,
    uids: stringList(d.get("uids")),
    startedAt: toDate(d.get("startedAt")),
    lastTriedAt: optionalDate(d.get("lastTriedAt")),
  }));
}

/** Whether a finishing job of the person's erasure waits in the outbox to be run (or runs now). */
export async function erasureJobWaiting(db: Firestore, personId: string, tx: Transaction): Promise<boolean> {
  const jobs = await tx.get(db.collection(OUTBOX).where("about", "==", personId));
  return jobs.docs.some((d) => d.get("kind") === ERASURE_JOB && d.get("state") === "pending");
}

/** An erasure begun and not finished: the accounts still to delete; null when there is none. */
export async function erasureOf(db: Firestore, personId: string): Promise<{ uids: string[]; startedAt: Date } | null> {
  if (!isDocumentId(personId)) return null;
  const snap = await db.collection(ERASURES).doc(personId).get();
  return snap.exists ? { uids: stringList(snap.get("uids")), startedAt: toDate(snap.get("startedAt")) } : null;
}

/** The erasure is done: its record goes, and its finishing job with it (run or not). */
export async function endErasure(db: Firestore, personId: string): Promise<void> {
  const jobs = await db.collection(OUTBOX).where("about", "==", personId).get();
  const batch = db.batch();
  batch.delete(db.collection(ERASURES).doc(personId));
  for (const d of jobs.docs) if (d.get("kind") === ERASURE_JOB) batch.delete(d.ref);
  await batch.commit();
}
