import { FieldValue } from "firebase-admin/firestore";
import type { Collection } from "./collections";
import { optionalDate, optionalString, type Firestore, type Transaction } from "./db";
import type { Lift } from "../core/model/passkey-rule";
import type { Role } from "../core/model/person";

/**
 * `signInRules/passkey`: the operator's word on the passkey rule (core/people/acting), over the
 * deployment's PASSKEY_ROLES: the roles it names (absent: the deployment's), and the people it is
 * lifted for, each until when. One small document: the administrators' gate reads it on every
 * request, and each privileged action again in its own transaction, so a change the CLI makes
 * counts at once everywhere.
 */
const RULES: Collection = "signInRules";

function ref(db: Firestore) {
  return db.collection(RULES).doc("passkey");
}

export interface StoredPasskeyRule {
  /** null: the deployment's PASSKEY_ROLES. */
  roles: Role[] | null;
  /** Who set the roles, and when (null with them). */
  setBy: string | null;
  setAt: Date | null;
  lifts: Record<string, Lift>;
}

function liftsOf(value: unknown): Record<string, Lift> {
  if (typeof value !== "object" || value === null) return {};
  const lifts: Record<string, Lift> = {};
  for (const [personId, raw] of Object.entries(value as Record<string, unknown>)) {
    const l = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
    const until = optionalDate(l.until);
    const at = optionalDate(l.at);
    if (until !== null && at !== null) lifts[personId] = { until, at, by: String(l.by ?? "") };
  }
  return lifts;
}

export async function readPasskeyRule(db: Firestore, tx?: Transaction): Promise<StoredPasskeyRule> {
  const snap = tx ? await tx.get(ref(db)) : await ref(db).get();
  const roles: unknown = snap.get("roles");
  const named = Array.isArray(roles);
  return {
    roles: named ? roles.filter((r): r is Role => r === "admin" || r === "user") : null,
    setBy: named ? optionalString(snap.get("setBy")) : null,
    setAt: named ? optionalDate(snap.get("setAt")) : null,
    lifts: liftsOf(snap.get("lifts")),
  };
}

/** Sets the roles the rule names, by whom and when; null hands the rule back to the deployment's PASSKEY_ROLES. */
export function setRoles(
  db: Firestore,
  tx: Transaction,
  roles: Role[] | null,
  set: { by: string; at: Date } | null = null,
): void {
  const gone = FieldValue.delete();
  tx.set(
    ref(db),
    roles === null
      ? { roles: gone, setBy: gone, setAt: gone }
      : { roles, setBy: set?.by ?? null, setAt: set?.at ?? null },
    { merge: true },
  );
}

/** Lifts the rule for a person until `lift.until`, or (null) ends their lift. */
export function setLift(db: Firestore, tx: Transaction, personId: string, lift: Lift | null): void {
  tx.set(ref(db), { lifts: { [personId]: lift ?? FieldValue.delete() } }, { merge: true });
}
