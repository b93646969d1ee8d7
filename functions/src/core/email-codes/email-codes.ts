import { HOUR } from "../../clock";
import type { Deps } from "../deps";
import * as limits from "../../store/email-code-limits";
import * as codes from "../../store/email-codes";
import * as sends from "../../store/sends";
import * as personKeys from "../../store/person-keys";
import { recordAccessRequest, type RequestDetails } from "../arrival/access-requests";
import { arrivalFor, letsIn } from "../arrival/arrival";
import { characters, cleanText } from "../text";
import { codeMail } from "./code-mail";
import { addressRunIn } from "./address-failures";
import { addressIds, codeHash, codeMatches, pepperRing, type PepperKey } from "../pepper";
import { admitSend, withdrawSend } from "./send-budgets";
import { canonicalEmail } from "../email-address";
import {
  afterSend,
  CODE_LIFETIME_MS,
  combine,
  decideCheck,
  forgetAfter,
  normaliseCode,
  nextSendAt,
  sendRefusal,
  sixDigits,
  type CheckResult,
  type Purpose,
  isAddressPurpose,
} from "./rules";
import type { Transaction } from "../../store/db";
import type { Caller } from "./budget-rules";
import { AppError, ensure, limitReached, type ErrorCode } from "../errors";
import { enqueueMail } from "../outbox/enqueue";
import { wakeDrainer } from "../outbox/wake";
import * as outbox from "../../store/outbox";
import type { MailMessage } from "../ports";

type CodeDeps = Pick<
  Deps,
  "store" | "clock" | "random" | "config" | "mailer" | "mailQueue" | "log" | "transaction" | "pepper"
>;

/**
 * POST /auth/otp/send. The address's own limits are read first, so that a send they refuse gets
 * the contract's answer and costs nothing; then the budgets beyond the address let the send
 * through or refuse it (send-budgets.ts); then one transaction decides the address's limits
 * exactly and records the new code and its mail in the outbox (core/outbox/enqueue), sealed; its
 * commit wakes the drain, which sends it.
 * An address on no account takes the same path with the same reads, writes and wake, and its
 * outbox record holds nothing to send; the answer depends on no mail server, so neither its
 * status nor its timing tells the two apart, whether the mail server is up, frozen or gone.
 */
export async function requestCode(deps: CodeDeps, rawEmail: string, purpose: Purpose, from: Caller): Promise<void> {
  const address = canonicalEmail(rawEmail);
  ensure(address, "email_invalid");
  ensure(deps.config.smtp !== null, "email_not_configured");
  const ring = pepperRing(deps);
  const deliver = await delivers(deps, address, purpose);
  const code = sixDigits(deps.random);
  const mail = deliver ? codeMail(address, code, purpose, deps.config.idUrl) : null;
  const now = deps.clock.now();
  const ids = addressIds(ring, address);
  const state = combine(await limits.findAll(deps.store, ids));
  const refusal = sendRefusal(state, now);
  if (refusal) throw limitReached(refusal, now, nextSendAt(state, now));
  const admitted = await admitSend(deps, ring[0] as PepperKey, ids[0] as string, address, purpose, from);
  try {
    await issue(deps, ring, address, purpose, code, admitted.sendId, mail);
  } catch (err) {
    const went = await wasIssued(deps, admitted.sendId);
    // Refused by the address's limits after all (a send racing it won), or not recorded: no code
    // went, and the send is withdrawn.
    if (went === false) {
      await withdrawSend(deps, admitted).catch(() => undefined);
      throw err;
    }
    // Issued, or not known: it stays counted, and the failed run woke no one, so the drain is woken
    // for the mail that may be in the outbox.
    await wakeDrainer(deps);
    if (went === null) throw err;
  }
}

/**
 * Whether the send's code was issued though its transaction failed: a commit whose answer was lost
 * is run again by Firestore's SDK, and the run again is refused by the limits the first one wrote.
 * The code's mail in the outbox, under the send's id, is the proof; it then stays counted. Null
 * when it cannot be read.
 */
function wasIssued(deps: Pick<Deps, "store">, sendId: string): Promise<boolean | null> {
  return outbox.findById(deps.store, sendId).then(
    (entry) => entry !== null,
    () => null,
  );
}

/**
 * Whether a code for `purpose` is mailed to `address`: a sign-in code only to an address on a
 * person, an address code (core/account/addresses) only to an address on nobody; anyone may
 * confirm an address for an access request. Either way the same reads are made.
 */
async function delivers(
  deps: Pick<Deps, "store" | "clock" | "config">,
  address: string,
  purpose: Purpose,
): Promise<boolean> {
  if (purpose === "request-access") return true;
  // Both are read for every address, each one document by id, so the time taken tells none apart.
  const [held, arrival] = await Promise.all([
    personKeys.isHeld(deps.store, "email", address),
    arrivalFor(deps, address),
  ]);
  if (isAddressPurpose(purpose)) return !held;
  // A sign-in code goes to an address on a person, or to one an invitation or a rule lets in.
  return held || letsIn(arrival);
}

/**
 * Where an address's code is kept, under each key: the address's one live code for sign-in and
 * access requests; an address code in a place of its own per person who asks, so one person's
 * request neither replaces another's nor the holder's sign-in code. Limits stay the address's.
 */
function codeIds(ring: PepperKey[], address: string, purpose: Purpose): string[] {
  return addressIds(ring, isAddressPurpose(purpose) ? `${purpose}\u0000${address}` : address);
}

async function issue(
  deps: CodeDeps,
  ring: PepperKey[],
  address: string,
  purpose: Purpose,
  code: string,
  sendId: string,
  mail: MailMessage | null,
): Promise<void> {
  const { store } = deps;
  const ids = addressIds(ring, address);
  const codeAt = codeIds(ring, address, purpose);
  const [key, id] = [ring[0] as PepperKey, ids[0] as string];
  await deps.transaction(async (tx) => {
    const now = deps.clock.now();
    const found = await limits.findAll(store, ids, tx);
    const state = combine(found);
    // Counted in the transaction that issues the code: of concurrent sends, one wins and the rest see it.
    const refusal = sendRefusal(state, now);
    if (refusal) throw limitReached(refusal, now, nextSendAt(state, now));
    const next = afterSend(state, now);
    limits.save(store, tx, id, key.kid, next, forgetAfter(next), found);
    // Stored as a keyed hash only: six digits are too few to survive an unkeyed one.
    const hash = codeHash(key, purpose, address, code);
    const expiresAt = new Date(now.getTime() + CODE_LIFETIME_MS);
    enqueueMail(deps, tx, mail, { kind: "code", deliverBy: expiresAt, id: sendId });
    codes.replace(
      store,
      tx,
      {
        addressId: codeAt[0] as string,
        kid: key.kid,
        hash,
        state: "ready",
        attempts: 0,
        sendId,
        createdAt: now,
        expiresAt,
      },
      codeAt,
    );
  });
}

type CheckDeps = Pick<Deps, "store" | "clock" | "random" | "config" | "pepper" | "transaction" | "mailQueue" | "log">;

/**
 * One check of a code for `purpose`, decided and recorded in one transaction: the attempt, a
 * destroyed or consumed code, and the address's run of failures are written together with the
 * outcome, so concurrent guesses cannot share a spare attempt.
 */
export async function checkCode(
  deps: CheckDeps,
  address: string,
  purpose: Purpose,
  otp: string,
  consume: boolean,
): Promise<CheckResult> {
  const code = normaliseCode(otp);
  ensure(code, "email_code_malformed");
  return deps.transaction(async (tx) => {
    const check = await checkCodeIn(deps, tx, address, purpose, code, consume);
    check.record();
    return check.result;
  });
}

/**
 * A check of `code` (already normalised) read and decided in `tx`, the caller's transaction, which
 * may read more before it writes: `record()` then writes the check's effect in `tx` (a lock
 * notice among it, which wakes the drain once `tx` commits).
 */
export async function checkCodeIn(
  deps: CheckDeps,
  tx: Transaction,
  address: string,
  purpose: Purpose,
  code: string,
  consume: boolean,
): Promise<{ result: CheckResult; record(): void }> {
  const { store } = deps;
  const ring = pepperRing(deps);
  const now = deps.clock.now();
  const run = await addressRunIn(deps, tx, address);
  const live = await codes.findFirst(store, codeIds(ring, address, purpose), tx);
  const stored = live?.hash ? { kid: live.kid, hash: live.hash } : null;
  const decision = decideCheck(
    live,
    run.locked,
    now,
    consume,
    () => stored !== null && codeMatches(ring, stored, purpose, address, code),
  );
  const record = (): void => {
    if (live !== null) {
      // Only a sign-in code consumed by its sign-in stops counting against the budgets of where it
      // was asked from and sent to, and earns them room: it is consumed only for an approved
      // person, or an address an invitation or a rule lets in (core/email-codes/code-sign-in).
      // A right code that signs nobody in (a verify, a pending or rejected person) earns nothing:
      // whoever reads their own mail could mint such codes for pending people of their own making.
      // A request-access code never stops counting (budget-rules.ts); nor does an address code,
      // as it goes to an address on nobody.
      if (decision.code === "consume" && purpose === "signin")
        sends.markUsed(store, tx, live.sendId, new Date(now.getTime() + HOUR));
      if (decision.code === "attempt") codes.recordAttempt(store, tx, live.addressId, live.attempts + 1);
      if (decision.code === "expire" || decision.code === "exhaust")
        codes.destroy(store, tx, live.addressId, decision.code === "expire" ? "expired" : "exhausted");
      if (decision.code === "consume") codes.remove(store, tx, live.addressId);
    }
    run.record(decision.failed ? "failed" : decision.result === "valid" ? "valid" : "none");
  };
  return { result: decision.result, record };
}

/** How a code check's refusal is answered, by verify and by sign-in alike. */
export const CHECK_REFUSALS: Record<Exclude<CheckResult, "valid">, ErrorCode> = {
  invalid: "email_code_invalid",
  expired: "email_code_expired",
  exhausted: "email_code_exhausted",
};

/**
 * POST /auth/otp/verify: checks a code without consuming it. A correct `request-access` code
 * records the access request (core/arrival/access-requests).
 */
export async function verifyCode(
  deps: CodeDeps,
  rawEmail: string,
  otp: string,
  purpose: Purpose,
  given: { name?: unknown; note?: unknown } = {},
): Promise<void> {
  const details = requestDetails(purpose, given);
  const address = canonicalEmail(rawEmail);
  // An address that cannot hold a code cannot match one; nothing is read or counted.
  ensure(address, "email_code_invalid");
  const result = await checkCode(deps, address, purpose, otp, false);
  if (result !== "valid") throw new AppError(CHECK_REFUSALS[result]);
  if (purpose === "request-access") await recordAccessRequest(deps, address, details);
}

/** The longest name and note a request for access may carry, in characters once cleaned. */
export const REQUEST_NAME_MAX = 100;
export const REQUEST_NOTE_MAX = 500;

/**
 * A request's name and note, cleaned as text (core/text): refused, before any code is checked,
 * when too long or given with another purpose; a blank one is no name or note.
 */
function requestDetails(purpose: Purpose, given: { name?: unknown; note?: unknown }): RequestDetails {
  const fields = Object.entries(given).filter(([, v]) => v !== undefined) as Array<[keyof RequestDetails, unknown]>;
  if (fields.length === 0) return {};
  ensure(purpose === "request-access", "request_details_invalid");
  const details: RequestDetails = {};
  for (const [key, value] of fields) {
    ensure(typeof value === "string" && value.length <= 4096, "request_details_invalid");
    const text = cleanText(value);
    ensure(characters(text) <= (key === "name" ? REQUEST_NAME_MAX : REQUEST_NOTE_MAX), "request_details_invalid");
    if (text !== "") details[key] = text;
  }
  return details;
}
