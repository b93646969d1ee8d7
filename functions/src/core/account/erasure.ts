/**
 * A person's erasure (GDPR Art. 17), under the same rules as their copy (core/account/own-data):
 * who may, within how long of signing in, and what their history keeps of it.
 */
import { DAY } from "../../clock";
import { errorText } from "../../logger";
import * as people from "../../store/people";
import * as personal from "../../store/personal-data";
import { AppError, ensure } from "../errors";
import { approvedAdmin, type ChangedBy, type SyncError } from "../people/people-admin";
import { ensureRecent, recordBoth, type OwnDataDeps } from "./own-data";

/** How long an erasure that could not finish keeps the ids of the provider accounts it has still to delete. */
const ERASURE_KEPT_MS = 30 * DAY;

/**
 * Erases the person (`people erase`, DELETE /auth/account, DELETE /auth/people/:personId). One
 * transaction takes them away: their document and every uid, address and number they held (so
 * each is free for anyone, a stranger's request for access included), with the accounts at the
 * identity provider noted to delete and one history entry that they were erased, by whom. Their
 * sessions end with it (a session of a person who is gone is refused). Then everything else that
 * names them is deleted, and their provider accounts. The last approved administrator cannot be
 * erased (409). An erasure that stopped half-way (Firestore or the provider failed) is finished by
 * asking again; an account the provider would not delete is named in `providerSyncErrors`.
 */
export async function erasePerson(
  deps: OwnDataDeps,
  personId: string,
  by: ChangedBy,
): Promise<{ providerSyncErrors: SyncError[] }> {
  ensureRecent(deps, by);
  const now = deps.clock.now();
  const uids = await deps.transaction(async (tx) => {
    const person = await people.findById(deps.store, personId, tx);
    if (person === null) return null;
    if (approvedAdmin(person) && (await people.approvedAdminList(deps.store, tx, 2)).length < 2)
      throw new AppError("last_admin");
    people.remove(deps.store, tx, person);
    personal.beginErasure(deps.store, tx, person.id, person.uids, now, new Date(now.getTime() + ERASURE_KEPT_MS));
    recordBoth(deps, tx, personId, by, "erased");
    return person.uids;
  });
  deps.people.evict(personId);
  // Gone already: an erasure that stopped half-way is finished; otherwise there is no such person.
  const pending = uids === null ? await personal.erasureOf(deps.store, personId) : { uids };
  ensure(pending, "person_not_found");
  let failed: string[];
  try {
    failed = await deps.identity.deleteAccounts(pending.uids);
  } catch (err) {
    deps.log.warn("deleting provider accounts failed", { error: errorText(err) });
    failed = pending.uids;
  }
  await personal.sweepPerson(deps.store, personId);
  if (failed.length === 0) await personal.endErasure(deps.store, personId);
  return {
    providerSyncErrors: failed.map((uid) => ({
      uid,
      operation: "delete_account",
      error: "The identity provider did not delete the account; erase the person again to retry",
    })),
  };
}
