/**
 * A stranger's first proven sign-in makes them a person, here alone: by a code at the sign-in page,
 * an access request, or a provider or bridge sign-in nobody recognised. An address invited before
 * (core/people/invitations) arrives approved with the invitation's grants and never waits for
 * review; anyone else waits, pending, for a reviewer. Read and written in the caller's transaction,
 * which has found the address free: the invitation is taken up in the same commit that makes the
 * person, so it lets one person in, once.
 */
import type { Deps } from "../deps";
import type { Transaction } from "../../store/db";
import * as people from "../../store/people";
import * as invitations from "../../store/invitations";
import { isLive, type Invitation } from "../model/invitation";
import type { NewPerson, Person } from "../model/person";
import type { Via } from "../model/history";
import { changesBetween, recordEvent } from "./history";
import { FIRST_SEQ, publishCreated } from "./person-events";
import * as personKeys from "../../store/person-keys";
import { alreadyExists } from "../failures";
import { wakeDrainer } from "../mail/outbox";

type ArrivalDeps = Pick<Deps, "store" | "clock" | "random">;

/** What a new person's sign-in proved of them; their status and grants are decided here. */
export type Arriving = Pick<NewPerson, "uids" | "emails" | "phones" | "name" | "origin" | "note">;

/** The invitation that lets `address` in now, read in `tx` (or alone); null for none, or one expired. */
export async function liveInvitation(
  deps: Pick<Deps, "store" | "clock">,
  address: string | null,
  tx?: Transaction,
): Promise<Invitation | null> {
  if (address === null) return null;
  const invitation = await invitations.findByAddress(deps.store, address, tx);
  return invitation !== null && isLive(invitation, deps.clock.now()) ? invitation : null;
}

/**
 * Makes the person, in `tx`, after every read the transaction makes (`invitation` among them, as
 * liveInvitation read it): approved with the grants of a live invitation, which is taken up; or
 * pending, marked for the reviewers' digest. Their history's first entry names who let them in.
 */
export function arrive(
  deps: ArrivalDeps,
  tx: Transaction,
  arriving: Arriving,
  via: Exclude<Via, "invitation">,
  invitation: Invitation | null,
): Person {
  const base = { ...arriving, eventSeq: FIRST_SEQ };
  const fields: NewPerson =
    invitation === null
      ? { ...base, role: "user", projects: [], groups: [], status: "pending", awaitingNotice: true }
      : {
          ...base,
          // The name the inviter gave, unless the sign-in brought one and the inviter gave none.
          name: invitation.name === "" ? arriving.name : invitation.name,
          role: invitation.role,
          projects: invitation.projects,
          groups: invitation.groups,
          status: "approved",
        };
  const person = people.create(deps.store, tx, fields, deps.random.id(), deps.clock.now());
  const by = invitation === null ? ({ kind: "person" } as const) : invitation.invitedBy;
  publishCreated(deps, tx, person, by);
  recordEvent(deps, tx, {
    personId: person.id,
    by,
    via: invitation === null ? via : "invitation",
    event: "created",
    changes: changesBetween(null, person),
  });
  if (invitation !== null) invitations.remove(deps.store, tx, invitation.id);
  return person;
}

/**
 * A correct sign-in code for an address no person holds, which an invitation let in when the code
 * was sent: the invited person is made now (one transaction; of two at once, one makes them and the
 * other finds them). Null when the invitation has since expired or been revoked: a stranger then.
 */
export async function arriveByCode(
  deps: ArrivalDeps & Pick<Deps, "transaction" | "mailQueue" | "log" | "config">,
  address: string,
): Promise<Person | null> {
  for (let attempt = 0; ; attempt++) {
    try {
      const person = await deps.transaction(async (tx) => {
        const holderId = await personKeys.keyHolder(deps.store, tx, "email", address);
        if (holderId !== null) return people.findById(deps.store, holderId, tx);
        const invitation = await liveInvitation(deps, address, tx);
        if (invitation === null) return null;
        const arriving: Arriving = { uids: [], emails: [address], phones: [], name: "", origin: null, note: "" };
        return arrive(deps, tx, arriving, "sign-in", invitation);
      });
      await wakeDrainer(deps);
      return person;
    } catch (err) {
      // The loser of a race for the same address finds the winner's person on the next pass.
      if (attempt === 0 && alreadyExists(err)) continue;
      throw err;
    }
  }
}
