/**
 * An invitation lets its invitee in on the word of whoever made it, and that word stands only while
 * they can approve people: the operator's always, an administrator's while they are an approved
 * one. What becomes of an administrator's invitations once they are not: asked where an invitation
 * is taken up (core/arrival/arrival) or mailed (core/invitations/invitation-mail), and revoked
 * after the change or erasure that ended their standing. Making, listing and revoking invitations
 * is core/invitations.
 */
import type { Deps } from "../deps";
import type { Transaction } from "../../store/db";
import * as invitations from "../../store/invitations";
import * as people from "../../store/people";
import { errorText } from "../../logger";
import type { Invitation } from "../model/invitation";
import { approvedAdmin } from "./acting";

/**
 * Whether the invitation's inviter may still let someone in: the operator always; an administrator
 * only while they are an approved administrator. One demoted, turned down or erased since has left
 * nothing standing: their invitations are revoked then (revokeInvitationsOf), and this check, made
 * where an invitation is used or mailed, holds should that be late or cut short.
 */
export async function inviterStands(
  deps: Pick<Deps, "store">,
  invitation: Invitation,
  tx?: Transaction,
): Promise<boolean> {
  const by = invitation.invitedBy;
  if (by.kind !== "admin") return true;
  const inviter = await people.findById(deps.store, by.personId, tx);
  return inviter !== null && approvedAdmin(inviter);
}

/** How many of an administrator's invitations one round of revokeInvitationsOf deletes. */
const REVOKED_AT_ONCE = 400;

/**
 * Revokes every invitation the administrator `personId` made, once they can no longer approve
 * anyone (demoted, turned down, erased): after the change that took the role, in rounds, never
 * failing the caller. Returns how many went.
 */
export async function revokeInvitationsOf(deps: Pick<Deps, "store" | "log">, personId: string): Promise<number> {
  let revoked = 0;
  try {
    for (;;) {
      const ids = await invitations.idsByInviter(deps.store, personId, REVOKED_AT_ONCE);
      if (ids.length === 0) break;
      await invitations.removeAll(deps.store, ids);
      revoked += ids.length;
    }
  } catch (err) {
    deps.log.warn("revoking a former administrator's invitations failed; they no longer let anyone in", {
      personId,
      error: errorText(err),
    });
  }
  if (revoked > 0) deps.log.info("a former administrator's invitations revoked", { personId, revoked });
  return revoked;
}
