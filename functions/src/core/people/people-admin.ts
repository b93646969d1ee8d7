import type { Deps } from "../deps";
import * as people from "../../store/people";
import { AppError, ensure } from "../errors";
import { errorText } from "../../logger";

export type { Person } from "../../store/people";

/** GET /auth/people (and the operator's `people list`): people by address, status, role or granted project, at most `limit`. */
export function listPeople(
  deps: Pick<Deps, "store">,
  filter: { email?: string; status?: people.PersonStatus; role?: people.Role; project?: string },
  limit: number,
): Promise<people.Person[]> {
  return people.list(deps.store, filter, limit);
}

/** GET /auth/people/:personId. */
export async function findPerson(deps: Pick<Deps, "store">, personId: string): Promise<people.Person> {
  const person = await people.findById(deps.store, personId);
  ensure(person, "person_not_found");
  return person;
}

export interface PersonChange {
  status?: people.PersonStatus;
  role?: people.Role;
  projects?: string[];
  groups?: string[];
  name?: string;
  emails?: string[];
  phones?: string[];
}

export interface SyncError {
  uid: string;
  operation: "revoke_sessions";
  error: string;
}

/** An approved admin is who can approve anyone, at the endpoints and on the command line alike. */
const approvedAdmin = (p: people.Person) => p.role === "admin" && p.status === "approved";

function narrowed(before: people.Person, after: people.Person): boolean {
  const lostProject = before.projects.some((p) => !after.projects.includes(p));
  return after.status !== "approved" || (before.role === "admin" && after.role !== "admin") || lostProject;
}

/**
 * Applies an administrator's change in one transaction: every address and number it adds must
 * be free, and the last approved administrator stays one (409 otherwise, nothing written). When
 * the change takes access away, the person's provider sessions are revoked so no new session can
 * be minted from an older ID token; a failure there does not undo the change and is reported
 * instead.
 */
export async function changePerson(
  deps: Pick<Deps, "store" | "clock" | "identity" | "people" | "log" | "transaction">,
  personId: string,
  change: PersonChange | ((current: people.Person) => PersonChange),
): Promise<{ person: people.Person; providerSyncErrors: SyncError[] }> {
  const { store } = deps;
  const { before, after } = await deps.transaction(async (tx) => {
    const current = await people.findById(store, personId, tx);
    ensure(current, "person_not_found");
    // A function computes the change from the person as read in this transaction (a grant adds to
    // the projects then current, not to a copy read earlier).
    const fields = typeof change === "function" ? change(current) : change;
    const next: people.Person = { ...current, ...fields, updatedAt: deps.clock.now() };
    // Read in the same transaction as the change: of two admins demoting each other at once, the
    // second sees the first's change and is refused, so the service always keeps someone who can
    // approve people.
    if (approvedAdmin(current) && !approvedAdmin(next) && (await people.approvedAdmins(store, tx, 2)) < 2)
      throw new AppError("last_admin");
    const claims: Array<[people.KeyKind, string[]]> = [
      ["email", next.emails.filter((e) => !current.emails.includes(e))],
      ["phone", next.phones.filter((p) => !current.phones.includes(p))],
    ];
    for (const [kind, added] of claims) {
      for (const value of added) {
        const holder = await people.keyHolder(store, tx, kind, value);
        if (holder !== null && holder !== personId) throw new AppError("person_conflict");
      }
    }
    people.replace(store, tx, current, next);
    return { before: current, after: next };
  });
  deps.people.evict(personId);
  const providerSyncErrors: SyncError[] = [];
  if (narrowed(before, after)) {
    await Promise.all(
      after.uids.map(async (uid) => {
        try {
          await deps.identity.revokeSessions(uid);
        } catch (err) {
          deps.log.warn("revoking provider sessions failed", { uid, error: errorText(err) });
          providerSyncErrors.push({
            uid,
            operation: "revoke_sessions",
            error: "The identity provider did not accept the change",
          });
        }
      }),
    );
  }
  return { person: after, providerSyncErrors };
}
