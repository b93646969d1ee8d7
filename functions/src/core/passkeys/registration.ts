/**
 * Adding a passkey on the account page: an approved person, signed in within the last five
 * minutes, asks for options (a challenge bound to their session) and answers with what their
 * authenticator made: a discoverable credential, its user verified, attestation `none`.
 */
import {
  generateRegistrationOptions,
  verifyRegistrationResponse,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { Deps } from "../deps";
import * as challenges from "../../store/passkey-challenges";
import * as passkeys from "../../store/passkeys";
import * as people from "../../store/people";
import * as recoveryCodes from "../../store/recovery-codes";
import * as sessionRecords from "../../store/sessions";
import { AppError, ensure, type ErrorCode } from "../errors";
import { sha256 } from "../secrets";
import { passkeysEvent, queueNotice, recipientOf } from "../notices/security-notices";
import { ensureRecentSignIn, mayAddPasskey, passkeyRule, ruledBy } from "../people/acting";
import { ALGORITHMS, expected, relyingParty, unlessRefused } from "./relying-party";
import { addressBehind, CHALLENGE_LIFETIME_MS, challengeOf, challengeUsable, PASSKEYS_PER_PERSON } from "./rules";
import { type Person } from "../model/person";
import type { Passkey } from "../model/passkey";

type RegistrationDeps = Pick<Deps, "store" | "transaction" | "clock" | "random" | "config" | "log" | "mailQueue">;

/** Who is adding a passkey: the session's person, its account, the session's key, its sign-in time and methods. */
export interface Registrant {
  person: Person;
  uid: string;
  sessionKey: string;
  authTime: Date;
  /** How the session began (RFC 8176): under the passkey rule, not every sign-in may add one. */
  amr: string[];
  /** The browser and system it is added from ("Firefox on Linux"), for the person's notice. */
  from: string;
}

/** The transports a browser may report (WebAuthn §5.8.4); anything else is dropped. */
const TRANSPORTS = new Set(["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"]);

/** The name a passkey gets when the page sends none. */
export const DEFAULT_NAME = "Passkey";

/**
 * A stolen session cookie must not be enough to plant an attacker's passkey on the account: the
 * person must have proved themselves moments ago (step-up), as POST /auth/verify asks of a new session.
 */
const ensureFreshRegistrant = (deps: Pick<Deps, "clock">, registrant: Registrant): void =>
  ensureRecentSignIn(deps, registrant.authTime, "passkey_sign_in_too_old");

/** POST /auth/passkeys/register/options: a challenge for this session, and the person's passkeys to exclude. */
export async function registrationOptions(
  deps: RegistrationDeps,
  registrant: Registrant,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  ensureFreshRegistrant(deps, registrant);
  const { person } = registrant;
  const challenge = deps.random.token(32);
  const now = deps.clock.now();
  const [held, rule] = await Promise.all([passkeys.listByPerson(deps.store, person.id), passkeyRule(deps)]);
  // Asked here so the page can say so before the person touches their authenticator; decided at verify.
  ensure(mayAddPasskey(rule, person, registrant.amr, held.length, now), "passkey_required");
  await challenges.save(deps.store, {
    hash: sha256(challenge),
    purpose: "register",
    personId: person.id,
    sessionKey: registrant.sessionKey,
    binding: null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + CHALLENGE_LIFETIME_MS),
    usedAt: null,
  });
  const rp = relyingParty(deps.config);
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: person.emails[0] ?? (person.name || person.id),
    userDisplayName: person.name,
    userID: Buffer.from(person.id, "utf8"),
    challenge: Buffer.from(challenge, "base64url"),
    timeout: CHALLENGE_LIFETIME_MS,
    attestationType: "none",
    // An authenticator that already holds one of the person's passkeys is not asked to make another.
    excludeCredentials: held.map((p) => ({ id: p.credentialId, transports: p.transports })),
    authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
    supportedAlgorithmIDs: ALGORITHMS,
  });
}

type Outcome = { passkey: Passkey } | { refused: ErrorCode };

/**
 * POST /auth/passkeys/register/verify: the challenge must be this session's, unused and under
 * five minutes old; it is used in one transaction with everything the registration decides (the
 * person still approved, the attestation verifying, the credential new, the person under the
 * limit), so of concurrent answers to one challenge one registers. A challenge that was this
 * session's is spent even when the rest is refused.
 */
export async function registerPasskey(
  deps: RegistrationDeps,
  registrant: Registrant,
  response: RegistrationResponseJSON,
  name: string | null,
): Promise<Passkey> {
  ensureFreshRegistrant(deps, registrant);
  const { store } = deps;
  const personId = registrant.person.id;
  const challenge = challengeOf(response.response.clientDataJSON);
  ensure(challenge, "passkey_challenge_invalid");
  const hash = sha256(challenge);
  const id = sha256(response.id);
  const outcome = await deps.transaction(async (tx): Promise<Outcome> => {
    // Every read first, as a transaction must.
    const [stored, current, held, taken, rule, session] = await Promise.all([
      challenges.findByHash(store, hash, tx),
      people.findById(store, personId, tx),
      passkeys.listByPerson(store, personId, tx),
      passkeys.findById(store, id, tx),
      passkeyRule(deps, tx),
      sessionRecords.findById(store, registrant.sessionKey, tx),
    ]);
    const codes = session?.codesMadeAt ? await recoveryCodes.findByPerson(store, personId, tx) : null;
    const now = deps.clock.now();
    const ours =
      challengeUsable(stored, "register", now) &&
      stored.personId === personId &&
      stored.sessionKey === registrant.sessionKey;
    // Another session's challenge is not this request's to spend.
    if (!ours) return { refused: "passkey_challenge_invalid" };
    challenges.markUsed(store, tx, hash, now);
    // A session ended meanwhile (its passkey removed, say) adds nothing, whatever another
    // instance's copy of the person still says of it.
    if (current?.endedSessions?.[registrant.sessionKey] !== undefined) return { refused: "unauthorized" };
    if (current?.status !== "approved")
      return { refused: current?.status === "rejected" ? "forbidden_rejected" : "forbidden_pending" };
    // The passkey rule, on the person as this transaction reads them (a promotion, a lift ended).
    if (!mayAddPasskey(rule, current, registrant.amr, held.length, now)) return { refused: "passkey_required" };
    const made = await verified(deps, response, challenge);
    if (made === null) return { refused: "passkey_registration_failed" };
    if (taken !== null) return { refused: "passkey_exists" };
    if (held.length >= PASSKEYS_PER_PERSON) return { refused: "passkey_limit" };
    const passkey: Passkey = {
      id,
      personId,
      uid: registrant.uid,
      credentialId: made.credential.id,
      publicKey: Buffer.from(made.credential.publicKey).toString("base64url"),
      counter: made.credential.counter,
      transports: (response.response.transports ?? []).filter((t) => TRANSPORTS.has(t)),
      aaguid: made.aaguid,
      backupEligible: made.credentialDeviceType === "multiDevice",
      backedUp: made.credentialBackedUp,
      name: name ?? DEFAULT_NAME,
      // Goes with the address the session came in through, should that be taken off the person.
      address: addressBehind(session, held, codes),
      createdAt: now,
      lastUsedAt: null,
      suspectAt: null,
    };
    passkeys.create(store, tx, passkey);
    // The person hears of it, by mail, whoever added it: a stolen session that plants a passkey is told of.
    const added = passkeysEvent("added", [passkey.name], registrant.from);
    // Where the rule holds them it is an administrator's key (in their enrolment's days, one an
    // email code may add): told at once, never folded into a summary, at every address they hold,
    // each its own mail, whatever NOTIFY_WAYS_IN says, so that no notice filling the hour and no
    // address made the first keeps it from them.
    if (ruledBy(rule, current))
      for (const to of current.emails) queueNotice(deps, tx, { personId, to }, { ...added, urgent: true });
    else if (deps.config.notices.waysIn) queueNotice(deps, tx, recipientOf(current), added);
    return { passkey };
  });
  if ("refused" in outcome) throw new AppError(outcome.refused);
  return outcome.passkey;
}

/** What the authenticator made, once its attestation checks out; null when it does not. */
async function verified(deps: RegistrationDeps, response: RegistrationResponseJSON, challenge: string) {
  const result = await unlessRefused(deps, "passkey registration not verified", () =>
    verifyRegistrationResponse({ response, ...expected(deps.config, challenge), supportedAlgorithmIDs: ALGORITHMS }),
  );
  // The id the browser reported must be the one the authenticator signed into its data.
  return result?.verified && result.registrationInfo.credential.id === response.id ? result.registrationInfo : null;
}
