/**
 * Inviting people before they ask: an administrator (with a recent sign-in: an invitation approves
 * someone, which widens access) or the operator names an address and what it will have. Nobody
 * holds the address until its owner proves it, as anyone signs in (core/arrival/arrival): the mail
 * links to the sign-in page and carries nothing that signs in, so a scanner that opens it changes
 * nothing. Invitations are listed, sent again (which renews them) and revoked; each act is kept in
 * the inviter's history, and the person's history begins with who invited them.
 */
import { DAY, MINUTE } from "../../clock";
import type { Deps } from "../deps";
import type { Transaction } from "../../store/db";
import * as invitations from "../../store/invitations";
import * as personKeys from "../../store/person-keys";
import { AppError, ensure, limitReached } from "../errors";
import { enqueue } from "../outbox/enqueue";
import { characters, cleanText } from "../text";
import {
  EXPIRED_KEPT_DAYS,
  INVITATION_DAYS,
  INVITATION_MAX_DAYS,
  INVITATION_NOTE_MAX,
  isLive,
  type Invitation,
  type InvitationTerms,
} from "../model/invitation";
import { ensureAdminActs, ensureStepUp, personName, recordedAs, type ActingOnOthers } from "../people/acting";
import { recordEvent } from "../people/history";
import type { HistoryEvent } from "../model/history";
import { PAST_STEP_UP } from "../model/step-up";

export type InviteDeps = Pick<Deps, "store" | "clock" | "random" | "transaction" | "mailQueue" | "log" | "config">;

/** An invitation's mail waits at most this long in the outbox: a day, as a notice does. */
const MAIL_WITHIN_MS = DAY;
/** The least time between two mails of one invitation. */
export const RESEND_WAIT_MS = 10 * MINUTE;

/** What inviting an address did, or (a dry run) would do. */
export type InviteOutcome =
  | { outcome: "invited"; invitation: Invitation }
  /** A live invitation of the address is left as it is: a file run again invites nobody twice. */
  | { outcome: "already-invited"; invitation: Invitation }
  /** A person holds the address already: nothing is made; their access is changed on them. */
  | { outcome: "held"; personId: string };

const STEP_UP = `Inviting someone gives them access: sign in again first (your sign-in is ${PAST_STEP_UP} old)`;

/**
 * An invitation approves someone ahead, as a review's approval does, so an administrator who
 * invites (or renews an invitation) has signed in within the step-up window, with a passkey where
 * the passkey rule holds them; an operator needs none. Asked before the first invitation (a file
 * is never refused half-way for a sign-in grown old); each invitation's own transaction reads the
 * rule again (ensureAdminActs).
 */
export async function ensureMayInvite(
  deps: Pick<Deps, "clock" | "store" | "config" | "transaction">,
  by: ActingOnOthers,
): Promise<void> {
  ensureStepUp(deps, await deps.transaction((tx) => ensureAdminActs(deps, tx, by)), STEP_UP);
}

/** The terms as kept: a name and note as plain text within their limits, lists without repeats. */
export function cleanTerms(terms: InvitationTerms): InvitationTerms {
  const note = cleanText(terms.note);
  ensure(
    characters(note) <= INVITATION_NOTE_MAX,
    "invalid_invitation",
    `note is at most ${INVITATION_NOTE_MAX} characters`,
  );
  return {
    ...terms,
    name: personName(terms.name),
    note,
    projects: [...new Set(terms.projects)],
    groups: [...new Set(terms.groups)],
  };
}

export function lifetimeDays(days: number | undefined): number {
  const chosen = days ?? INVITATION_DAYS;
  ensure(
    Number.isInteger(chosen) && chosen >= 1 && chosen <= INVITATION_MAX_DAYS,
    "invalid_invitation",
    `days is a whole number from 1 to ${INVITATION_MAX_DAYS}`,
  );
  return chosen;
}

const forgetAfter = (invitation: Invitation) => new Date(invitation.expiresAt.getTime() + EXPIRED_KEPT_DAYS * DAY);

/** Queues the invitation's mail in `tx`: written when it is sent, so a revoked one never goes. */
function queueMail(deps: InviteDeps, tx: Transaction, invitation: Invitation): void {
  enqueue(deps, tx, {
    // The entry of its latest mail: a resend makes the one before it say nothing (invitationHandlers).
    id: `${invitation.id}.${invitation.sends}`,
    kind: "invitation",
    about: invitation.id,
    deliverBy: new Date(deps.clock.now().getTime() + MAIL_WITHIN_MS),
  });
}

/** Records the act in the inviter's own history, naming the address (an operator keeps none). */
function recordInInviter(
  deps: InviteDeps,
  tx: Transaction,
  by: ActingOnOthers,
  event: HistoryEvent,
  invitation: Pick<Invitation, "address" | "role" | "projects" | "groups">,
) {
  if (!("admin" in by)) return;
  recordEvent(deps, tx, {
    personId: by.admin.id,
    ...recordedAs(by),
    event,
    changes: { invited: { from: null, to: invitation.address } },
    // The trail keeps what the invitation lets in, never the address.
    audited: { role: invitation.role, projects: invitation.projects, groups: invitation.groups },
  });
}

/**
 * Invites one address, in one transaction: a person holding it, or a live invitation of it, leaves
 * everything as it is (an expired one is replaced). `dryRun` reads alike and writes nothing. The
 * caller has checked the inviter's step-up (ensureMayInvite), once for a whole file, and wakes the
 * drain once, however many it invited (core/outbox/wake `oneWakeAfter`).
 */
export async function inviteOne(
  deps: InviteDeps,
  given: InvitationTerms,
  by: ActingOnOthers,
  options: { days?: number; dryRun?: boolean } = {},
): Promise<InviteOutcome> {
  const terms = cleanTerms(given);
  const days = lifetimeDays(options.days);
  const inviter = by;
  return deps.transaction(async (tx): Promise<InviteOutcome> => {
    const by = await ensureAdminActs(deps, tx, inviter);
    const holderId = await personKeys.keyHolder(deps.store, tx, "email", terms.address);
    if (holderId !== null) return { outcome: "held", personId: holderId };
    const now = deps.clock.now();
    const existing = await invitations.findByAddress(deps.store, terms.address, tx);
    if (existing !== null && isLive(existing, now)) return { outcome: "already-invited", invitation: existing };
    const invitation: Invitation = {
      ...terms,
      id: invitations.invitationId(terms.address),
      invitedBy: recordedAs(by).by,
      invitedAt: now,
      expiresAt: new Date(now.getTime() + days * DAY),
      sentAt: now,
      sends: (existing?.sends ?? 0) + 1,
    };
    if (options.dryRun) return { outcome: "invited", invitation };
    invitations.save(deps.store, tx, invitation, forgetAfter(invitation));
    queueMail(deps, tx, invitation);
    recordInInviter(deps, tx, by, "invited-someone", invitation);
    return { outcome: "invited", invitation };
  });
}

/** Inviting one address as the API and the CLI's single form do: held or invited already is a refusal. */
export async function invite(
  deps: InviteDeps,
  terms: InvitationTerms,
  by: ActingOnOthers,
  days?: number,
): Promise<Invitation> {
  await ensureMayInvite(deps, by);
  const done = await inviteOne(deps, terms, by, { days });
  if (done.outcome === "held")
    throw new AppError(
      "address_held",
      `That address is already on a person (${done.personId}): change their access instead`,
    );
  ensure(done.outcome === "invited", "already_invited");
  return done.invitation;
}

/**
 * Sends the invitation again, renewed for `days` from now (at most one mail each RESEND_WAIT_MS).
 * One whose address a person has come to hold since is dead: it is removed and refused.
 */
export async function resendInvitation(
  deps: InviteDeps,
  id: string,
  given: ActingOnOthers,
  days?: number,
): Promise<Invitation> {
  await ensureMayInvite(deps, given);
  const lasts = lifetimeDays(days);
  const invitation = await deps.transaction(async (tx) => {
    const by = await ensureAdminActs(deps, tx, given);
    const current = await invitations.find(deps.store, id, tx);
    ensure(current, "invitation_not_found");
    const holderId = await personKeys.keyHolder(deps.store, tx, "email", current.address);
    const now = deps.clock.now();
    if (holderId !== null) {
      invitations.remove(deps.store, tx, id);
      return holderId;
    }
    const again = new Date(current.sentAt.getTime() + RESEND_WAIT_MS);
    if (again.getTime() > now.getTime()) throw limitReached("invitation_just_sent", now, again);
    const next: Invitation = {
      ...current,
      expiresAt: new Date(now.getTime() + lasts * DAY),
      sentAt: now,
      sends: current.sends + 1,
    };
    invitations.save(deps.store, tx, next, forgetAfter(next));
    queueMail(deps, tx, next);
    recordInInviter(deps, tx, by, "invitation-resent", current);
    return next;
  });
  if (typeof invitation === "string")
    throw new AppError("address_held", `That address is on a person now (${invitation}): the invitation is gone`);
  return invitation;
}

/** Revokes it: its address is a stranger's again, and a mail not yet sent never goes. */
export async function revokeInvitation(deps: InviteDeps, id: string, given: ActingOnOthers): Promise<Invitation> {
  return deps.transaction(async (tx) => {
    const by = await ensureAdminActs(deps, tx, given);
    const current = await invitations.find(deps.store, id, tx);
    ensure(current, "invitation_not_found");
    invitations.remove(deps.store, tx, id);
    recordInInviter(deps, tx, by, "invitation-revoked", current);
    return current;
  });
}

/** Where an invitation stands in the list, newest first: when it was made, then its id (as people's listKeyOf). */
const listKeyOf = (invitation: Invitation) => `${invitation.invitedAt.toISOString()}~${invitation.id}`;

/** A page of invitations, newest first, after the one whose list key is `after`; `next` continues it. */
export async function listInvitations(
  deps: Pick<Deps, "store">,
  limit: number,
  after: string | null,
): Promise<{ invitations: Invitation[]; next: string | null }> {
  const [at = "", id = ""] = after?.split("~") ?? [];
  const from = after === null ? null : { at: new Date(at), id };
  ensure(from === null || !Number.isNaN(from.at.getTime()), "invalid_people_query", "cursor is not one this list gave");
  const found = await invitations.page(deps.store, limit + 1, from);
  const shown = found.slice(0, limit);
  const last = shown[shown.length - 1];
  return { invitations: shown, next: found.length > limit && last ? listKeyOf(last) : null };
}

export async function findInvitation(deps: Pick<Deps, "store">, id: string): Promise<Invitation> {
  const found = await invitations.find(deps.store, id);
  ensure(found, "invitation_not_found");
  return found;
}
