/**
 * How a person authenticated, in the values of RFC 8176 (Authentication Method Reference
 * Values): carried from the sign-in into the session, and from the session into the OpenID
 * Connect ID token's `amr`.
 *
 * The service mints a custom token for every sign-in it makes itself (an email code, a bridge,
 * a passkey) and records the method in it as the developer claim `sign_in_methods` (the provider
 * reserves `amr` for itself); the ID token the browser gets for it carries the claim back.
 */
import { RECOVERY_METHOD } from "../model/passkey-rule";

export const AMR = {
  /** A one-time code sent to the person (an email code). */
  otp: "otp",
  /** Federated: another provider vouched for the person (a bridge). */
  federated: "fed",
  /** Proof of a hardware-bound key (a passkey in a device's authenticator). */
  hardwareKey: "hwk",
  /** Proof of a software-held key (a synced passkey). */
  softwareKey: "swk",
  /** The authenticator verified its user (a PIN or biometric). */
  userPresent: "user",
  /** A password at the identity provider. */
  password: "pwd",
  /** A code sent by text message. */
  sms: "sms",
  /** One of the person's one-time recovery codes (core/passkeys/recovery-codes): the service's own value. */
  recoveryCode: RECOVERY_METHOD,
} as const;

/** The developer claim of a custom token that carries the methods. */
export const METHODS_CLAIM = "sign_in_methods";
/** The claim of a custom token (and the ID token it becomes) naming the address a code proved. */
export const ADDRESS_CLAIM = "signed_in_address";
/** The claim naming the passkey a passkey sign-in verified (its id). */
export const PASSKEY_CLAIM = "signed_in_passkey";
/** The claim naming a recovery code's set, by when it was made (milliseconds since the epoch). */
export const CODES_CLAIM = "signed_in_codes";

const KNOWN = new Set<string>(Object.values(AMR));

/**
 * The methods an ID token says: the service's own claim when the sign-in was one of ours, else
 * what the provider's `sign_in_provider` implies (a password, a text message, another provider).
 */
export function methodsOf(claim: unknown, provider: string): string[] {
  if (Array.isArray(claim))
    return [...new Set(claim.filter((m): m is string => typeof m === "string" && KNOWN.has(m)))];
  if (provider === "password") return [AMR.password];
  if (provider === "phone") return [AMR.sms];
  if (provider === "custom" || provider === "anonymous" || provider === "unknown") return [];
  return [AMR.federated];
}
