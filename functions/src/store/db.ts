import {
  Timestamp,
  type DocumentData,
  type DocumentReference,
  type DocumentSnapshot,
  type Firestore,
  type Query,
  type Transaction,
} from "firebase-admin/firestore";

export type { Firestore, Transaction };

/** Dates are written as `Date` (stored as Timestamp) and read back through here, in one place. */
export function toDate(value: unknown): Date {
  if (value instanceof Timestamp) return value.toDate();
  if (value instanceof Date) return value;
  throw new TypeError("stored value is not a timestamp");
}

export function optionalDate(value: unknown): Date | null {
  return value === undefined || value === null ? null : toDate(value);
}

/**
 * Whether `id` can name a document. Ids come from URLs (a person's id in a path); one that cannot
 * name a document names nothing, rather than failing the request in the client library.
 */
export function isDocumentId(id: string): boolean {
  return (
    id !== "" &&
    id !== "." &&
    id !== ".." &&
    !id.includes("/") &&
    !/^__.*__$/.test(id) &&
    Buffer.byteLength(id, "utf8") <= 1500
  );
}

/** A stored string, or null for a field that is absent or of another type. */
export function optionalString(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** Reads a document through the transaction when one is given, so its read is part of it. */
export async function read(db: Firestore, path: string, tx?: Transaction): Promise<DocumentData | null> {
  const ref = db.doc(path);
  const snap = tx ? await tx.get(ref) : await ref.get();
  return snap.exists ? (snap.data() ?? null) : null;
}

/** Documents a transaction reads, and what their snapshots say, in the order of `refs`. */
export interface Reading<T> {
  refs: DocumentReference[];
  from(snaps: DocumentSnapshot[]): T;
}

/**
 * Several readings in one round trip (one getAll, whatever their collections), each given back
 * what its own documents say: reads a transaction needs together cost one call, not one each.
 * In `tx`, or, given the database itself, outside any transaction.
 */
export async function readTogether<T extends unknown[]>(
  tx: Transaction | Firestore,
  ...readings: { [K in keyof T]: Reading<T[K]> }
): Promise<T> {
  const refs = readings.flatMap((r) => r.refs);
  const snaps = refs.length === 0 ? [] : await tx.getAll(...refs);
  let at = 0;
  return readings.map((r) => {
    const mine = snaps.slice(at, at + r.refs.length);
    at += r.refs.length;
    return r.from(mine);
  }) as T;
}

/** Attempts at a transaction that Firestore closed under one of its reads, before it counts as contended. */
export const CLOSED_ATTEMPTS = 3;

/**
 * gRPC's INVALID_ARGUMENT, said of the transaction itself: a read retried after its stream was
 * lost (under load), or made after the transaction was ended by another that won its lock, finds
 * the transaction gone. Nothing of it was written. The client library tries again only the
 * "expired" form; the emulator, and a stream retried mid-transaction, say "invalid or closed".
 */
const closedUnderItsReads = (err: unknown): boolean =>
  typeof err === "object" &&
  err !== null &&
  (err as { code?: unknown }).code === 3 &&
  /transaction (is invalid or closed|has expired)/i.test(String((err as { message?: unknown }).message));

/**
 * Runs `work` in a Firestore transaction, as the client library does (again on contention), and
 * again when Firestore closed the transaction under one of its reads. Past CLOSED_ATTEMPTS, that
 * is contention (gRPC's ABORTED, so the caller answers 503 with Retry-After), never a 500.
 */
export function transactionRunner(db: Firestore): <T>(work: (tx: Transaction) => Promise<T>) => Promise<T> {
  return async (work) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await db.runTransaction(work);
      } catch (err) {
        if (!closedUnderItsReads(err)) throw err;
        if (attempt >= CLOSED_ATTEMPTS)
          throw Object.assign(new Error("transaction closed under its reads, every attempt", { cause: err }), {
            code: 10,
          });
      }
    }
  };
}

/** One cheap read, to learn whether Firestore answers (GET /status). */
/** How many documents `deleteEvery` deletes per batch (Firestore takes 500 writes in one). */
export const DELETE_BATCH = 400;

/** Deletes every document `query` finds, a batch at a time; how many it deleted. */
export async function deleteEvery(db: Firestore, query: Query): Promise<number> {
  let deleted = 0;
  for (;;) {
    const snap = await query.limit(DELETE_BATCH).get();
    if (snap.empty) return deleted;
    const batch = db.batch();
    for (const d of snap.docs) batch.delete(d.ref);
    await batch.commit();
    deleted += snap.size;
  }
}

export async function ping(db: Firestore): Promise<void> {
  await db.collection("people").limit(1).get();
}
