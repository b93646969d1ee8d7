import type { Collection } from "./collections";
import { FieldValue } from "firebase-admin/firestore";
import { toDate, type Firestore } from "./db";

/**
 * `projectAccess/{personId}_{project}`: when a person last reached a project, and how often;
 * forgotten (TTL on `forgetAfter`) once the project has gone unused that long.
 */
const PROJECT_ACCESS: Collection = "projectAccess";

export async function record(
  db: Firestore,
  personId: string,
  project: string,
  at: Date,
  forgetAfter: Date,
): Promise<void> {
  const id = `${personId}_${encodeURIComponent(project)}`;
  await db
    .collection(PROJECT_ACCESS)
    .doc(id)
    .set({ personId, project, lastAt: at, count: FieldValue.increment(1), forgetAfter }, { merge: true });
}

/** The projects a person has reached: when last, and how often. */
export async function listByPerson(
  db: Firestore,
  personId: string,
): Promise<Array<{ project: string; lastAt: Date; count: number }>> {
  const snap = await db.collection(PROJECT_ACCESS).where("personId", "==", personId).get();
  return snap.docs.map((d) => ({
    project: String(d.get("project")),
    lastAt: toDate(d.get("lastAt")),
    count: Number(d.get("count") ?? 0),
  }));
}
