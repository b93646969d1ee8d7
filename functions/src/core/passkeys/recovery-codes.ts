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
import { AppError, ensure, type ErrorCode } from "../errors";
import { canonicalEmail } from "../email-address";
import { constantTimeEqual } from "../secrets";
import { pepperRing, recoveryCodeHash, type PepperKey } from "../pepper";
import { translateFailure } from "../failures";
import { decideAccess } from "../people/access";
import { addressRunIn } from "../email-codes/address-failures";
import { wakeDrainer } from "../mail/outbox";
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

type MakeDeps = Pick<Deps, "store" | "transaction" | "clock" | "random" | "pepper" | "config" | "mailQueue" | "log">;

/** Who makes codes: the person, from a session begun with a passkey, at when, from which browser. */
export interface CodeMaker {
  person: Person;
  signedInAt: Date;
  amr: string[];
  from: string;
}

/**
 * POST /auth/passkeys/recovery-codes: a new set, shown this once; the set before it ends in the
 * same write, and the person is told. Only from a sign-in with a passkey within the step-up
 * window: a stolen session, or one begun with a relayed email code, must not be able to mint the
 * codes that would then stand in for the passkey.
 */
export async function makeRecoveryCodes(deps: MakeDeps, maker: CodeMaker): Promise<string[]> {
  ensure(byPasskey(maker.amr), "passkey_required", "Recovery codes are made right after a sign-in with a passkey");
  ensureRecentSignIn(deps, maker.signedInAt, "passkey_required", "Sign in with your passkey again to make new codes");
  const key = pepperRing(deps)[0] as PepperKey;
  const personId = maker.person.id;
  const codes = Array.from({ length: RECOVERY_CODES }, () => newCode(deps.random));
  const told = await deps.transaction(async (tx) => {
    const current = await people.findById(deps.store, personId, tx);
    ensure(current?.status === "approved", "forbidden");
    recoveryCodes.replace(deps.store, tx, {
      personId,
      kid: key.kid,
      madeAt: deps.clock.now(),
      codes: codes.map((code) => ({ hash: recoveryCodeHash(key, personId, code), usedAt: null })),
    });
    return queueNotice(deps, tx, recipientOf(current), recoveryCodesMadeEvent(codes.length, maker.from));
  });
  if (told !== null) await wakeDrainer(deps);
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

type Decision = { uid: string } | { refused: ErrorCode };

/**
 * Which code of the set `code` is, under the key the set was made with, comparing every one in
 * constant time: the index of an unused one, of a used one, or null.
 */
function matchIn(
  ring: PepperKey[],
  set: recoveryCodes.RecoveryCodes,
  code: string,
): { index: number; used: boolean } | null {
  const key = ring.find((k) => k.kid === set.kid);
  if (key === undefined) return null;
  const hash = recoveryCodeHash(key, set.personId, code);
  let found: { index: number; used: boolean } | null = null;
  set.codes.forEach((stored, index) => {
    if (constantTimeEqual(stored.hash, hash)) found = { index, used: stored.usedAt !== null };
  });
  return found;
}

/**
 * POST /auth/passkeys/recovery/sign-in: a custom token for the person whose address and unused
 * recovery code these are, its methods `rec`. Decided in one transaction on the address's run of
 * failures and the person's set, so of concurrent uses of one code one wins: while the address is
 * locked nothing is compared; a wrong code counts towards its ceiling (where the person holds
 * unused codes); a right one is used, and the person told. The code is judged before anything is said of the account, and an address on
 * nobody is answered as a wrong code is.
 */
export async function signInWithRecoveryCode(deps: SignInDeps, rawEmail: string, rawCode: string): Promise<string> {
  const code = normaliseRecoveryCode(rawCode);
  ensure(code, "recovery_code_malformed");
  const address = canonicalEmail(rawEmail);
  ensure(address, "recovery_code_invalid");
  const ring = pepperRing(deps);
  let noticed = false;
  const decision = await deps.transaction(async (tx): Promise<Decision> => {
    const run = await addressRunIn(deps, tx, address);
    const person = await people.findByEmail(deps.store, address, tx);
    const set = person === null ? null : await recoveryCodes.findByPerson(deps.store, person.id, tx);
    if (run.locked) return { refused: "email_code_address_locked" };
    const now = deps.clock.now();
    const match = set === null ? null : matchIn(ring, set, code);
    if (person === null || set === null || match === null || match.used) {
      // A guess counts where there was a code to guess: as an email code's check counts only with
      // a live code, so nobody can lock the address of a person with no recovery codes (a member's
      // email sign-in) by guessing at codes that do not exist.
      if (set !== null && set.codes.some((c) => c.usedAt === null)) noticed = run.record("failed");
      // A used code presented again: the codes are in someone's hands, and their owner should know.
      if (person !== null && match?.used) {
        queueNotice(deps, tx, recipientOf(person), recoveryCodeReusedEvent("a sign-in with a recovery code"));
        noticed = true;
      }
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
    noticed = true;
    return { uid };
  });
  if (noticed) await wakeDrainer(deps);
  if ("refused" in decision) throw new AppError(decision.refused);
  return translateFailure(deps, { code: "signin_failed", log: "recovery code sign-in: custom token failed" }, () =>
    deps.identity.createCustomToken(decision.uid, [AMR.recoveryCode]),
  );
}
