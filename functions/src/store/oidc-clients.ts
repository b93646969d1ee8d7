import type { Collection } from "./collections";
import { stringList, toDate, type Firestore } from "./db";

/** `oidcClients/{clientId}`: relying parties registered by the operator; secrets kept as hashes. */
const OIDC_CLIENTS: Collection = "oidcClients";

export interface OidcClient {
  clientId: string;
  name: string;
  secretHash: string;
  redirectUris: string[];
  createdAt: Date;
}

export async function save(db: Firestore, client: OidcClient): Promise<void> {
  const { clientId, ...stored } = client;
  await db.collection(OIDC_CLIENTS).doc(clientId).set(stored);
}

export async function findById(db: Firestore, clientId: string): Promise<OidcClient | null> {
  const snap = await db.collection(OIDC_CLIENTS).doc(clientId).get();
  const d = snap.data();
  if (!d) return null;
  return {
    clientId,
    name: String(d.name),
    secretHash: String(d.secretHash),
    redirectUris: stringList(d.redirectUris),
    createdAt: toDate(d.createdAt),
  };
}
