/**
 * A person's own addresses, from their account page. Adding one takes the code mailed to it (an
 * address code, core/email-codes, bound to the person who asked); making one the address mail goes
 * to, or removing one, is a change of their own. All three go through `changePerson`
 * (core/people/change-person), which keeps the rules (no address added without its code, one
 * address at least, none another person holds), records the change in their history, tells them
 * and a removed address, and tells the apps. Each asks a sign-in within the step-up window, and,
 * where the passkey rule holds the person, a passkey's (core/people/acting `ensureOwnWaysIn`).
 */
import type { Deps } from "../deps";
import * as people from "../../store/people";
import { canonicalEmail } from "../email-address";
import { ensure } from "../errors";
import { CHECK_REFUSALS, checkCodeIn, requestCode } from "../email-codes/email-codes";
import { addressPurpose, normaliseCode } from "../email-codes/rules";
import type { Caller } from "../email-codes/budget-rules";
import { changePerson, type ChangeDeps, type Proof } from "../people/change-person";
import { ensureOwnWaysIn, type Acting } from "../people/acting";
import type { Person } from "../model/person";

type Self = Extract<Acting, { self: Person }>;
type AddressDeps = ChangeDeps & Pick<Deps, "mailer" | "pepper">;

/** The person's addresses, as stored now (not the gate's copy): the first is the one mail goes to. */
export async function ownAddresses(deps: Pick<Deps, "store">, by: Self): Promise<string[]> {
  const person = await people.findById(deps.store, by.self.id);
  ensure(person, "person_not_found");
  return person.emails;
}

/**
 * POST /auth/account/addresses: mails a code to an address to add. An address another person
 * holds takes the same path as a free one, with the same reads, writes and limits, and its code
 * goes nowhere (core/email-codes `requestCode`): the person learns of it only what a stranger would.
 */
export async function requestAddressCode(deps: AddressDeps, by: Self, rawEmail: string, from: Caller): Promise<void> {
  const address = canonicalEmail(rawEmail);
  ensure(address, "email_invalid");
  // Under the passkey rule, from a passkey sign-in only: asked before a code is sent anywhere.
  await ensureOwnWaysIn(deps, by);
  // Their own already: telling them so tells them nothing about anyone else.
  ensure(!(await ownAddresses(deps, by)).includes(address), "address_already_yours");
  await requestCode(deps, address, addressPurpose(by.self.id), from);
}

/**
 * POST /auth/account/addresses/verify: the code proves the address, and is consumed in the
 * transaction that adds it and claims it (changePerson); a wrong one spends an attempt there and
 * adds nothing. The code is judged before anything else is: without it, nothing is said of who
 * holds the address. Answers the person's addresses.
 */
export async function confirmAddress(deps: AddressDeps, by: Self, rawEmail: string, otp: string): Promise<string[]> {
  const address = canonicalEmail(rawEmail);
  // An address that cannot hold a code cannot match one; nothing is read or counted.
  ensure(address, "email_code_invalid");
  const code = normaliseCode(otp);
  ensure(code, "email_code_malformed");
  // Before the code is checked: a stale session, or one the passkey rule refuses, spends none of
  // its attempts (changePerson asks again, in its transaction).
  await ensureOwnWaysIn(deps, by);
  const proof: Proof = {
    emails: [address],
    async check(tx) {
      const check = await checkCodeIn(deps, tx, address, addressPurpose(by.self.id), code, true);
      const refusal = check.result === "valid" ? null : CHECK_REFUSALS[check.result];
      return { refusal, record: () => check.record() };
    },
  };
  const add = (current: Person) => ({
    emails: current.emails.includes(address) ? current.emails : [...current.emails, address],
  });
  return (await changePerson(deps, by.self.id, add, by, proof)).person.emails;
}

/** POST /auth/account/addresses/primary: one of their addresses becomes the first, the one mail goes to. */
export async function makePrimaryAddress(deps: ChangeDeps, by: Self, rawEmail: string): Promise<string[]> {
  const address = canonicalEmail(rawEmail);
  ensure(address, "email_invalid");
  await ensureOwnWaysIn(deps, by);
  const first = (current: Person) => {
    ensure(current.emails.includes(address), "address_not_found");
    return { emails: [address, ...current.emails.filter((e) => e !== address)] };
  };
  return (await changePerson(deps, by.self.id, first, by)).person.emails;
}

/**
 * DELETE /auth/account/addresses/:email: one of their addresses goes, never the last, with the
 * provider accounts that sign in with it (changePerson). Answers the person as they are now.
 */
export async function removeOwnAddress(deps: ChangeDeps, by: Self, rawEmail: string): Promise<Person> {
  const address = canonicalEmail(rawEmail);
  ensure(address, "email_invalid");
  await ensureOwnWaysIn(deps, by);
  const without = (current: Person) => {
    ensure(current.emails.includes(address), "address_not_found");
    return { emails: current.emails.filter((e) => e !== address) };
  };
  return (await changePerson(deps, by.self.id, without, by)).person;
}
