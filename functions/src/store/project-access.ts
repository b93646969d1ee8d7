import type { Collection } from "./collections";
import { FieldValue } from "firebase-admin/firestore";
import type { Firestore } from "./db";

/** `projectAccess/{personId}_{project}`: when a person last reached a project, and how often. */
const PROJECT_ACCESS: Collection = "projectAccess";

export async function record(db: Firestore, personId: string, project: string, at: Date): Promise<void> {
  const id = `${personId}_${encodeURIComponent(project)}`;
  await db
    .collection(PROJECT_ACCESS)
    .doc(id)
    .set({ personId, project, lastAt: at, count: FieldValue.increment(1) }, { merge: true });
}
