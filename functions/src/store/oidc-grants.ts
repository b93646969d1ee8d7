import type { DocumentData } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { optionalDate, optionalString, stringList, toDate, type Firestore, type Reading, type Transaction } from "./db";
import type { GrantEnd, OidcGrant } from "../core/model/oidc-grant";

/**
 * `oidcGrants/{id}`: what a person let an app do while away (core/model/oidc-grant), kept until
 * its absolute end. `oidcRefreshTokens/{keyed hash}`: every refresh token issued on a grant, the
 * current one and each rotated out, so that one presented again is known for what it is; the
 * token itself is never stored, only its keyed hash (core/pepper `refreshTokenIds`).
 */
const GRANTS: Collection = "oidcGrants";
const REFRESH_TOKENS: Collection = "oidcRefreshTokens";

/** A refresh token's record: whose grant it was issued on. */
export interface RefreshTokenRecord {
  id: string;
  grantId: string;
  clientId: string;
  personId: string;
  createdAt: Date;
}

const grantRef = (db: Firestore, id: string) => db.collection(GRANTS).doc(id);
const tokenRef = (db: Firestore, id: string) => db.collection(REFRESH_TOKENS).doc(id);

export function create(db: Firestore, tx: Transaction, grant: OidcGrant): void {
  const { id, ...stored } = grant;
  tx.create(grantRef(db, id), { ...stored, forgetAfter: grant.expiresAt });
}

/** Records a refresh token issued on `grant`, kept as long as the grant is. */
export function addToken(
  db: Firestore,
  tx: Transaction,
  token: RefreshTokenRecord,
  grant: Pick<OidcGrant, "expiresAt">,
): void {
  const { id, ...stored } = token;
  tx.create(tokenRef(db, id), { ...stored, forgetAfter: grant.expiresAt });
}

/** The refresh tokens stored under these ids, in order (null for each not there): to read in a transaction. */
export function tokensById(db: Firestore, ids: string[]): Reading<Array<RefreshTokenRecord | null>> {
  return {
    refs: ids.map((id) => tokenRef(db, id)),
    from: (snaps) =>
      snaps.map((snap, i) => {
        const d = snap.data();
        return d === undefined ? null : tokenFrom(ids[i] as string, d);
      }),
  };
}

export async function find(db: Firestore, id: string, tx?: Transaction): Promise<OidcGrant | null> {
  const snap = tx ? await tx.get(grantRef(db, id)) : await grantRef(db, id).get();
  const d = snap.data();
  return d ? grantFrom(snap.id, d) : null;
}

/** The person's grants, newest first, ended ones too; read in `tx` when given. */
export async function ofPerson(db: Firestore, personId: string, tx?: Transaction): Promise<OidcGrant[]> {
  const query = db.collection(GRANTS).where("personId", "==", personId);
  const snap = tx ? await tx.get(query) : await query.get();
  return snap.docs.map((d) => grantFrom(d.id, d.data())).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

/** Moves the grant on to its next refresh token and access token. */
export function rotate(
  db: Firestore,
  tx: Transaction,
  id: string,
  change: Pick<OidcGrant, "tokenId" | "accessTokenHash" | "lastUsedAt">,
): void {
  tx.update(grantRef(db, id), change);
}

export function end(db: Firestore, tx: Transaction, id: string, at: Date, because: GrantEnd): void {
  tx.update(grantRef(db, id), { endedAt: at, endedBecause: because, accessTokenHash: null });
}

function tokenFrom(id: string, d: DocumentData): RefreshTokenRecord {
  return {
    id,
    grantId: String(d.grantId),
    clientId: String(d.clientId),
    personId: String(d.personId),
    createdAt: toDate(d.createdAt),
  };
}

function grantFrom(id: string, d: DocumentData): OidcGrant {
  return {
    id,
    clientId: String(d.clientId),
    uid: String(d.uid),
    personId: String(d.personId),
    scopes: stringList(d.scopes),
    resource: typeof d.resource === "string" ? d.resource : null,
    resourceSince: optionalDate(d.resourceSince),
    authTime: optionalDate(d.authTime),
    amr: stringList(d.amr),
    acr: optionalString(d.acr),
    sid: optionalString(d.sid),
    createdAt: toDate(d.createdAt),
    lastUsedAt: toDate(d.lastUsedAt),
    expiresAt: toDate(d.expiresAt),
    tokenId: String(d.tokenId),
    accessTokenHash: optionalString(d.accessTokenHash),
    endedAt: optionalDate(d.endedAt),
    endedBecause: (optionalString(d.endedBecause) as GrantEnd | null) ?? null,
  };
}
