/**
 * An invitation: an administrator (or the operator) lets an address in before it asks. It is the
 * person to be, approved with the grants it names, made when the address is first proven (a code
 * sign-in, an access request, a provider or bridge sign-in with the address verified) before it
 * expires; until then nobody holds the address. No I/O here.
 */
import type { Actor } from "./history";
import type { Role } from "./person";

/** How long an invitation lasts unless the inviter says otherwise, and the longest it may. */
export const INVITATION_DAYS = 14;
export const INVITATION_MAX_DAYS = 90;
/** How long an expired invitation is still listed (to resend it), before it is forgotten. */
export const EXPIRED_KEPT_DAYS = 30;
/** The longest note an inviter may write to the person, in characters. */
export const INVITATION_NOTE_MAX = 1000;

export interface Invitation {
  /** Derived from the address (store/invitations), so one address has at most one invitation. */
  id: string;
  address: string;
  /** The name the person will have; "" for none (they may give one on their account page). */
  name: string;
  projects: string[];
  groups: string[];
  role: Role;
  /** What the inviter wrote to the person (plain text, core/text); "" for nothing. */
  note: string;
  invitedBy: Actor;
  invitedAt: Date;
  expiresAt: Date;
  /** When its mail was last queued (the invitation, or a resend). */
  sentAt: Date;
  /** How many mails it has had: 1, and one more for each resend. */
  sends: number;
}

/** What an invitation asks of the people it lets in: the fields a file's row or a form gives. */
export type InvitationTerms = Pick<Invitation, "address" | "name" | "projects" | "groups" | "role" | "note">;

/** Whether it still lets its address in at `now`. */
export const isLive = (invitation: Pick<Invitation, "expiresAt">, now: Date): boolean =>
  invitation.expiresAt.getTime() > now.getTime();
