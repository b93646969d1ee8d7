/**
 * The pure decisions of passkeys: which challenge may be used, what a signature counter says,
 * and how a passkey sign-in is named in RFC 8176's words. No I/O here.
 */
import { MINUTE } from "../../clock";
import type { ChallengePurpose, PasskeyChallenge } from "../model/passkey";
import { AMR } from "../sessions/amr";

/** From options to verify: time for the person to touch their authenticator, and no more. */
export const CHALLENGE_LIFETIME_MS = 5 * MINUTE;
/** Passkeys one person may hold: enough for every device they own, not a store for anyone's keys. */
export const PASSKEYS_PER_PERSON = 20;
/** The longest name a passkey may be given, in characters. */
export const NAME_MAX = 60;

/**
 * The challenge a response carries in its `clientDataJSON` (base64url JSON), or null when that is
 * not readable: the key the stored challenge is looked up by. The signature over it is checked later.
 */
export function challengeOf(clientDataJSON: string): string | null {
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8"));
    const challenge = (data as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === "string" && challenge.length > 0 && challenge.length <= 128 ? challenge : null;
  } catch {
    return null;
  }
}

/** Whether a stored challenge may be used now, for this purpose: known, unused and under five minutes old. */
export function challengeUsable(
  stored: PasskeyChallenge | null,
  purpose: ChallengePurpose,
  now: Date,
): stored is PasskeyChallenge {
  return (
    stored !== null &&
    stored.purpose === purpose &&
    stored.usedAt === null &&
    now.getTime() < stored.expiresAt.getTime()
  );
}

export type CounterVerdict = "advance" | "regressed";

/**
 * What an assertion's signature counter says against the one stored. An authenticator that keeps
 * no counter (most synced passkeys) always says 0, and 0 after 0 proves nothing either way. Once
 * either is above 0, each use must count up: a counter that stands still or goes back means two
 * copies of the key are signing (a cloned authenticator), and the credential is not to be trusted.
 */
export function counterVerdict(stored: number, presented: number): CounterVerdict {
  if (stored === 0 && presented === 0) return "advance";
  return presented > stored ? "advance" : "regressed";
}

/**
 * How a passkey sign-in is named (RFC 8176): `user`, since the authenticator verified its user
 * (required on every ceremony), and `swk` for a key that may be synced beyond the device (backup
 * eligible: a synced passkey is held in software by a passkey manager) or `hwk` for one bound to
 * its device. Eligibility rather than the backup state: a key that may be copied at any time is
 * not bound to one device, whether or not it has been copied yet. With attestation `none` the
 * flag is the authenticator's own word, not a certified fact.
 */
export function passkeyMethods(backupEligible: boolean): string[] {
  return [backupEligible ? AMR.softwareKey : AMR.hardwareKey, AMR.userPresent];
}

/** The WebAuthn user handle of a person: their id, as bytes (random, and no address or name). */
export function userHandleOf(personId: string): string {
  return Buffer.from(personId, "utf8").toString("base64url");
}

/** How a session came in, as its record keeps it (store/sessions). */
export interface SessionWay {
  address: string | null;
  passkeyId: string | null;
  codesMadeAt: Date | null;
}

/**
 * The address a session came in through, which what it adds (a passkey, recovery codes) records
 * and goes with: the address of the code that opened it, or of the passkey or the recovery codes
 * that did, as they recorded it when they were added. Otherwise a passkey added from a code's
 * session could add a second one from its own sign-in, or make codes, which would outlive the
 * address. null for any other way in (a session with no record, a provider's sign-in).
 */
export function addressBehind(
  session: SessionWay | null,
  passkeys: ReadonlyArray<{ id: string; address: string | null }>,
  codes: { madeAt: Date; address: string | null } | null,
): string | null {
  if (session === null) return null;
  if (session.address !== null) return session.address;
  if (session.passkeyId !== null) return passkeys.find((p) => p.id === session.passkeyId)?.address ?? null;
  if (session.codesMadeAt !== null && codes !== null && codes.madeAt.getTime() === session.codesMadeAt.getTime())
    return codes.address;
  return null;
}
