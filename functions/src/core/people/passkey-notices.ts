/**
 * What the passkey rule tells people (core/people/acting), as security notices: a person made an
 * administrator is told to add a passkey, and by when. Sent whatever NOTIFY_* says: it is what the
 * rule asks of its people.
 */
import type { SecurityEvent } from "./security-notices";
import { ENROLMENT_GRACE_DAYS } from "../model/passkey-rule";

const day = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** To a person just made an administrator, where the rule holds administrators. */
export function enrolmentEvent(ends: Date | null, from: string): SecurityEvent {
  return {
    kind: "access",
    lines: [
      "You were made an administrator. Administrators act as one only from a sign-in with a passkey: an emailed code alone can be relayed by a look-alike page.",
      ends === null
        ? "Add a passkey on your account page from a sign-in with one of your passkeys or a recovery code, or ask the operator."
        : `Sign in and add a passkey on your account page before ${day(ends)} (${ENROLMENT_GRACE_DAYS} days): until then an emailed code is enough to add your first one. Then make your recovery codes there.`,
    ],
    from,
  };
}
