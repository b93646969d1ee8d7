/** An invitation as the API (routes/people/invitations) and the CLI's JSON show it; the pages read the same type. */
import type { Invitation } from "../model/invitation";
import { isLive } from "../model/invitation";

export type InvitationState = "live" | "expired";
export const stateOf = (invitation: Invitation, now: Date): InvitationState =>
  isLive(invitation, now) ? "live" : "expired";

export function invitationView(invitation: Invitation, now: Date) {
  return {
    id: invitation.id,
    address: invitation.address,
    name: invitation.name,
    projects: invitation.projects,
    groups: invitation.groups,
    role: invitation.role,
    note: invitation.note,
    invitedBy: invitation.invitedBy,
    invitedAt: invitation.invitedAt.toISOString(),
    expiresAt: invitation.expiresAt.toISOString(),
    sentAt: invitation.sentAt.toISOString(),
    sends: invitation.sends,
    state: stateOf(invitation, now),
  };
}

export type InvitationView = ReturnType<typeof invitationView>;
