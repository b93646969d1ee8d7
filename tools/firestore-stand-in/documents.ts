/**
 * Constant-time document lookup in a collection.
 *
 * The library's `FirestoreStateCollection#getDocument` runs an immer `produce` over the whole
 * collection on every access and copies it whenever the document is new: each created document
 * costs time in proportion to the collection's size, so a collection of single-use codes slows
 * every write as it grows (real Firestore does not). This keeps the same result (the document,
 * created empty on first access) with an object owned by the collection: it is copied once, out
 * of immer's frozen state and without a prototype, and then added to in place. Nothing else writes a collection's
 * `documents`; documents are never removed from it (a delete only marks the document absent).
 */
import { FirestoreStateCollection, FirestoreStateDocument } from "@firestore-emulator/server";

type Collection = {
  emitter: unknown;
  database: unknown;
  documents: Record<string, FirestoreStateDocument>;
};

export function lookUpDocumentsInPlace(): void {
  const prototype = FirestoreStateCollection.prototype as unknown as {
    getDocument(this: Collection, name: string): FirestoreStateDocument;
  };
  prototype.getDocument = function getDocument(this: Collection, name: string) {
    if (Object.hasOwn(this.documents, name)) return this.documents[name] as FirestoreStateDocument;
    // Without a prototype, ids such as "constructor" or "toString" are plain keys.
    if (Object.isFrozen(this.documents) || Object.getPrototypeOf(this.documents) !== null)
      this.documents = Object.assign(Object.create(null), this.documents);
    const created = new (FirestoreStateDocument as unknown as new (...args: unknown[]) => FirestoreStateDocument)(
      this.emitter,
      this.database,
      this,
      name,
      {},
      {},
    );
    this.documents[name] = created;
    return created;
  };
}
