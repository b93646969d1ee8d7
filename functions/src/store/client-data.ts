import type { Query } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { deleteEvery, type Firestore } from "./db";

/**
 * What the service keeps for a client beyond its own document, found by its id: for removing a
 * client that registered itself (core/oidc/client-review `removeClient`). Each collection that
 * names a client is listed here with the field that names it.
 */
const CONSENTS: Collection = "oidcConsents";
const GRANTS: Collection = "oidcGrants";
const REFRESH_TOKENS: Collection = "oidcRefreshTokens";
const ACCESS_TOKENS: Collection = "oidcAccessTokens";
const CODES: Collection = "oidcCodes";
const SIGN_INS: Collection = "oidcSignIns";
const DISCONNECTS: Collection = "oidcDisconnects";

/** What was deleted, by what it was. */
export interface ClientSweep {
  consents: number;
  grants: number;
  refreshTokens: number;
  accessTokens: number;
  codes: number;
  signIns: number;
  disconnects: number;
}

function naming(db: Firestore, clientId: string): Record<keyof ClientSweep, Query> {
  // Each collection named as written, so the list of what the store writes stays checkable.
  return {
    consents: db.collection(CONSENTS).where("clientId", "==", clientId),
    grants: db.collection(GRANTS).where("clientId", "==", clientId),
    refreshTokens: db.collection(REFRESH_TOKENS).where("clientId", "==", clientId),
    accessTokens: db.collection(ACCESS_TOKENS).where("clientId", "==", clientId),
    codes: db.collection(CODES).where("clientId", "==", clientId),
    signIns: db.collection(SIGN_INS).where("clientId", "==", clientId),
    disconnects: db.collection(DISCONNECTS).where("clientId", "==", clientId),
  };
}

/** Deletes everything that names the client outside its document; idempotent. */
export async function sweepClient(db: Firestore, clientId: string): Promise<ClientSweep> {
  const queries = naming(db, clientId);
  const counts = await Promise.all(Object.values(queries).map((q) => deleteEvery(db, q)));
  return Object.fromEntries(Object.keys(queries).map((k, i) => [k, counts[i] ?? 0])) as unknown as ClientSweep;
}
