import type { DocumentData, Query } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { optionalString, stringList, toDate, type Firestore, type Transaction } from "./db";
import type { AuditActor, AuditKind, AuditRecord } from "../core/model/audit";

/**
 * `auditTrail/{id}`: one record per privileged act, written beside the act (in its transaction,
 * where it has one). Append-only: this module creates records and reads them, and has no way to
 * change or delete one; the rules deny every client (firestore.rules), and the TTL policy on
 * `forgetAfter` lets a record go once it is past the trail's retention.
 */
const TRAIL: Collection = "auditTrail";

function actorOf(value: unknown): AuditActor {
  const a = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  if (a.kind === "operator") return { kind: "operator", name: String(a.name) };
  if (a.kind === "admin")
    return { kind: "admin", personId: String(a.personId), amr: stringList(a.amr), lifted: a.lifted === true };
  return { kind: "person", personId: String(a.personId) };
}

function fromData(id: string, d: DocumentData): AuditRecord {
  const client = (typeof d.client === "object" && d.client !== null ? d.client : {}) as Record<string, unknown>;
  return {
    id,
    at: toDate(d.at),
    actor: actorOf(d.actor),
    actorId: String(d.actorId),
    kind: d.kind as AuditKind,
    action: String(d.action),
    subjects: stringList(d.subjects),
    detail: typeof d.detail === "object" && d.detail !== null ? (d.detail as AuditRecord["detail"]) : {},
    outcome: d.outcome === "refused" ? "refused" : "done",
    client: { via: client.via === "cli" ? "cli" : "api", from: optionalString(client.from) },
    traceId: optionalString(d.traceId),
    forgetAfter: toDate(d.forgetAfter),
  };
}

/** Adds `record` in `tx`, never over another (`create`). */
export function addIn(db: Firestore, tx: Transaction, record: AuditRecord): void {
  const { id, ...stored } = record;
  tx.create(db.collection(TRAIL).doc(id), stored);
}

/** Adds `record` on its own, never over another. */
export async function add(db: Firestore, record: AuditRecord): Promise<void> {
  const { id, ...stored } = record;
  await db.collection(TRAIL).doc(id).create(stored);
}

/**
 * A refused act, at an id that names who was refused what in which minute: refusals within the
 * minute are one record, so a person cannot grow the trail by asking again and again. The only
 * record ever written twice (by a second instance, the same minute), and only by a refusal of its
 * own. A plain write, never a precondition that could fail: a refusal is answered whatever
 * Firestore says.
 */
export async function putRefusal(db: Firestore, key: string, record: AuditRecord): Promise<void> {
  const { id: _id, ...stored } = record;
  await db.collection(TRAIL).doc(key).set(stored);
}

export interface TrailFilter {
  /** `admin:<personId>`, `operator:<name>` or `person:<personId>`. */
  actorId?: string;
  /** A person (or client, hook…) the act was about. */
  subject?: string;
  kind?: AuditKind;
  since?: Date;
  until?: Date;
}

/**
 * Records newest first, at most `limit`, older than the record `before` (an id) when given. One
 * filter goes to Firestore (subject, else actor, else kind, each with its index on `at`); the
 * others are applied to what it returns.
 */
export async function page(
  db: Firestore,
  filter: TrailFilter,
  limit: number,
  before: { at: Date; id: string } | null,
): Promise<AuditRecord[]> {
  let query: Query = db.collection(TRAIL);
  if (filter.subject !== undefined) query = query.where("subjects", "array-contains", filter.subject);
  else if (filter.actorId !== undefined) query = query.where("actorId", "==", filter.actorId);
  else if (filter.kind !== undefined) query = query.where("kind", "==", filter.kind);
  if (filter.since !== undefined) query = query.where("at", ">=", filter.since);
  const upTo = before?.at ?? filter.until;
  if (upTo !== undefined) query = query.where("at", "<=", upTo);
  const kept = (r: AuditRecord) =>
    (filter.actorId === undefined || r.actorId === filter.actorId) &&
    (filter.kind === undefined || r.kind === filter.kind) &&
    (filter.until === undefined || r.at <= filter.until) &&
    !(before !== null && r.at.getTime() === before.at.getTime() && r.id >= before.id);
  const found: AuditRecord[] = [];
  // Ties on `at` in the order of their ids, descending too (Firestore's implicit last order).
  let cursor: Query = query.orderBy("at", "desc");
  // Filtered in memory past the first filter: read on in batches until `limit` are found or none are left.
  for (let round = 0; round < 20 && found.length < limit; round++) {
    const snap = await cursor.limit(Math.max(limit, 100)).get();
    for (const doc of snap.docs) {
      const record = fromData(doc.id, doc.data());
      if (kept(record) && found.length < limit) found.push(record);
    }
    const last = snap.docs[snap.docs.length - 1];
    if (snap.size < Math.max(limit, 100) || last === undefined) break;
    cursor = cursor.startAfter(last);
  }
  return found;
}
