/**
 * `healthCounts/{hour}~{instance}`: what one instance counted in one hour for the health report
 * (core/status/health-counts), each count a field of `counts`. Only that instance writes its
 * document, one write at a time; the report reads every instance's documents of its window.
 */
import { FieldValue } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { toDate, type Firestore } from "./db";

const COUNTS: Collection = "healthCounts";

/** Adds `counts` to the document `id` (made if it is not there), for the hour `hour`. */
export async function add(
  db: Firestore,
  id: string,
  hour: Date,
  forgetAfter: Date,
  counts: ReadonlyMap<string, number>,
): Promise<void> {
  const added = Object.fromEntries([...counts].map(([name, n]) => [name, FieldValue.increment(n)]));
  await db.collection(COUNTS).doc(id).set({ hour, forgetAfter, counts: added }, { merge: true });
}

/** The counts of the hours since `from`, newest first, at most `cap` documents. */
export async function since(
  db: Firestore,
  from: Date,
  cap: number,
): Promise<Array<{ hour: Date; counts: Record<string, number> }>> {
  const snap = await db.collection(COUNTS).where("hour", ">=", from).orderBy("hour", "desc").limit(cap).get();
  return snap.docs.map((d) => {
    const raw = d.get("counts") as Record<string, unknown> | undefined;
    const counts = Object.fromEntries(
      Object.entries(raw ?? {}).filter((e): e is [string, number] => typeof e[1] === "number"),
    );
    return { hour: toDate(d.get("hour")), counts };
  });
}
