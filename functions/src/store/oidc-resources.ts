import { FieldValue, type DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { stringList, toDate, type Firestore, type Transaction } from "./db";
import type { Resource } from "../core/model/resource";

/**
 * `oidcResources/{id}`: the family's resources the operator registered. A URL is no document id:
 * core names each by a hash of its URL (core/oidc/resources `resourceId`).
 */
const OIDC_RESOURCES: Collection = "oidcResources";

/** Stores a new resource; create() fails (gRPC ALREADY_EXISTS) if its id is taken. */
export async function create(db: Firestore, id: string, resource: Resource): Promise<void> {
  await db.collection(OIDC_RESOURCES).doc(id).create(resource);
}

export async function find(db: Firestore, id: string, tx?: Transaction): Promise<Resource | null> {
  const ref = db.collection(OIDC_RESOURCES).doc(id);
  const d = (tx ? await tx.get(ref) : await ref.get()).data();
  return d === undefined ? null : fromStored(d);
}

export async function list(db: Firestore): Promise<Resource[]> {
  const snap = await db.collection(OIDC_RESOURCES).get();
  return snap.docs.map((doc) => fromStored(doc.data())).sort((a, b) => a.url.localeCompare(b.url));
}

export async function remove(db: Firestore, id: string): Promise<void> {
  await db.collection(OIDC_RESOURCES).doc(id).delete();
}

/** The clients that may ask for it, changed in one write (arrayUnion/arrayRemove): concurrent changes all land. */
export async function setClient(db: Firestore, id: string, clientId: string, allowed: boolean): Promise<void> {
  await db
    .collection(OIDC_RESOURCES)
    .doc(id)
    .update({ clients: allowed ? FieldValue.arrayUnion(clientId) : FieldValue.arrayRemove(clientId) });
}

/** Opens it to every client that registered itself, or closes it to them. */
export async function setAgents(db: Firestore, id: string, open: boolean): Promise<void> {
  await db.collection(OIDC_RESOURCES).doc(id).update({ agents: open });
}

function fromStored(d: DocumentData): Resource {
  return {
    url: String(d.url),
    name: String(d.name),
    scopes: stringList(d.scopes),
    clients: stringList(d.clients),
    agents: d.agents === true,
    project: typeof d.project === "string" ? d.project : null,
    createdAt: toDate(d.createdAt),
  };
}
