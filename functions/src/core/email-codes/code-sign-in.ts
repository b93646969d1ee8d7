import type { Deps } from "../deps";
import * as people from "../../store/people";
import { canonicalEmail } from "../email-address";
import { CHECK_REFUSALS, checkCode } from "./email-codes";
import { AppError, ensure } from "../errors";
import { ensureAccess } from "../people/access";
import { arriveByCode, arrivalFor, letsIn } from "../people/arrival";
import { translateFailure, type Failure } from "../failures";
import { AMR } from "../sessions/amr";
import { type Person } from "../model/person";
import * as personKeys from "../../store/person-keys";
import { wakeDrainer } from "../mail/outbox";
import { withAccount, withoutAccount } from "../people/accounts";

type SignInDeps = Pick<
  Deps,
  "store" | "clock" | "random" | "config" | "mailer" | "mailQueue" | "log" | "identity" | "transaction" | "pepper"
>;

/** A provider call whose failure is the contract's "Sign-in failed", logged once without secrets. */
const providerFailed = (what: string): Failure => ({ code: "signin_failed", log: `sign-in: ${what} failed` });

/**
 * POST /auth/otp/sign-in: checks a `signin` code and, for an approved person (or an invited
 * address, which becomes one: core/people/arrival) only, consumes it
 * in the same transaction (as the contract's state table has it: a refusal for a missing or
 * unapproved account leaves the code as it was). Then mints a custom token for the person's
 * account: their first linked account, or the provider's account for the address (made,
 * verified, when there is none), which is then linked to them.
 */
export async function signInWithCode(deps: SignInDeps, rawEmail: string, otp: string): Promise<string> {
  const address = canonicalEmail(rawEmail);
  ensure(address, "email_code_invalid");
  const [found, arrival] = await Promise.all([people.findByEmail(deps.store, address), arrivalFor(deps, address)]);
  const consume = found?.status === "approved" || (found === null && letsIn(arrival));
  const result = await checkCode(deps, address, "signin", otp, consume);
  // The code is judged first: without the right code, nothing is said about the account.
  if (result !== "valid") throw new AppError(CHECK_REFUSALS[result]);
  // An invited address, or one a rule approves, becomes its person now, approved.
  const person = found ?? (letsIn(arrival) ? await arriveByCode(deps, address) : null);
  ensureAccess(person, {}, "codeSignIn");
  const uid = person.uids[0] ?? (await linkAccount(deps, person, address));
  return translateFailure(deps, providerFailed("custom token"), () => deps.identity.createCustomToken(uid, [AMR.otp]));
}

/**
 * The code proved the mailbox: the provider's account for it becomes this person's. The account
 * may already speak for someone else: whoever registered the address unverified and signed in
 * with it became a pending person who holds no address or number (an unverified address is never
 * taken as one). That link was made by someone who never proved the mailbox, so it moves here;
 * otherwise an unverified sign-up would lock the owner out for good. Any other holder is an
 * administrator's decision, and the sign-in fails.
 */
async function linkAccount(deps: SignInDeps, person: Person, address: string): Promise<string> {
  const { store } = deps;
  const account = await translateFailure(deps, providerFailed("account for address"), () =>
    deps.identity.accountForEmail(address),
  );
  const uid = account.uid;
  const linked = await deps.transaction(async (tx) => {
    const current = await people.findById(store, person.id, tx);
    if (!current || current.uids.includes(uid)) return false;
    const holderId = await personKeys.keyHolder(store, tx, "uid", uid);
    const holder = holderId === null ? null : await people.findById(store, holderId, tx);
    if (holderId === null) {
      people.replace(store, tx, current, withAccount(deps, tx, current, uid, "sign-in"));
      return true;
    }
    const unproven = holder === null || (holder.emails.length === 0 && holder.phones.length === 0);
    if (!account.takenBack && !unproven) {
      deps.log.warn("sign-in: the account for this address is linked to another person", {
        personId: person.id,
        holder: holderId,
      });
      throw new AppError("signin_failed");
    }
    deps.log.info("sign-in: an account registered unverified moved to the owner of its address", {
      personId: person.id,
      from: holderId,
    });
    people.moveAccount(
      store,
      tx,
      uid,
      holder && withoutAccount(deps, tx, holder, uid),
      withAccount(deps, tx, current, uid, "sign-in"),
    );
    return true;
  });
  // The apps hear of the link (and of a person it emptied) once it has committed.
  if (linked) await wakeDrainer(deps);
  return uid;
}
