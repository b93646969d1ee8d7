/**
 * Recovery codes: ten one-time codes a person makes on their account page, right after a sign-in
 * with a passkey, for the day the passkey is lost. Shown once, kept only as keyed hashes (core/
 * pepper, as email codes are). Each signs in once, with the person's address; every guess counts
 * towards the address's failure ceiling (core/email-codes/address-failures), every use is told to
 * the person, and so is a code presented again after its use. A sign-in by recovery code grants a
 * member's powers and one thing more: changing the person's passkeys (core/people/acting
 * `mayChangePasskeys`). Making new codes ends the old ones.
 */
import type { Deps } from "../deps";
import * as people from "../../store/people";
import * as recoveryCodes from "../../store/recovery-codes";
import * as passkeys from "../../store/passkeys";
import * as sessionRecords from "../../store/sessions";
import { sessionsThrough } from "../people/sessions-through";
import { addressBehind } from "./rules";
import { AppError, ensure, limitReached, type ErrorCode } from "../errors";
import { canonicalEmail } from "../email-address";
import { constantTimeEqual } from "../secrets";
import { pepperRing, recoveryCodeHash, recoveryRunIds, type PepperKey } from "../pepper";
import { translateFailure } from "../failures";
import { decideAccess } from "../people/access";
import { addressRunIn } from "../email-codes/address-failures";
import { admitGuess } from "../email-codes/send-budgets";
import type { Caller } from "../model/caller";
import { queueNotice, recipientOf } from "../notices/security-notices";
import { recoveryCodeReusedEvent, recoveryCodesMadeEvent, recoveryCodeUsedEvent } from "../notices/passkey-notices";
import { ensureRecentSignIn } from "../people/acting";
import { AMR } from "../sessions/amr";
import { byPasskey } from "../model/passkey-rule";
import type { Person } from "../model/person";
import type { Random } from "../../random";

/** How many codes a set holds. */
export const RECOVERY_CODES = 10;
/** The letters a code is made of: Crockford's base32, lowercase, no i, l, o or u to misread. */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
/** Characters per code: 10, 50 bits, far beyond reach of the failure ceiling's hundred guesses a lock. */
const LENGTH = 10;

/** A code as shown: two groups of five, "k3m9q-x2v7d". */
export function newCode(random: Pick<Random, "int">): string {
  const chars = Array.from({ length: LENGTH }, () => ALPHABET[random.int(0, ALPHABET.length)] as string).join("");
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/**
 * A code as typed: case, spaces and dashes go, and the letters Crockford's base32 reads as digits
 * (o, i, l) are read so; anything else that is not ten of its characters is no code, refused
 * before anything is counted.
 */
export function normaliseRecoveryCode(raw: string): string | null {
  const plain = raw.toLowerCase().replace(/[\s-]/g, "").replace(/o/g, "0").replace(/[il]/g, "1");
  if (plain.length !== LENGTH || [...plain].some((c) => !ALPHABET.includes(c))) return null;
  return `${plain.slice(0, 5)}-${plain.slice(5)}`;
}

type MakeDeps = Pick<
  Deps,
  "store" | "transaction" | "clock" | "random" | "pepper" | "config" | "mailQueue" | "log" | "personCache"
>;

/** Who makes codes: the person, from a session (its key) begun with a passkey, at when, from which browser. */
export interface CodeMaker {
  person: Person;
  sessionKey: string;
  signedInAt: Date;
  amr: string[];
  from: string;
}

/**
 * POST /auth/passkeys/recovery-codes: a new set, shown this once; the set before it ends in the
 * same write, with every session its codes opened, and the person is told. Only from a sign-in
 * with a passkey within the step-up window: a stolen session, or one begun with a relayed email
 * code, must not be able to mint the codes that would then stand in for the passkey. The set
 * records the address the session came in through (`addressBehind`), and goes with it.
 */
export async function makeRecoveryCodes(deps: MakeDeps, maker: CodeMaker): Promise<string[]> {
  ensure(byPasskey(maker.amr), "passkey_required", "Recovery codes are made right after a sign-in with a passkey");
  ensureRecentSignIn(deps, maker.signedInAt, "passkey_required", "Sign in with your passkey again to make new codes");
  const key = pepperRing(deps)[0] as PepperKey;
  const personId = maker.person.id;
  const codes = Array.from({ length: RECOVERY_CODES }, () => newCode(deps.random));
  const ended = await deps.transaction(async (tx) => {
    const [current, before, session, held] = await Promise.all([
      people.findById(deps.store, personId, tx),
      recoveryCodes.findByPerson(deps.store, personId, tx),
      sessionRecords.findById(deps.store, maker.sessionKey, tx),
      passkeys.listByPerson(deps.store, personId, tx),
    ]);
    ensure(current?.status === "approved", "forbidden");
    // A session ended meanwhile (its passkey removed) makes nothing, whatever a cached copy says.
    ensure(current.endedSessions?.[maker.sessionKey] === undefined, "unauthorized");
    // Whoever used one of the old codes keeps nothing: "make new ones, which ends these".
    const through = await sessionsThrough(deps, tx, current, { codesMadeAt: before?.madeAt ?? null });
    recoveryCodes.replace(deps.store, tx, {
      personId,
      kid: key.kid,
      madeAt: deps.clock.now(),
      address: addressBehind(session, held, null),
      codes: codes.map((code) => ({ hash: recoveryCodeHash(key, personId, code), usedAt: null })),
    });
    through.end();
    queueNotice(deps, tx, recipientOf(current), recoveryCodesMadeEvent(codes.length, maker.from));
    return through.ending.length;
  });
  if (ended > 0) deps.personCache.evict(personId);
  return codes;
}

/** GET /auth/passkeys/recovery-codes: when the set was made and how many are left; never the codes. */
export async function recoveryCodesLeft(
  deps: Pick<Deps, "store">,
  personId: string,
): Promise<{ madeAt: string | null; left: number }> {
  const set = await recoveryCodes.findByPerson(deps.store, personId);
  return { madeAt: set?.madeAt.toISOString() ?? null, left: set?.codes.filter((c) => c.usedAt === null).length ?? 0 };
}

/**
 * How many people's recovery codes are keyed with pepper key `kid` (`keys retire-code-pepper`
 * refuses while any are: a code cannot be hashed again without the code, so they would stop
 * working with no word to their holders).
 */
export function recoveryCodesKeyedWith(deps: Pick<Deps, "store">, kid: string): Promise<number> {
  return recoveryCodes.countKeyedWith(deps.store, kid);
}

type SignInDeps = Pick<
  Deps,
  "store" | "transaction" | "clock" | "random" | "pepper" | "config" | "mailQueue" | "log" | "identity"
>;

type Decision = { uid: string; madeAt: Date } | { refused: ErrorCode; until?: Date | null };

/**
 * Which code of the set `code` is, under the key the set was made with, comparing every one in
 * constant time: the index of an unused one, of a used one, or null. For an address with no set,
 * the same hash is made and compared against nothing, so the work is the same whatever the address.
 */
function matchIn(
  ring: PepperKey[],
  set: recoveryCodes.RecoveryCodes | null,
  standIn: string,
  code: string,
): { index: number; used: boolean } | null {
  const key = set === null ? (ring[0] as PepperKey) : ring.find((k) => k.kid === set.kid);
  if (key === undefined) return null;
  const hash = recoveryCodeHash(key, set?.personId ?? standIn, code);
  let found: { index: number; used: boolean } | null = null;
  (set?.codes ?? []).forEach((stored, index) => {
    if (constantTimeEqual(stored.hash, hash)) found = { index, used: stored.usedAt !== null };
  });
  return found;
}

/**
 * POST /auth/passkeys/recovery/sign-in: a custom token for the person whose address and unused
 * recovery code these are, its methods `rec`. First the guess is let through its client's and
 * network's budgets of guesses (core/email-codes/send-budgets `admitGuess`), before anything of the
 * address is read. Then one transaction on the address's run of recovery-code failures
 * (core/email-codes/address-failures, the `recovery` door) and the person's set decides it, so of
 * concurrent uses of one code one wins: while the run is locked nothing is compared; a wrong code
 * counts a failure, at every address alike; a right one is used, and the person told.
 *
 * Nothing tells a stranger whether the address is a person's, or whether that person holds codes:
 * an address on nobody, a person without codes, a wrong code and a used one are answered alike;
 * every one counts towards the same ceiling, so the lock comes after as many guesses everywhere
 * (and locks recovery codes only, never email sign-in); and the transaction reads the same
 * documents for each (the run, the query for the person, and a set: the person's, or for an
 * address on nobody the one a stand-in id names, which no person has), and makes the same hash.
 * The code is judged before anything is said of the account.
 */
export async function signInWithRecoveryCode(
  deps: SignInDeps,
  rawEmail: string,
  rawCode: string,
  from: Caller,
): Promise<string> {
  const code = normaliseRecoveryCode(rawCode);
  ensure(code, "recovery_code_malformed");
  const ring = pepperRing(deps);
  // Counted before anything else, however the address is written: a guess is a guess.
  await admitGuess(deps, ring[0] as PepperKey, from);
  const address = canonicalEmail(rawEmail);
  ensure(address, "recovery_code_invalid");
  // The set an address on nobody reads: a keyed id of the address, of a shape no person's id has.
  const standIn = recoveryRunIds(ring, address)[0] as string;
  const decision = await deps.transaction(async (tx): Promise<Decision> => {
    const run = await addressRunIn(deps, tx, address, "recovery");
    const person = await people.findByEmail(deps.store, address, tx);
    const set = await recoveryCodes.findByPerson(deps.store, person?.id ?? standIn, tx);
    const now = deps.clock.now();
    if (run.locked) return { refused: "email_code_address_locked", until: run.lockedUntil };
    const match = matchIn(ring, set, standIn, code);
    if (person === null || set === null || match === null || match.used) {
      // Counted wherever it is made, so the ceiling is reached after as many guesses at an
      // address with codes as at one without: the lock says nothing of who holds codes. It is
      // recovery codes' own, so guessing locks nobody's email sign-in.
      run.record("failed");
      // A used code presented again: the codes are in someone's hands, and their owner should know.
      if (person !== null && match?.used)
        queueNotice(deps, tx, recipientOf(person), recoveryCodeReusedEvent("a sign-in with a recovery code"));
      return { refused: "recovery_code_invalid" };
    }
    // The code was right: only now is anything said of the account.
    const refusal = decideAccess(person);
    if (refusal !== null) return { refused: refusal === "rejected" ? "signin_rejected" : "signin_pending" };
    const uid = person.uids[0];
    if (uid === undefined) return { refused: "recovery_code_invalid" };
    recoveryCodes.markUsed(deps.store, tx, set, match.index, now);
    run.record("valid");
    const left = set.codes.filter((c, i) => c.usedAt === null && i !== match.index).length;
    queueNotice(deps, tx, recipientOf(person), recoveryCodeUsedEvent(left, "a sign-in with a recovery code"));
    return { uid, madeAt: set.madeAt };
  });
  if ("refused" in decision) {
    if (decision.until === undefined || decision.until === null) throw new AppError(decision.refused);
    throw limitReached(decision.refused, deps.clock.now(), decision.until);
  }
  return translateFailure(deps, { code: "signin_failed", log: "recovery code sign-in: custom token failed" }, () =>
    // The session it opens names the set: new codes, or none, end it.
    deps.identity.createCustomToken(decision.uid, [AMR.recoveryCode], { codesMadeAt: decision.madeAt }),
  );
}
