import type { DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { isDocumentId, optionalDate, optionalString, stringList, toDate, type Firestore, type Transaction } from "./db";
import type { Hook, HookSecret } from "../core/model/hook";
import type { Sealed } from "../core/model/sealed";

/** `hooks/{app}`: the apps' subscriptions to events; their signing secrets sealed, never in the clear. */
const HOOKS: Collection = "hooks";

function ref(db: Firestore, app: string) {
  return db.collection(HOOKS).doc(app);
}

function toStored(hook: Hook): DocumentData {
  const { app: _app, ...stored } = hook;
  return stored;
}

/** Stores a new subscription; create() fails (gRPC ALREADY_EXISTS) if the app has one. */
export async function create(db: Firestore, hook: Hook): Promise<void> {
  await ref(db, hook.app).create(toStored(hook));
}

export function save(db: Firestore, tx: Transaction, hook: Hook): void {
  tx.set(ref(db, hook.app), toStored(hook));
}

export async function find(db: Firestore, app: string, tx?: Transaction): Promise<Hook | null> {
  if (!isDocumentId(app)) return null;
  const snap = tx ? await tx.get(ref(db, app)) : await ref(db, app).get();
  const d = snap.data();
  return d ? fromStored(app, d) : null;
}

export async function list(db: Firestore, tx?: Transaction): Promise<Hook[]> {
  const query = db.collection(HOOKS);
  const snap = tx ? await tx.get(query) : await query.get();
  return snap.docs.map((doc) => fromStored(doc.id, doc.data()));
}

export function remove(db: Firestore, tx: Transaction, app: string): void {
  tx.delete(ref(db, app));
}

/** What a delivery learned of the endpoint: its health, written on its own. */
export function recordHealth(
  db: Firestore,
  tx: Transaction,
  app: string,
  health: Partial<Pick<Hook, "failures" | "pausedUntil" | "lastError" | "lastSuccessAt">>,
): void {
  tx.update(ref(db, app), health);
}

function secretsOf(value: unknown): HookSecret[] {
  if (!Array.isArray(value)) return [];
  return (value as DocumentData[]).map((s) => ({
    sealed: s.sealed as Sealed,
    createdAt: toDate(s.createdAt),
    expiresAt: optionalDate(s.expiresAt),
  }));
}

function fromStored(app: string, d: DocumentData): Hook {
  return {
    app,
    url: String(d.url),
    events: stringList(d.events),
    secrets: secretsOf(d.secrets),
    disabled: d.disabled === true,
    createdAt: toDate(d.createdAt),
    failures: typeof d.failures === "number" ? d.failures : 0,
    pausedUntil: optionalDate(d.pausedUntil),
    lastError: optionalString(d.lastError),
    lastSuccessAt: optionalDate(d.lastSuccessAt),
  };
}
