/**
 * The passkey rule, as the domain knows it: the roles whose holders act in that role only from a
 * sign-in with a passkey, and the people the operator has lifted it for, each until when. What
 * the rule decides of a person is decided once, in core/people/acting. Imports only the records:
 * the pages word their requests for a passkey from it.
 */
import type { Role } from "./person";

/** The RFC 8176 methods of a passkey sign-in: a key bound to its device (`hwk`), or a synced one (`swk`). */
export const PASSKEY_METHODS: readonly string[] = ["hwk", "swk"];

/**
 * How a sign-in by recovery code is named among its methods. RFC 8176 registers no value for a
 * printed one-time secret (`otp` is the email code's here, `kba` is knowledge), and lets parties
 * agree on others: this one is the service's.
 */
export const RECOVERY_METHOD = "rec";

/** Whether a sign-in's methods show a passkey: the phishing-resistant sign-in the rule asks for. */
export function byPasskey(amr: readonly string[]): boolean {
  return amr.some((m) => PASSKEY_METHODS.includes(m));
}

/** The operator's lift of the rule for one person (the break-glass): until when, since when, by whom. */
export interface Lift {
  until: Date;
  at: Date;
  by: string;
}

export interface PasskeyRule {
  /** The roles it names; empty: the rule is off. */
  roles: Role[];
  /** The people it is lifted for, by person id; a lift past its `until` lifts nothing. */
  lifts: Record<string, Lift>;
}

/**
 * How long after a promotion to a role the rule names (or the operator's clearing of their
 * passkeys) a person who holds no passkey may add one after signing in another way: a week,
 * for the person to reach a device and the account page. After it, only a passkey sign-in, a
 * recovery code or the operator lets them add one.
 */
export const ENROLMENT_GRACE_DAYS = 7;
export const ENROLMENT_GRACE_MS = ENROLMENT_GRACE_DAYS * 24 * 3600_000;

/** The longest the operator may lift the rule for one person at a time. */
export const LIFT_MAX_HOURS = 24;
