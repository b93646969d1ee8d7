/**
 * What the passkey rule tells people (core/people/acting), as security notices: a person made an
 * administrator is told to add a passkey, and by when, and which keys the promotion removed (a
 * passkey added while the rule holds them is told by core/passkeys/registration, as these are:
 * at once, whatever NOTIFY_* says); a recovery code used, or presented again after its use, and a
 * new set of codes made; the operator lifting the rule for someone, or
 * clearing their passkeys and codes, told to them and to every other administrator. Each is sent
 * whatever NOTIFY_* says: they are what the rule promises its people, and an attacker holding a
 * code or the operator's credentials must not be able to act unseen.
 */
import type { SecurityEvent } from "./security-notices";
import { ENROLMENT_GRACE_DAYS } from "../model/passkey-rule";

const day = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/**
 * To a person just made an administrator, where the rule holds administrators: worded from what
 * they hold after it. The passkeys and recovery codes they held before it (`removed`, by name, and
 * whether there were codes) went with the promotion (core/people/promotion-keys); a passkey they
 * still hold (`held`: a role the rule held before too) is what they act with, and an emailed code
 * then adds none.
 */
export function enrolmentEvent(
  ends: Date | null,
  from: string,
  held: number,
  removed: { passkeys: string[]; codes: boolean } = { passkeys: [], codes: false },
): SecurityEvent {
  const gone = [
    removed.passkeys.length === 0 ? null : `your passkeys (${removed.passkeys.map((n) => `“${n}”`).join(", ")})`,
    removed.codes ? "your recovery codes" : null,
  ].filter((x) => x !== null);
  return {
    kind: "access",
    lines: [
      "You were made an administrator. Administrators act as one only from a sign-in with a passkey: an emailed code alone can be relayed by a look-alike page.",
      ...(gone.length === 0
        ? []
        : [
            `We removed ${gone.join(" and ")}: they were made when an emailed code was enough to make them, so they cannot be an administrator's.`,
          ]),
      held > 0
        ? "Sign in with your passkey to act as one, and make your recovery codes on your account page if you have none."
        : ends === null
          ? "The days when an emailed code could add your first passkey are over: sign in with a recovery code to add one, or ask the operator."
          : `Sign in and add a passkey on your account page before ${day(ends)} (${ENROLMENT_GRACE_DAYS} days): until then an emailed code is enough to add your first one. Then make your recovery codes there.`,
    ],
    from,
  };
}

/** A recovery code signed the person in: how many are left. */
export function recoveryCodeUsedEvent(left: number, from: string): SecurityEvent {
  return {
    kind: "waysIn",
    lines: [
      `One of your recovery codes was used to sign in. It works no more; ${left === 0 ? "none is left" : `${left} ${left === 1 ? "is" : "are"} left`}. That sign-in may add a passkey, and nothing else beyond your own account. If it was not you, your codes are in someone else's hands: make new ones, which ends these.`,
    ],
    from,
    urgent: true,
  };
}

/** A recovery code already used was presented again: the codes are known to someone. */
export function recoveryCodeReusedEvent(from: string): SecurityEvent {
  return {
    kind: "waysIn",
    lines: [
      "Someone tried to sign in with one of your recovery codes that was already used, and was refused. If it was not you, your codes are in someone else's hands: make new ones on your account page, which ends these.",
    ],
    from,
  };
}

/** New recovery codes were made, and the old ones ended. */
export function recoveryCodesMadeEvent(count: number, from: string): SecurityEvent {
  return {
    kind: "waysIn",
    lines: [`New recovery codes were made for your account (${count}); any you had before work no more.`],
    from,
  };
}

/** To the person the operator lifted the rule for, and (`about`) to every other administrator. */
export function ruleLiftedEvent(until: Date, from: string, about: string | null): SecurityEvent {
  const who = about === null ? "you" : about;
  return {
    kind: "access",
    lines: [
      `The operator lifted the passkey rule for ${who} until ${day(until)}: until then ${about === null ? "you act" : "they act"} as an administrator from any sign-in, an emailed code too. Each act is recorded as made under the lifted rule.`,
    ],
    from,
    urgent: true,
  };
}

/** To the person whose passkeys and recovery codes the operator cleared, and (`about`) to every other administrator. */
export function passkeysClearedEvent(passkeys: number, ends: Date, from: string, about: string | null): SecurityEvent {
  const whose = about === null ? "your" : `${about}'s`;
  return {
    kind: "waysIn",
    lines: [
      `The operator removed ${whose} passkeys (${passkeys}) and recovery codes. Until ${day(ends)} a sign-in with an emailed code may add a first passkey again.`,
    ],
    from,
    urgent: true,
  };
}
