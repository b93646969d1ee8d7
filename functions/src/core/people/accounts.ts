/**
 * A person's accounts at the identity provider, once they are a person: linked at a sign-in (a
 * provider's, a bridge's, or the code's own account for the address), let go when an account
 * moves to the owner of its address, and let go and deleted when the address or number they sign
 * in with is taken off the person. Each change is in the person's history and told to the apps,
 * who know people by their accounts (`uids`). A person's first account comes with them
 * (core/arrival/arrival); an erasure lets go of all of them (core/account/erasure).
 */
import { DAY } from "../../clock";
import type { Transaction } from "../../store/db";
import * as people from "../../store/people";
import * as personKeys from "../../store/person-keys";
import type { Deps } from "../deps";
import { AppError, ensure } from "../errors";
import { translateFailure } from "../failures";
import { errorText } from "../../logger";
import type { Person } from "../model/person";
import type { ProviderAccount } from "../ports";
import { canonicalEmail } from "../email-address";
import type { Handlers } from "../outbox/handlers";
import { enqueue } from "../outbox/enqueue";
import { publishAndRecord, publishAndRecordErasure } from "./person-events";

/**
 * The person's accounts that sign in with an address or number the change from `before` to
 * `after` took off them: the account's own address or number, or the address a provider linked
 * to it names (a Google account of that address, the account made for it at a code sign-in). Once
 * the address is gone, whoever holds its mailbox (a former employer, say) must not sign in as the
 * person through it. `accounts` describes the person's accounts (Identity `describeAccounts`).
 */
export function accountsOfRemoved(before: Person, after: Person, accounts: ProviderAccount[]): ProviderAccount[] {
  const emails = new Set(before.emails.filter((e) => !after.emails.includes(e)));
  const phones = new Set(before.phones.filter((p) => !after.phones.includes(p)));
  if (emails.size === 0 && phones.size === 0) return [];
  const removedEmail = (raw: string | null) => {
    const address = raw === null ? null : canonicalEmail(raw);
    return address !== null && emails.has(address);
  };
  return accounts.filter(
    (a) =>
      before.uids.includes(a.uid) &&
      (removedEmail(a.email) ||
        (a.phone !== null && phones.has(a.phone)) ||
        a.providers.some((p) => removedEmail(p.email))),
  );
}

/**
 * Queues, in `tx`, the deletion of each account at the identity provider once it is let go: the
 * account is the service's record of that way in (its password, the provider link), so deleting
 * it ends its sessions and anything set on it. A later sign-in with the same provider account
 * makes a fresh one, which resolves by its address to whoever holds that address then.
 */
export function queueAccountDeletions(deps: Pick<Deps, "store" | "clock" | "random">, tx: Transaction, uids: string[]) {
  const deliverBy = new Date(deps.clock.now().getTime() + 7 * DAY);
  for (const uid of uids) enqueue(deps, tx, { kind: "account-deletion", about: uid, deliverBy });
}

/**
 * Deletes the accounts a committed change let go, at once, so none is left to sign in with (or to
 * be found again by its address or number) while the outbox's job waits; what the provider does not
 * take now, the queued deletions retry. Never fails the caller.
 */
export async function deleteLetGo(deps: Pick<Deps, "identity" | "log">, uids: string[]): Promise<void> {
  if (uids.length === 0) return;
  try {
    const failed = await deps.identity.deleteAccounts(uids);
    if (failed.length > 0)
      deps.log.warn("accounts let go not deleted yet; the outbox retries", { accounts: failed.length });
  } catch (err) {
    deps.log.warn("accounts let go not deleted yet; the outbox retries", { error: errorText(err) });
  }
}

/** The outbox's runner of account deletions: done, or a failure the drain retries with backoff. */
export function accountDeletionHandlers(deps: Pick<Deps, "store" | "identity">): Pick<Handlers, "account-deletion"> {
  return {
    async "account-deletion"(entry) {
      const uid = entry.about;
      // Signed in with again since, and so linked to whoever holds its address now: theirs to keep.
      if ((await people.findByUid(deps.store, uid)) !== null) return null;
      const failed = await deps.identity.deleteAccounts([uid]);
      if (failed.length > 0) throw new Error("provider account not deleted yet");
      return null;
    },
  };
}

/**
 * `person` with the provider account `uid` linked, as it is to be written in `tx` (the caller
 * writes it): the change is in their history, and the apps hear of it (`person.profile_changed`,
 * whose `uids` they know people by). Every path that links an account goes through here.
 */
export function withAccount(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  person: Person,
  uid: string,
  via: "sign-in" | "bridge",
): Person {
  const linked = { ...person, uids: [...person.uids, uid], updatedAt: deps.clock.now() };
  return publishAndRecord(deps, tx, person, linked, { kind: "person" }, via);
}

/**
 * The unproven person who held `uid`, without it, as it is to be written (null: deleted, holding
 * nothing anyone could sign in as). The apps heard of them when they asked for access, so they
 * hear of the change too: `person.profile_changed`, or `person.erased` (by the service) for one
 * deleted, so that no app keeps a person who is no more. One deleted is erased as anyone is (the
 * records that name them swept, their history kept to the entry that they were), but for the
 * account, which is the owner's now.
 */
export function withoutAccount(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  holder: Person,
  uid: string,
): { id: string; next: Person | null } {
  const rest = holder.uids.filter((u) => u !== uid);
  if (rest.length === 0 && holder.emails.length === 0 && holder.phones.length === 0) {
    // By their id alone, and with no account to delete: the account is the owner's now, and an
    // app that forgot what it keeps of that account would forget the owner's.
    publishAndRecordErasure(deps, tx, { ...holder, uids: rest }, { by: { kind: "service" }, via: "sign-in" }, []);
    return { id: holder.id, next: null };
  }
  const left = { ...holder, uids: rest, updatedAt: deps.clock.now() };
  return { id: holder.id, next: publishAndRecord(deps, tx, holder, left, { kind: "service" }, "sign-in") };
}

/**
 * The provider's account for `address`, one of the person's own (a code just proved it, or it was
 * proved when it was added), linked to them: made, verified, when there is none. The account may
 * already speak for someone else: whoever registered the address unverified and signed in with it
 * became a pending person who holds no address or number (an unverified address is never taken
 * as one). That link was made by someone who never proved the mailbox, so it moves here;
 * otherwise an unverified sign-up would lock the owner out for good. An account whose address
 * only a provider the operator does not name vouched for (its person claims the address, holding
 * none: core/arrival/resolve-person) is that provider's account, not the mailbox's: it is let go
 * and deleted, and the account is made afresh, so nothing of it (the provider's sign-in, a number)
 * comes to the owner. Any other holder is an administrator's decision, and the sign-in fails.
 */
export async function linkAccountOfAddress(
  deps: Pick<Deps, "store" | "clock" | "random" | "identity" | "transaction" | "mailQueue" | "log">,
  person: Person,
  address: string,
): Promise<string> {
  const { store } = deps;
  for (let attempt = 0; ; attempt++) {
    const account = await translateFailure(
      deps,
      { code: "signin_failed", log: "sign-in: account for address failed" },
      () => deps.identity.accountForEmail(address),
    );
    const uid = account.uid;
    const outcome = await deps.transaction(async (tx): Promise<"linked" | "theirs" | "letGo"> => {
      const current = await people.findById(store, person.id, tx);
      if (!current || current.uids.includes(uid)) return "theirs";
      const holderId = await personKeys.keyHolder(store, tx, "uid", uid);
      const holder = holderId === null ? null : await people.findById(store, holderId, tx);
      if (holderId === null) {
        people.replace(store, tx, current, withAccount(deps, tx, current, uid, "sign-in"));
        return "linked";
      }
      if (!account.takenBack && holder !== null && claimsOnly(holder, address)) {
        deps.log.info("sign-in: an account an unnamed provider vouched for let go for the owner of its address", {
          personId: person.id,
          from: holder.id,
        });
        const left = withoutAccount(deps, tx, holder, uid);
        if (left.next === null) people.remove(store, tx, holder);
        else people.replace(store, tx, holder, left.next);
        queueAccountDeletions(deps, tx, [uid]);
        return "letGo";
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
      return "linked";
    });
    if (outcome !== "letGo") return uid;
    // Gone before the account for the address is asked for again, which then makes a fresh one
    // (the queued deletion retries what fails here, and the sign-in fails meanwhile).
    ensure(attempt === 0, "signin_failed");
    const failed = await translateFailure(
      deps,
      { code: "signin_failed", log: "sign-in: letting an account go failed" },
      () => deps.identity.deleteAccounts([uid]),
    );
    ensure(failed.length === 0, "signin_failed");
  }
}

/** Whether `holder` only claims `address`, on an unnamed provider's word, without holding it. */
function claimsOnly(holder: Person, address: string): boolean {
  return (
    !holder.emails.includes(address) && holder.origin?.via === "account" && holder.origin.claimedAddress === address
  );
}
