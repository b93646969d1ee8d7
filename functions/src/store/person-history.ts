import type { DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { optionalString, toDate, type Firestore, type Transaction } from "./db";
import type { Actor, HistoryEntry, HistoryEvent, Via } from "../core/model/history";

/**
 * `personHistory/{id}`: what was done to a person, by whom, when and how; written in the same
 * transaction as the change it tells of, so a change is never without its entry nor an entry
 * without its change. Never edited; kept as long as the service is (an audit log).
 */
const HISTORY: Collection = "personHistory";

function actorOf(value: unknown): Actor {
  const a = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  if (a.kind === "admin")
    return {
      kind: "admin",
      personId: String(a.personId),
      email: optionalString(a.email),
      ...(Array.isArray(a.amr) ? { amr: a.amr.filter((m): m is string => typeof m === "string") } : {}),
      ...(a.lifted === true ? { lifted: true as const } : {}),
    };
  if (a.kind === "operator") return { kind: "operator", name: String(a.name) };
  return a.kind === "person" ? { kind: "person" } : { kind: "service" };
}

function fromData(id: string, d: DocumentData): HistoryEntry {
  return {
    id,
    personId: String(d.personId),
    at: toDate(d.at),
    by: actorOf(d.by),
    via: d.via as Via,
    event: d.event as HistoryEvent,
    changes: typeof d.changes === "object" && d.changes !== null ? (d.changes as HistoryEntry["changes"]) : {},
    key: String(d.key),
  };
}

export function add(db: Firestore, tx: Transaction, entry: Omit<HistoryEntry, "key">): void {
  const { id, ...stored } = entry;
  tx.create(db.collection(HISTORY).doc(id), { ...stored, key: `${entry.at.toISOString()}~${id}` });
}

/** The person's history, newest first, from just before the key `before`. */
export async function page(
  db: Firestore,
  personId: string,
  limit: number,
  before: string | null,
): Promise<HistoryEntry[]> {
  let query = db.collection(HISTORY).where("personId", "==", personId);
  if (before !== null) query = query.where("key", "<", before);
  const snap = await query.orderBy("key", "desc").limit(limit).get();
  return snap.docs.map((d) => fromData(d.id, d.data()));
}
