/**
 * The passkey rule on the stack's own functions, for the browser files that journey with it on:
 * turned on in the stack's project for the file (the operator's word, as `passkey-rule set admin`
 * writes it), and handed back to the stack's setting (off) after it. The stack's project is one
 * file's at a time (test/support/environment.cjs), so no other file meets it on.
 */
import type { Firestore } from "firebase-admin/firestore";
import * as signInRules from "../../src/store/sign-in-rules";

export function usePasskeyRuleOnStack(db: Firestore): void {
  const set = (roles: Array<"admin"> | null) =>
    db.runTransaction(async (tx) => signInRules.setRoles(db, tx, roles, { by: "test", at: new Date(0) }));
  beforeAll(() => set(["admin"]));
  afterAll(() => set(null));
}
