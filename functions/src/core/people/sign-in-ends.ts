/**
 * What ending a session tells the clients the person signed in to from it (core/oidc/backchannel):
 * read and queued in the transaction that ends it, so no session ends untold and no client is told
 * of an end that did not happen.
 */
import { DAY } from "../../clock";
import * as signIns from "../../store/oidc-sign-ins";
import type { OidcSignIn } from "../../store/oidc-sign-ins";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import { enqueue } from "../outbox/enqueue";
import * as clientRecords from "../../store/oidc-clients";
import type { Person } from "../model/person";
import { accessTaken, maySignInTo } from "./access";

/** The sign-ins made from `sessionKeys` (or every one) of the person, read in `tx` before its writes. */
export function signInsEnding(
  deps: Pick<Deps, "store">,
  tx: Transaction,
  personId: string,
  sessionKeys: string[] | "all",
): Promise<OidcSignIn[]> {
  return signIns.ofSessions(deps.store, tx, personId, sessionKeys);
}

/**
 * The sign-ins a change to a person ends, read in the change's transaction before its writes:
 * every one when they are no longer approved; when they lose a project (or the administrator's
 * role, which has every project), those to the clients that ask for it (OidcClient `project`),
 * which the person may no longer sign in to.
 */
export async function signInsLosing(
  deps: Pick<Deps, "store">,
  tx: Transaction,
  before: Person,
  after: Person,
): Promise<OidcSignIn[]> {
  if (before.status !== "approved") return [];
  const taken = accessTaken(before, after);
  if (taken.status) return signInsEnding(deps, tx, before.id, "all");
  // The administrator's role holds every project: a project taken off one who stays one takes no client away.
  const clientsLost = taken.role || (before.role !== "admin" && taken.projects);
  if (!clientsLost) return [];
  const held = await signInsEnding(deps, tx, before.id, "all");
  if (held.length === 0) return [];
  // The clients' registrations, read outside the transaction: the operator's, never the person's.
  const clients = new Map((await clientRecords.list(deps.store)).map((c) => [c.clientId, c]));
  return held.filter((s) => {
    const client = clients.get(s.clientId);
    return client !== undefined && client.project !== null && !maySignInTo(after, client);
  });
}

/**
 * Queues the logout token of each ended sign-in for its client, in `tx`, and forgets the sign-in.
 * `erased`: the person is gone, and the token names the sign-in alone (`sid`), not them. The
 * clients signed out, each once (none: nothing queued); the caller wakes the drain once `tx` has
 * committed when there is one.
 */
export function tellClients(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  ended: OidcSignIn[],
  { erased = false }: { erased?: boolean } = {},
): string[] {
  const now = deps.clock.now();
  for (const signIn of ended) {
    enqueue(deps, tx, {
      kind: "backchannel-logout",
      about: signIn.clientId,
      logout: { sid: signIn.sid, sub: erased ? null : signIn.personId },
      deliverBy: new Date(now.getTime() + DAY),
    });
    signIns.remove(deps.store, tx, signIn.sid);
  }
  return [...new Set(ended.map((s) => s.clientId))].sort();
}
