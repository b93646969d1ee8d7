import { AggregateField, FieldValue, Filter, type Query, type Timestamp } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import type { BudgetScope, Tally } from "../core/model/sends";
import type { Firestore, Transaction } from "./db";

/**
 * `sends/{sendId}`: the send ledger, one record per code sent that was let through the budgets
 * beyond its address (core/email-codes/send-budgets): where it came from and went, each as a
 * keyed hash (`client`, or for a request for access `requestClient` and `requestNetwork`;
 * `network`, `edge`, `domain`, `service`, the service's own key), and `address`, the address's
 * id; and one per guess at a recovery code let through its budgets,
 * under `recoveryClient` and `recoveryNetwork` alone. Each with when (`at`, the service's clock,
 * for the windows), the time the store stamped on it (`seq`, for the order sends racing for a
 * budget's last places take them), and whether its code was used (`used`, 0 or 1, so it can be
 * summed). Every send writes a record of its own and a use updates only its own: no document is
 * shared by sends. `forgetAfter` is when it stops mattering (a TTL field).
 */
const SENDS: Collection = "sends";

/** Every key a send is recorded under: its budgets', and its address's id. */
export type SendKeys = Partial<Record<BudgetScope | "address", string>>;

/** The stamp the store puts on a send as it records it. */
export type Stamp = Timestamp;

const ref = (db: Firestore, id: string) => db.collection(SENDS).doc(id);

/** Records a send before its code is issued: its keys, when (`at`), and `seq`, the time the store stamps on it. */
export async function record(db: Firestore, id: string, keys: SendKeys, at: Date, forgetAfter: Date): Promise<void> {
  await ref(db, id).create({ ...keys, at, seq: FieldValue.serverTimestamp(), used: 0, forgetAfter });
}

const inWindow = (db: Firestore, scope: BudgetScope, key: string, since: Date) =>
  db.collection(SENDS).where(scope, "==", key).where("at", ">", since);

const tallied = async (query: Query): Promise<Tally> => {
  const snap = await query.aggregate({ sent: AggregateField.count(), used: AggregateField.sum("used") }).get();
  return { sent: snap.data().sent, used: snap.data().used ?? 0 };
};

/** Every send of `scope`'s key recorded inside the window since `since`, whenever it was recorded. */
export function tally(db: Firestore, scope: BudgetScope, key: string, since: Date): Promise<Tally> {
  return tallied(inWindow(db, scope, key, since));
}

/**
 * Every send that any of `windows` holds (a scope's key, inside its window), each counted once:
 * at least as many as any one of them holds, in one query (a disjunction of each budget's own
 * query, each served by that budget's index).
 */
export function tallyAny(
  db: Firestore,
  windows: Array<{ scope: BudgetScope; key: string; since: Date }>,
): Promise<Tally> {
  const each = windows.map((w) => Filter.and(Filter.where(w.scope, "==", w.key), Filter.where("at", ">", w.since)));
  return tallied(db.collection(SENDS).where(Filter.or(...each)));
}

/** The stamp the store put on a recorded send (null once it is withdrawn). */
export async function seqOf(db: Firestore, id: string): Promise<Timestamp | null> {
  return ((await ref(db, id).get()).get("seq") as Timestamp | undefined) ?? null;
}

/**
 * The sends of `scope`'s key inside the window that were recorded before send `id` (stamped
 * `seq`): stamped earlier, or stamped alike with a smaller id, so that any two sends agree on
 * which came first.
 */
export async function tallyBefore(
  db: Firestore,
  scope: BudgetScope,
  key: string,
  since: Date,
  id: string,
  seq: Timestamp,
): Promise<Tally> {
  const [earlier, alike] = await Promise.all([
    tallied(inWindow(db, scope, key, since).where("seq", "<", seq)),
    db.collection(SENDS).where(scope, "==", key).where("seq", "==", seq).get(),
  ]);
  const first = alike.docs.filter((d) => d.id < id && (d.get("at") as Timestamp).toMillis() > since.getTime());
  return {
    sent: earlier.sent + first.length,
    used: earlier.used + first.reduce((n, d) => n + ((d.get("used") as number | undefined) ?? 0), 0),
  };
}

/** When the oldest send of `scope`'s key inside the window since `since` was made, if any. */
export async function oldestSince(db: Firestore, scope: BudgetScope, key: string, since: Date): Promise<Date | null> {
  const snap = await db.collection(SENDS).where(scope, "==", key).where("at", ">", since).orderBy("at").limit(1).get();
  const at = snap.docs[0]?.get("at") as Timestamp | undefined;
  return at === undefined ? null : at.toDate();
}

/** A send that was refused after all, or whose code was never issued: it counts against nothing. */
export async function withdraw(db: Firestore, id: string): Promise<void> {
  await ref(db, id).delete();
}

/**
 * Its code was used: it stops counting against where it came from and went. A merge, so that a
 * code issued before the ledger kept its sends (or one whose record has been forgotten) is used
 * all the same; such a partial record matches no budget's query.
 */
export function markUsed(db: Firestore, tx: Transaction, id: string, forgetAfter: Date): void {
  tx.set(ref(db, id), { used: 1, forgetAfter }, { merge: true });
}
