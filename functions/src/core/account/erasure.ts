/**
 * A person's erasure (GDPR Art. 17), under the same rules as their copy (core/account/own-data):
 * who may, within how long of signing in, and what their history keeps of it.
 */
import { signInsEnding, tellClients } from "../people/sign-in-ends";
import * as people from "../../store/people";
import { ensure } from "../errors";
import type { SyncError } from "../people/change-person";
import { ensureKeepsAnAdmin, recordedAs, type Acting } from "../people/acting";
import { publishAndRecordErasure } from "../people/person-events";
import { ensureMayHandleData, recordInAdministrator, type OwnDataDeps } from "./own-data";
import { finishErasure } from "../people/erasure-job";

/**
 * Erases the person (`people erase`, DELETE /auth/account, DELETE /auth/people/:personId). One
 * transaction takes them away: their document and every uid, address and number they held (so
 * each is free for anyone, a stranger's request for access included), with the accounts at the
 * identity provider noted to delete, the job that finishes the erasure queued in the outbox, and
 * one history entry that they were erased, by whom. Their sessions end with it (a session of a
 * person who is gone is refused). Then this request deletes everything else that names them, and
 * their provider accounts (core/people/erasure-job). What it could not do (the provider failed)
 * the job does, retried with backoff, until it is done; the answer says which (`finished`). The
 * last approved administrator cannot be erased (409). Asking again for a person whose erasure is
 * unfinished tries to finish it now.
 */
export async function erasePerson(
  deps: OwnDataDeps,
  personId: string,
  by: Acting,
): Promise<{ finished: boolean; providerSyncErrors: SyncError[]; apps: string[] }> {
  const erased = await deps.transaction(async (tx) => {
    const acting = await ensureMayHandleData(deps, tx, personId, by);
    const person = await people.findById(deps.store, personId, tx);
    if (person === null) return null;
    await ensureKeepsAnAdmin(deps, tx, person, null);
    // Every client they signed in to is told the sign-in ended, by its `sid` alone.
    const signedIn = await signInsEnding(deps, tx, person.id, "all");
    people.remove(deps.store, tx, person);
    const apps = tellClients(deps, tx, signedIn, { erased: true });
    // The apps hear of it with the ids they know the person by, and nothing else; their accounts
    // at the identity provider are deleted with the rest of them.
    publishAndRecordErasure(deps, tx, person, recordedAs(acting), person.uids);
    recordInAdministrator(deps, tx, personId, acting, "erased");
    return { apps };
  });
  // The event goes as it commits; the drain then asks to be woken for the job, a minute on.
  deps.personCache.evict(personId);
  // Gone already: an erasure that stopped half-way is finished now; otherwise there is no such person.
  const failed = await finishErasure(deps, personId);
  ensure(erased !== null || failed !== null, "person_not_found");
  return {
    // The OpenID Connect clients signed out of the person's sign-ins (core/oidc/backchannel).
    apps: erased?.apps ?? [],
    finished: (failed ?? []).length === 0,
    providerSyncErrors: (failed ?? []).map((uid) => ({
      uid,
      operation: "delete_account",
      error: "The identity provider did not delete the account yet; the service tries again by itself",
    })),
  };
}
