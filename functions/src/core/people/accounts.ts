/**
 * A person's accounts at the identity provider, once they are a person: linked at a sign-in (a
 * provider's, a bridge's, or the code's own account for the address), and let go when an account
 * moves to the owner of its address. Each change is in the person's history and told to the apps,
 * who know people by their accounts (`uids`). A person's first account comes with them
 * (core/people/arrival); an erasure lets go of all of them (core/account/erasure).
 */
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { Person } from "../model/person";
import { beginErasure } from "./erasure-job";
import { recordEvent } from "./history";
import { nextSeq, publishAndRecord, publishEvent } from "./person-events";

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
    // By their id alone: the account is the owner's now, and an app that forgot what it keeps
    // of that account would forget the owner's.
    publishEvent(deps, tx, {
      type: "person.erased",
      person: { ...holder, uids: rest },
      seq: nextSeq(holder),
      by: "service",
    });
    recordEvent(deps, tx, {
      personId: holder.id,
      by: { kind: "service" },
      via: "sign-in",
      event: "erased",
      changes: {},
    });
    beginErasure(deps, tx, holder.id, []);
    return { id: holder.id, next: null };
  }
  const left = { ...holder, uids: rest, updatedAt: deps.clock.now() };
  return { id: holder.id, next: publishAndRecord(deps, tx, holder, left, { kind: "service" }, "sign-in") };
}
