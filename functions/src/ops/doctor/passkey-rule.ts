/**
 * What `doctor` says of the passkey rule (core/people/acting): on a real project it must hold
 * administrators, whose power is every site's door, and doctor fails while it does not; on the
 * local stack it is off by default (the seeded administrator signs in by password), and said so.
 */
import type { Role } from "../../core/model/person";

export function passkeyRuleVerdict(roles: Role[], local: boolean): { ok: boolean; advice: string | null } {
  if (roles.includes("admin")) return { ok: true, advice: null };
  return local
    ? {
        ok: true,
        advice: "off on the local stack: npm start -- --passkey-rule, or passkey-rule set admin, turns it on",
      }
    : { ok: false, advice: "turn it on: passkey-rule set admin (or PASSKEY_ROLES=admin)" };
}
