import type { DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { toDate, type Firestore, type Transaction } from "./db";

/**
 * `oidcSignIns/{sid}`: a sign-in to a client through the OpenID Connect provider, from one
 * session of the identity host: what back-channel logout tells the client of when that session
 * ends (core/oidc/backchannel). Kept until the session would have expired, or it is told.
 */
const SIGN_INS: Collection = "oidcSignIns";

export interface OidcSignIn {
  /** What the client knows the sign-in by (core/pepper `oidcSid`). */
  sid: string;
  /** The identity host's session it was made from. */
  sessionKey: string;
  clientId: string;
  personId: string;
  createdAt: Date;
}

const ref = (db: Firestore, sid: string) => db.collection(SIGN_INS).doc(sid);

/** Records it (again: the same session signing in to the same client is one sign-in). */
export function record(db: Firestore, tx: Transaction, signIn: OidcSignIn, forgetAfter: Date): void {
  const { sid, ...stored } = signIn;
  tx.set(ref(db, sid), { ...stored, forgetAfter });
}

/** Every sign-in of the person, outside a transaction: for what their account page lists. */
export async function ofPerson(db: Firestore, personId: string): Promise<OidcSignIn[]> {
  const snap = await db.collection(SIGN_INS).where("personId", "==", personId).get();
  return snap.docs.map((d) => fromStored(d.id, d.data()));
}

/** The sign-ins made from these sessions of one person, read in `tx`. */
export async function ofSessions(
  db: Firestore,
  tx: Transaction,
  personId: string,
  sessionKeys: string[] | "all",
): Promise<OidcSignIn[]> {
  const snap = await tx.get(db.collection(SIGN_INS).where("personId", "==", personId));
  const all = snap.docs.map((d) => fromStored(d.id, d.data()));
  return sessionKeys === "all" ? all : all.filter((s) => sessionKeys.includes(s.sessionKey));
}

export function remove(db: Firestore, tx: Transaction, sid: string): void {
  tx.delete(ref(db, sid));
}

function fromStored(sid: string, d: DocumentData): OidcSignIn {
  return {
    sid,
    sessionKey: String(d.sessionKey),
    clientId: String(d.clientId),
    personId: String(d.personId),
    createdAt: toDate(d.createdAt),
  };
}
