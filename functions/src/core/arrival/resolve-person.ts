import type { Deps } from "../deps";
import type { SignIn } from "../ports";
import * as people from "../../store/people";
import { canonicalEmail } from "../email-address";
import { AppError } from "../errors";
import { accountLinkedEvent, queueNotice, recipientOf } from "../notices/security-notices";
import { type Person } from "../model/person";
import * as personKeys from "../../store/person-keys";
import type { Transaction } from "../../store/db";
import { alreadyExists } from "../failures";
import { withAccount } from "../people/accounts";
import { arrive, arrivalFor, proofOf, type Arriving } from "./arrival";

type ResolveDeps = Pick<Deps, "store" | "clock" | "random" | "transaction" | "mailQueue" | "log" | "config">;

/**
 * Finds the person behind a sign-in: by account, then verified address, then phone number;
 * links the account to whoever it found. A sign-in nobody recognises becomes a new person
 * (core/arrival/arrival: pending, or approved by an invitation of its address), except a phone-only
 * one, which is refused.
 * Known accounts cost one read. The rest runs in one transaction whose key claims (see
 * store/person-keys) make two concurrent first sign-ins end in one person. An account linked to
 * someone already known is a new way into their account: they are told (`waysIn`), with `from`,
 * the browser it was done in.
 */
export async function resolvePerson(
  deps: ResolveDeps,
  signIn: SignIn,
  bridge: string | null,
  from: string,
): Promise<Person> {
  for (let attempt = 0; ; attempt++) {
    const known = await people.findByUid(deps.store, signIn.uid);
    if (known) return known;
    try {
      // A new person waits for review: the reviewers' digest gathers them (core/notices/review-notices),
      // on the wake their event for the apps makes; a linked one's notice is queued too.
      const { person } = await deps.transaction((tx) => linkOrCreate(deps, tx, signIn, bridge, from));
      return person;
    } catch (err) {
      // The loser of a race for the same account finds the winner's person on the next pass.
      if (attempt === 0 && alreadyExists(err)) continue;
      throw err;
    }
  }
}

async function linkOrCreate(
  deps: ResolveDeps,
  tx: Transaction,
  signIn: SignIn,
  bridge: string | null,
  from: string,
): Promise<{ person: Person; told: string | null }> {
  const { store } = deps;
  const email = signIn.email === null ? null : canonicalEmail(signIn.email);
  const proof = proofOf(deps, signIn);
  const addressHolder = email === null ? null : await personKeys.keyHolder(store, tx, "email", email);
  // An address only a provider the operator does not name vouches for (ARRIVAL_PROVIDERS) never
  // links its account to whoever holds the address: such a provider could say so of anyone's.
  const holderId =
    (proof === "unproven" ? null : addressHolder) ??
    (signIn.phone !== null ? await personKeys.keyHolder(store, tx, "phone", signIn.phone) : null);
  if (holderId !== null) {
    const holder = await people.findById(store, holderId, tx);
    if (holder) {
      if (holder.uids.includes(signIn.uid)) return { person: holder, told: null };
      const linked = withAccount(deps, tx, holder, signIn.uid, bridge === null ? "sign-in" : "bridge");
      people.replace(store, tx, holder, linked);
      const event = accountLinkedEvent(bridge ?? signIn.provider, signIn.account ?? signIn.email ?? signIn.phone, from);
      return {
        person: linked,
        told: deps.config.notices.waysIn ? queueNotice(deps, tx, recipientOf(holder), event) : null,
      };
    }
  }
  if (email === null && signIn.phone !== null) throw new AppError("phone_not_linked");
  // An address invited before, or at a domain a rule approves, arrives approved; anyone else waits for review.
  const arrival = await arrivalFor(deps, addressHolder === null ? email : null, tx, proof);
  // Only a provider the operator names proves the address, so only then does the newcomer hold it.
  // An unnamed provider's word is kept as a claim for the reviewer, and holds the address against
  // nobody: were it held, its owner's code would answer "pending", the owner could not be invited,
  // and the owner's trusted sign-in would be linked into this newcomer.
  const claimed = email !== null && proof === "unproven" ? email : null;
  const arriving: Arriving = {
    uids: [signIn.uid],
    emails: email === null || claimed !== null || addressHolder !== null ? [] : [email],
    // A number is only claimed for a new person if it was free (checked above).
    phones: signIn.phone === null ? [] : [signIn.phone],
    name: signIn.name ?? "",
    origin: {
      via: "account",
      bridge,
      provider: signIn.provider,
      account: signIn.account ?? "",
      displayName: signIn.name ?? "",
      ...(claimed === null ? {} : { claimedAddress: claimed }),
    },
    note: "",
  };
  const person = arrive(deps, tx, arriving, bridge === null ? "sign-in" : "bridge", arrival);
  return { person, told: null };
}
