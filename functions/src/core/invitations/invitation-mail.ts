/**
 * The invitation's mail, written when the drainer sends it (core/outbox/drain), from the invitation
 * as it is then: a revoked, taken-up or expired one sends nothing, and of a resent one only the
 * latest mail goes. It links to the sign-in page and carries no code: whoever opens the link, a
 * person or a mail scanner, is shown a page, and only a code mailed later to the address signs in.
 */
import type { Deps } from "../deps";
import type { Handlers } from "../outbox/handlers";
import type { MailMessage } from "../ports";
import * as invitations from "../../store/invitations";
import { composeMail as mail, link, plain } from "../mail/compose";
import { isLive, type Invitation } from "../model/invitation";
import { inviterStands } from "../people/inviters";

/** Who invited, as the mail names them: an administrator by address, the operator by role. */
function inviterOf(invitation: Invitation, host: string): string {
  const by = invitation.invitedBy;
  if (by.kind === "admin" && by.email !== null) return by.email;
  return `The people who run ${host}`;
}

/** What the invitation gives, in words: its role and projects. */
function givesWords(invitation: Invitation): string {
  const projects = invitation.projects.filter((p) => p !== "*");
  const parts = [
    invitation.role === "admin" ? "as an administrator" : "",
    invitation.projects.includes("*")
      ? "with access to every project"
      : projects.length > 0
        ? `with access to ${projects.join(", ")}`
        : "",
  ].filter((p) => p !== "");
  return parts.length === 0 ? "" : `, ${parts.join(", ")}`;
}

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

export function invitationMail(invitation: Invitation, idUrl: string): MailMessage {
  const host = new URL(idUrl).host;
  const to = invitation.address;
  return mail(to, `You're invited to ${host}`, [
    plain(`${inviterOf(invitation, host)} invited you to ${host}${givesWords(invitation)}.`),
    ...(invitation.note === "" ? [] : [plain(`Their note: “${invitation.note}”`)]),
    link("Sign in", `${idUrl}/`),
    plain(
      `Sign in with this address, ${to}: we email you a code to enter, or use a provider that knows this address. ` +
        `The invitation lasts until ${dayOf(invitation.expiresAt)} (UTC).`,
    ),
    plain("If you did not expect this, you can ignore this email: nothing happens unless you sign in."),
  ]);
}

export function invitationHandlers(deps: Pick<Deps, "store" | "clock" | "config">): Pick<Handlers, "invitation"> {
  return {
    async invitation(entry) {
      const invitation = await invitations.find(deps.store, entry.about);
      if (invitation === null || !isLive(invitation, deps.clock.now())) return null;
      if (entry.id !== `${invitation.id}.${invitation.sends}`) return null;
      // Its inviter can no longer approve anyone: it lets nobody in, so it invites nobody.
      if (!(await inviterStands(deps, invitation))) return null;
      return invitationMail(invitation, deps.config.idUrl);
    },
  };
}
