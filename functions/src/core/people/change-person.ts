/**
 * Changing a person (status, role, projects, groups, name, addresses): by an administrator, the
 * operator or the person themselves, with the step-up a widening asks, in one transaction with
 * its history, its notices and the provider's sync; and reviewing several at once. Finding
 * people is core/people/find-people.
 */
import { signInsEnding, signInsLosing, tellClients } from "./sign-in-ends";
import { takesAccessAway } from "./access";
import type { Deps } from "../deps";
import * as people from "../../store/people";
import { AppError, ensure, type ErrorCode } from "../errors";
import { errorText } from "../../logger";
import { changesBetween } from "./history";
import { queueReviewNotice } from "../notices/review-notices";
import { publishAndRecord } from "./person-events";
import {
  accountLabel,
  addressRemovedNotices,
  BY_OPERATOR,
  personChangeEvent,
  queueNotice,
  recipientOf,
} from "../notices/security-notices";
import { accountsOfRemoved, deleteLetGo, queueAccountDeletions } from "./accounts";
import * as sessions from "../../store/sessions";
import { openedThrough } from "./sessions-through";
import { translateFailure, type Failure } from "../failures";
import type { ProviderAccount } from "../ports";
import * as invitations from "../../store/invitations";
import { revokeInvitationsOf } from "./inviters";
import { enrolmentEvent } from "../notices/passkey-notices";
import { endedWith, heldKeys, openedByKey, removeHeldKeys, takesRuledRole } from "./promotion-keys";
import {
  approvedAdmin,
  enrolmentEnds,
  ensureAdminActs,
  ensureKeepsAnAdmin,
  passkeyRule,
  ruledBy,
  ensureOwnAccount,
  ensureOwnWaysIn,
  ensureOwnChange,
  ensureStepUp,
  mayChangePasskeys,
  personName,
  recordedAs,
  toldAs,
  type Acting,
  type ActingOnOthers,
} from "./acting";
import { tokensValidFrom, type KeyKind, type Person, type PersonStatus, type Role } from "../model/person";
import { PAST_STEP_UP } from "../model/step-up";
import * as personKeys from "../../store/person-keys";
import type { Transaction } from "../../store/db";

export interface PersonChange {
  status?: PersonStatus;
  role?: Role;
  projects?: string[];
  groups?: string[];
  name?: string;
  emails?: string[];
  phones?: string[];
}

/**
 * What proves to the person's own session that the addresses it adds are theirs: the code mailed
 * to each (core/account/addresses), checked in the change's transaction after the person is read
 * and before anything else is judged. `refusal` null lets the change go on; `record()` writes the
 * check's own effect (an attempt spent, the code consumed) whether or not the change is made.
 */
export interface Proof {
  emails: string[];
  check(tx: Transaction): Promise<{ refusal: ErrorCode | null; record(): void }>;
}

export type ChangeDeps = Pick<
  Deps,
  "store" | "clock" | "identity" | "personCache" | "log" | "transaction" | "random" | "config" | "mailQueue"
>;

/** What a widening change refused for want of step-up says. */
const WIDENS = `This widens someone's access: sign in again first (your sign-in is ${PAST_STEP_UP} old)`;

export interface SyncError {
  uid: string;
  operation: "revoke_sessions" | "delete_account";
  error: string;
}

const added = (before: string[], after: string[]) => after.some((v) => !before.includes(v));
const lost = (before: string[], after: string[]) => before.some((v) => !after.includes(v));

/**
 * Whether a change widens what the person can do: approves them, makes them an administrator,
 * grants a project or a group, or adds a way in (an address or number). Such a change needs a
 * fresh sign-in of whoever makes it (step-up); one that only narrows never does.
 */
export function widened(before: Person, after: Person): boolean {
  return (
    (after.status === "approved" && before.status !== "approved") ||
    (after.role === "admin" && before.role !== "admin") ||
    added(before.projects, after.projects) ||
    added(before.groups, after.groups) ||
    added(before.emails, after.emails) ||
    added(before.phones, after.phones)
  );
}

/**
 * The person's accounts at the identity provider, as far as this change has asked for them:
 * `asked`, every uid asked about (one the provider no longer holds is asked, and not found).
 */
interface KnownAccounts {
  asked: Set<string>;
  found: ProviderAccount[];
}

/** Thrown inside the change's transaction when it takes a way in off a person whose accounts it has not read yet. */
class AccountsUnread extends Error {
  constructor(readonly uids: string[]) {
    super("the person's provider accounts are to be read first");
  }
}

const ACCOUNTS_UNREADABLE: Failure = {
  code: "service_unavailable",
  log: "reading a person's provider accounts failed",
  level: "warn",
};

/**
 * Applies a change to a person in one transaction: a change that widens access needs an
 * administrator's recent sign-in (step-up; an operator needs none), every address and number it
 * adds must be free, and the last approved administrator stays one (409 otherwise, nothing
 * written). A person may change their own name, with no step-up, and their own addresses: reorder
 * them, remove all but one, and add one only with its `proof` (acting `ensureOwnChange`). The person's
 * history records who made it, and what it changed; an approval (or, where turned on, a
 * rejection) queues the person's notice in the same transaction (core/notices/review-notices). An
 * address or number taken off them takes with it the provider accounts that sign in with it
 * (core/people/accounts `accountsOfRemoved`): let go in the change, deleted at the provider after
 * it; an address also takes the passkeys and recovery codes a sign-in through it added, and the
 * sessions all of these opened. When the change takes access away, the person's provider sessions
 * are revoked so no new session can be minted from an older ID token; a failure there does not
 * undo the change and is reported instead.
 */
export async function changePerson(
  deps: ChangeDeps,
  personId: string,
  change: PersonChange | ((current: Person) => PersonChange),
  by: Acting,
  proof?: Proof,
): Promise<{ person: Person; providerSyncErrors: SyncError[] }> {
  // Their own account is the one a person may change; anyone else's is an administrator's.
  ensureOwnAccount(by, personId);
  // Read from the provider only for a change that takes a way in away, outside the transaction,
  // which then runs again with them; an account linked meanwhile is read in turn.
  const known: KnownAccounts = { asked: new Set(), found: [] };
  for (let attempt = 0; ; attempt++) {
    try {
      return await changeWith(deps, personId, change, by, proof, known);
    } catch (err) {
      if (!(err instanceof AccountsUnread)) throw err;
      // Accounts linked faster than they can be read: contention, retried by the caller.
      ensure(attempt < 3, "service_unavailable");
      const found = await translateFailure(deps, ACCOUNTS_UNREADABLE, () => deps.identity.describeAccounts(err.uids));
      for (const uid of err.uids) known.asked.add(uid);
      known.found.push(...found);
    }
  }
}

async function changeWith(
  deps: ChangeDeps,
  personId: string,
  change: PersonChange | ((current: Person) => PersonChange),
  by: Acting,
  proof: Proof | undefined,
  known: KnownAccounts,
): Promise<{ person: Person; providerSyncErrors: SyncError[] }> {
  const { store } = deps;
  let accountsLetGo: string[] = [];
  const { before, after, refused } = await deps.transaction(async (tx) => {
    // The passkey rule, read in this transaction: an administrator acts as one only from a passkey sign-in.
    const acting = await ensureAdminActs(deps, tx, by);
    const current = await people.findById(store, personId, tx);
    ensure(current, "person_not_found");
    // The proof is judged first: without it, nothing is said of who holds what it would add.
    const proven = proof === undefined ? null : await proof.check(tx);
    if (proven !== null && proven.refusal !== null) {
      proven.record();
      return { before: current, after: current, refused: proven.refusal };
    }
    // A function computes the change from the person as read in this transaction (a grant adds to
    // the projects then current, not to a copy read earlier).
    const given = typeof change === "function" ? change(current) : change;
    // A name is plain text, whoever gives it.
    const fields = given.name === undefined ? given : { ...given, name: personName(given.name) };
    const asked: Person = { ...current, ...fields, updatedAt: deps.clock.now() };
    // Given a role (made an administrator): the grace in which they may add a passkey after an
    // email code starts now, whether or not the rule holds the role yet.
    if (asked.role !== current.role) asked.enrolmentFrom = asked.updatedAt;
    // Reviewed before a digest named them: the reviewers need not hear of them any more, nor of a suggestion.
    if (asked.status !== "pending") {
      delete asked.awaitingNotice;
      delete asked.suggestion;
    }
    const changes = changesBetween(current, asked);
    if ("self" in by) {
      ensureOwnChange(current, asked, Object.keys(changes), proof?.emails ?? []);
      // Their addresses are ways in: under the passkey rule, a passkey sign-in's to change.
      if (changes.emails !== undefined) await ensureOwnWaysIn(deps, by, tx, current);
      // Nothing changed: nothing to write, nor to record (a proof's own effect is written).
      if (Object.keys(changes).length === 0) {
        proven?.record();
        return { before: current, after: current, refused: null };
      }
    }
    // Judged on the person as this transaction reads them: a stolen session, or one left open on
    // a shared machine, cannot widen anyone's access without its owner signing in again.
    if (widened(current, asked)) ensureStepUp(deps, acting, WIDENS);
    // Made an administrator where the passkey rule holds them: the passkeys and recovery codes
    // they hold were a member's, and go (core/people/promotion-keys); they are told to add one.
    const rule = asked.role !== current.role ? await passkeyRule(deps, tx) : null;
    const promoted = rule !== null && takesRuledRole(rule, current, asked);
    const keys = rule !== null && ruledBy(rule, asked) ? await heldKeys(deps, tx, personId) : null;
    // A way in taken off them takes the accounts that sign in with it: whoever holds that mailbox
    // or number now (a former employer) must not sign in as them through a provider's account.
    const removing = lost(current.emails, asked.emails) || lost(current.phones, asked.phones);
    const unread = removing ? current.uids.filter((uid) => !known.asked.has(uid)) : [];
    if (unread.length > 0) throw new AccountsUnread(unread);
    const letGo = removing ? accountsOfRemoved(current, asked, known.found) : [];
    // So are the passkeys and recovery codes a sign-in through it added (their `address`, see
    // core/passkeys/rules `addressBehind`): whoever read that mailbox may have added their own.
    const removedEmails = current.emails.filter((e) => !asked.emails.includes(e));
    const through = (address: string | null) => address !== null && removedEmails.includes(address);
    // Read once, for the promotion and the removal alike.
    const holding = keys ?? (removedEmails.length === 0 ? null : await heldKeys(deps, tx, personId));
    const keysGone = holding?.passkeys.filter((p) => through(p.address)) ?? [];
    const codesGone = holding?.codes != null && through(holding.codes.address) ? holding.codes : null;
    // Their own session takes them only as it may change their passkeys (the passkey rule): a
    // relayed email code must not strip an administrator of them by removing an address.
    if ("self" in by && (keysGone.length > 0 || codesGone !== null))
      ensure(
        mayChangePasskeys(await passkeyRule(deps, tx), current, by.amr ?? [], deps.clock.now()),
        "passkey_required",
        "Passkeys added through this address go with it: remove it from a sign-in with a passkey or a recovery code",
      );
    // And the sessions each of these opened, whichever account they are under: ended as logout
    // ends one (`endedSessions`, which every session request reads).
    const now = deps.clock.now();
    const ways = { addresses: removedEmails, passkeyIds: keysGone.map((p) => p.id), codesMadeAt: codesGone?.madeAt };
    const opened =
      removedEmails.length === 0 && !promoted
        ? []
        : (await sessions.findLive(store, personId, now, tx)).filter(
            (s) => openedThrough(s, ways) || (promoted && openedByKey(s)),
          );
    const next: Person = {
      ...asked,
      uids: asked.uids.filter((u) => !letGo.some((a) => a.uid === u)),
      ...(opened.length === 0 ? {} : { endedSessions: endedWith(current, opened, now) }),
      // And the ID tokens a code to it gave a client of its own (never made a session): refused
      // from now on by the gate, which reads this with the person, as the provider's refresh
      // tokens are revoked after the change. A code signs in as whichever account was the
      // person's first then, so every account's tokens end.
      ...(removedEmails.length === 0 ? {} : { tokensValidAfter: tokensValidFrom(now) }),
    };
    await ensureKeepsAnAdmin(deps, tx, current, next);
    const taken = next.emails.filter((e) => !current.emails.includes(e));
    const claims: Array<[KeyKind, string[]]> = [
      ["email", taken],
      ["phone", next.phones.filter((p) => !current.phones.includes(p))],
    ];
    for (const [kind, added] of claims) {
      for (const value of added) {
        const holder = await personKeys.keyHolder(store, tx, kind, value);
        if (holder !== null && holder !== personId) throw new AppError("person_conflict");
      }
    }
    // No longer approved, or without a project a client asks for: each client they may no longer
    // sign in to is told their sign-in ended (back-channel logout), read before any write.
    const losing = await signInsLosing(deps, tx, current, next);
    const fromEnded =
      opened.length === 0
        ? []
        : await signInsEnding(
            deps,
            tx,
            personId,
            opened.map((s) => s.sessionId),
          );
    const signedIn = [...losing, ...fromEnded.filter((s) => !losing.some((l) => l.sid === s.sid))];
    // What the person is told of it. Of a person's own change, only what their session names a
    // browser for (their addresses); a rename no notice tells them of.
    const from = toldAs(acting);
    const changed =
      from === null
        ? null
        : personChangeEvent(deps.config.notices, current, next, from, {
            accounts: letGo.map(accountLabel),
            passkeys: keysGone.map((p) => p.name),
            codes: codesGone !== null,
          });
    // Addressed now, from the person before the change (recipientOf): the change cannot redirect them.
    const notices = [
      ...(changed === null ? [] : [{ recipient: recipientOf(current, next), event: changed }]),
      ...(from === null ? [] : addressRemovedNotices(deps.config.notices, current, next)),
    ];
    const recorded = recordedAs(acting);
    // The apps hear of it in the same transaction (core/people/person-events).
    const written = publishAndRecord(deps, tx, current, next, recorded.by, recorded.via);
    proven?.record();
    people.replace(store, tx, current, written);
    for (const s of opened) sessions.markEnded(store, tx, s.sessionId, now);
    removeHeldKeys(deps, tx, personId, { passkeys: keysGone, codes: codesGone }, recorded);
    // An address someone holds is never invited: an invitation of it ends here, and cannot wake
    // again should the address be freed later (its grants, an administrator's role among them).
    for (const address of taken) invitations.remove(store, tx, invitations.invitationId(address));
    accountsLetGo = letGo.map((a) => a.uid);
    queueAccountDeletions(deps, tx, accountsLetGo);
    queueReviewNotice(deps, tx, current, next);
    for (const { recipient, event } of notices) queueNotice(deps, tx, recipient, event);
    // What the promotion takes beside what the address took: each key removed, and recorded, once.
    if (promoted && keys !== null) {
      const rest = {
        passkeys: keys.passkeys.filter((p) => !keysGone.includes(p)),
        codes: codesGone === null ? keys.codes : null,
      };
      removeHeldKeys(deps, tx, personId, rest, recorded);
    }
    if (keys !== null) {
      const removed = promoted ? { passkeys: keys.passkeys.map((p) => p.name), codes: keys.codes !== null } : undefined;
      const held = promoted ? 0 : keys.passkeys.length;
      const ends = enrolmentEnds(written, written.updatedAt);
      queueNotice(deps, tx, recipientOf(current, next), enrolmentEvent(ends, from ?? BY_OPERATOR, held, removed));
    }
    tellClients(deps, tx, signedIn);
    return { before: current, after: written, refused: null };
  });
  if (refused !== null) throw new AppError(refused);
  deps.personCache.evict(personId);
  // A removed address signs in no more: its accounts are gone at once (the queued deletions retry
  // what fails here).
  await deleteLetGo(deps, accountsLetGo);
  // No longer able to approve anyone: nor can the invitations they made (inviterStands holds meanwhile).
  if (approvedAdmin(before) && !approvedAdmin(after)) await revokeInvitationsOf(deps, personId);
  const providerSyncErrors: SyncError[] = [];
  // A change that takes access away ends the person's provider sessions (a waiting person who is
  // only renamed keeps the sign-in they wait with). A person's own change takes none away (a name,
  // their addresses), so their sessions stay; but an address taken off them, by anyone, ends the
  // provider sessions its codes began.
  if ((!("self" in by) && takesAccessAway(before, after)) || lost(before.emails, after.emails)) {
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

export type ReviewResult =
  | { personId: string; person: Person; providerSyncErrors: SyncError[] }
  | { personId: string; error: ErrorCode; detail: string | undefined };

/** How many reviews of one batch run at once. */
const REVIEWS_AT_ONCE = 4;

/**
 * Approves or rejects several people, each exactly as one PATCH would (its own transaction,
 * history and notice): one refused (gone, the last administrator) does not stop the others.
 */
export async function reviewMany(
  deps: ChangeDeps,
  personIds: string[],
  status: "approved" | "rejected",
  by: ActingOnOthers,
): Promise<ReviewResult[]> {
  const results: ReviewResult[] = [];
  for (let i = 0; i < personIds.length; i += REVIEWS_AT_ONCE) {
    const chunk = personIds.slice(i, i + REVIEWS_AT_ONCE);
    results.push(
      ...(await Promise.all(
        chunk.map(async (personId): Promise<ReviewResult> => {
          try {
            return { personId, ...(await changePerson(deps, personId, { status }, by)) };
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            return { personId, error: err.code, detail: err.detail };
          }
        }),
      )),
    );
  }
  return results;
}
