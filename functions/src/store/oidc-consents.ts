import { createHash } from "node:crypto";
import type { DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { stringList, toDate, type Firestore, type Transaction } from "./db";

/**
 * `oidcConsents/{sha256(personId, clientId, resource)}`: what a person let an app that registered
 * itself do (core/oidc/consents), for one resource ("" for the provider's own tokens): the scopes,
 * and when first and last. Kept until the person takes it back (disconnecting the app), or is erased.
 */
const CONSENTS: Collection = "oidcConsents";

export interface OidcConsent {
  personId: string;
  clientId: string;
  /** The resource's URL (core/oidc/resources); "" for the provider's own tokens. */
  resource: string;
  scopes: string[];
  givenAt: Date;
  updatedAt: Date;
}

const ref = (db: Firestore, personId: string, clientId: string, resource: string) =>
  db
    .collection(CONSENTS)
    .doc(createHash("sha256").update(`${personId}\u0000${clientId}\u0000${resource}`).digest("hex"));

function fromStored(d: DocumentData): OidcConsent {
  return {
    personId: String(d.personId),
    clientId: String(d.clientId),
    resource: String(d.resource ?? ""),
    scopes: stringList(d.scopes),
    givenAt: toDate(d.givenAt),
    updatedAt: toDate(d.updatedAt),
  };
}

export async function find(
  db: Firestore,
  personId: string,
  clientId: string,
  resource: string,
  tx?: Transaction,
): Promise<OidcConsent | null> {
  const r = ref(db, personId, clientId, resource);
  const d = (tx ? await tx.get(r) : await r.get()).data();
  return d === undefined ? null : fromStored(d);
}

/** Every consent the person gave, to any app. */
export async function ofPerson(db: Firestore, personId: string, tx?: Transaction): Promise<OidcConsent[]> {
  const query = db.collection(CONSENTS).where("personId", "==", personId);
  return (tx ? await tx.get(query) : await query.get()).docs.map((d) => fromStored(d.data()));
}

/** Records it, replacing what was there (the caller merged the scopes). */
export function record(db: Firestore, tx: Transaction, c: OidcConsent): void {
  tx.set(ref(db, c.personId, c.clientId, c.resource), c);
}

export function remove(
  db: Firestore,
  tx: Transaction,
  c: Pick<OidcConsent, "personId" | "clientId" | "resource">,
): void {
  tx.delete(ref(db, c.personId, c.clientId, c.resource));
}

/** Deletes every consent given for `resource`, a batch at a time; how many there were. */
export async function removeForResource(db: Firestore, resource: string): Promise<number> {
  let removed = 0;
  for (;;) {
    const snap = await db.collection(CONSENTS).where("resource", "==", resource).limit(400).get();
    if (snap.empty) return removed;
    const batch = db.batch();
    for (const d of snap.docs) batch.delete(d.ref);
    await batch.commit();
    removed += snap.size;
  }
}
