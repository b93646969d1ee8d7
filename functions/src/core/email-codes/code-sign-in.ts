import type { Deps } from "../deps";
import * as people from "../../store/people";
import { canonicalEmail } from "../email-address";
import { CHECK_REFUSALS, checkCode } from "./email-codes";
import { AppError, ensure } from "../errors";
import { ensureAccess } from "../people/access";
import { admitWaiting, arriveByCode, arrivalFor, letsIn } from "../arrival/arrival";
import { translateFailure, type Failure } from "../failures";
import { AMR } from "../sessions/amr";
import { linkAccountOfAddress } from "../people/accounts";

type SignInDeps = Pick<
  Deps,
  "store" | "clock" | "random" | "config" | "mailer" | "mailQueue" | "log" | "identity" | "transaction" | "pepper"
>;

/** A provider call whose failure is the contract's "Sign-in failed", logged once without secrets. */
const providerFailed = (what: string): Failure => ({ code: "signin_failed", log: `sign-in: ${what} failed` });

/**
 * POST /auth/otp/sign-in: checks a `signin` code and, for an approved person (or an invited
 * address, which becomes one: core/arrival/arrival) only, consumes it
 * in the same transaction (as the contract's state table has it: a refusal for a missing or
 * unapproved account leaves the code as it was). Then mints a custom token for the person's
 * account: their first linked account, or the provider's account for the address (made,
 * verified, when there is none), which is then linked to them.
 */
export async function signInWithCode(deps: SignInDeps, rawEmail: string, otp: string): Promise<string> {
  const address = canonicalEmail(rawEmail);
  ensure(address, "email_code_invalid");
  const [found, arrival] = await Promise.all([people.findByEmail(deps.store, address), arrivalFor(deps, address)]);
  // Waiting with an address an invitation or rule lets in (one that came before the rule, say):
  // this code proves it.
  const waiting = found?.status === "pending" && letsIn(arrival);
  const consume = found?.status === "approved" || (found === null && letsIn(arrival)) || waiting;
  const result = await checkCode(deps, address, "signin", otp, consume);
  // The code is judged first: without the right code, nothing is said about the account.
  if (result !== "valid") throw new AppError(CHECK_REFUSALS[result]);
  // An invited address, or one a rule approves, becomes its person now, approved.
  const person = waiting
    ? ((await admitWaiting(deps, found.id, address)) ?? found)
    : (found ?? (letsIn(arrival) ? await arriveByCode(deps, address) : null));
  ensureAccess(person, {}, "codeSignIn");
  const uid = person.uids[0] ?? (await linkAccountOfAddress(deps, person, address));
  return translateFailure(deps, providerFailed("custom token"), () =>
    deps.identity.createCustomToken(uid, [AMR.otp], { address }),
  );
}
