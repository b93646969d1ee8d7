/**
 * How the invitation pages say what the invitation endpoints answer. Pure, plain text only.
 */
import type { InvitationView } from "../../../functions/src/core/invitations/invitation-view";
import { exactly, projectName, ROLE_WORDS } from "./people-words";

export type { InvitationView };

/** "Member · calendar, location" */
export function givesWords(invitation: Pick<InvitationView, "role" | "projects" | "groups">): string {
  const projects = invitation.projects.map(projectName).join(", ") || "no projects";
  const groups = invitation.groups.length === 0 ? [] : [`groups ${invitation.groups.join(", ")}`];
  return [ROLE_WORDS[invitation.role], projects, ...groups].join(" · ");
}

/** "Waiting until 11 Dec 2026, 10:00 · sent once" or "Expired on …" */
export function standingWords(invitation: Pick<InvitationView, "state" | "expiresAt" | "sends">): string {
  const until =
    invitation.state === "live"
      ? `Waiting until ${exactly(invitation.expiresAt)}`
      : `Expired on ${exactly(invitation.expiresAt)}`;
  const sent = invitation.sends === 1 ? "sent once" : `sent ${invitation.sends} times`;
  return `${until} · ${sent}`;
}

/** A list typed into one field, split at commas: "calendar, location". */
export function typedList(typed: string): string[] {
  return [
    ...new Set(
      typed
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== ""),
    ),
  ];
}

export const OUTCOME_WORDS = {
  invited: "Invited",
  "already-invited": "Invited already: left as it is",
  held: "Already has an account: nothing done",
} as const;

export const WOULD_WORDS = {
  invited: "Will be invited",
  "already-invited": "Invited already: will be left as it is",
  held: "Already has an account: nothing will be done",
} as const;
