/**
 * What a person is told of their own account, by mail through the outbox (core/outbox/enqueue), so
 * a mail server that is down delays a notice and never the action, and an action that does not
 * commit sends nothing:
 *
 * - a sign-in from a browser not seen before for them (`newBrowser`; they may turn it off);
 * - a way in changed: a passkey added or removed, an address or number added or removed
 *   (`waysIn`); an address taken off them is told apart (`addressRemoved`), that it was removed
 *   and when, and nothing of the account it left: whoever holds an old address learns no new one;
 * - their access changed by someone else: role, status, projects, groups, sessions ended
 *   (`access`).
 *
 * Each says what happened, when, from which browser and system (or who, where no browser of
 * theirs did it), and links to the account page, where "Sign out everywhere else" is; never a
 * credential. Each kind can be turned off by the operator (NOTIFY_*).
 *
 * The action that has something to tell writes one outbox entry (`queueNotice`) and reads
 * nothing for it; how many are sent, and the mail itself, are decided as it is sent
 * (core/notices/security-mail).
 */
import { errorText } from "../../logger";
import * as people from "../../store/people";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { NoticeSettings } from "../settings";
import { enqueue, enqueueAlone, NOTICE_DELIVER_WITHIN_MS, type Queueing } from "../outbox/enqueue";
import type { OutboxNotice } from "../model/outbox";
import { type Person } from "../model/person";
import type { ProviderAccount } from "../ports";

export type NoticeKind = keyof NoticeSettings;

/** The notice to an address taken off a person, sent to it alone; on with the ways-in notices. */
export const ADDRESS_REMOVED = "addressRemoved";

/** Something to tell a person. `from`: the browser and system that did it, or who did it. */
export interface SecurityEvent {
  kind: NoticeKind | typeof ADDRESS_REMOVED;
  lines: string[];
  from: string;
  /** The digest of a browser to remember as theirs once the notice is written. */
  learn?: string | null;
  /** Nothing to tell, only a browser to remember (their first): takes no place in the hour's count. */
  quiet?: boolean;
  /**
   * Told at once, never folded into the hour's summary: what says a credential may be in someone
   * else's hands (a recovery code used, a passkey added to a person the passkey rule holds) or that
   * the operator broke the glass. Each is bounded by what causes it (ten codes to a set; a passkey
   * sign-in of the person's own, or their enrolment's first passkey; the operator's own commands),
   * so it cannot flood a mailbox.
   */
  urgent?: boolean;
}

type QueueDeps = Pick<Deps, "store" | "clock" | "random">;

/** Whom a notice is about, and the one address it goes to (null: their first address when it is sent). */
export interface Recipient {
  personId: string;
  to: string | null;
}

/**
 * Where the notice of a change from `before` to `after` goes, decided as the change is made: the
 * first address the person had before it that they still have after it. So a change that adds
 * an address and makes it the first is told at the address mail went to until then, never at
 * the new one; and an address the change took off them hears only that (addressRemovedEvent),
 * never what the account holds now. A person whose every address went is told at the new first.
 */
export function recipientOf(before: Person, after: Person = before): Recipient {
  const kept = before.emails.find((e) => after.emails.includes(e));
  return { personId: before.id, to: kept ?? after.emails[0] ?? null };
}

/**
 * The recipient of a notice about `personId`, from the person as `tx` reads them now: for an
 * action that has not read them otherwise. A transaction reads before it writes, so call it first.
 */
export async function readRecipient(deps: Pick<Deps, "store">, tx: Transaction, personId: string): Promise<Recipient> {
  const person = await people.findById(deps.store, personId, tx);
  return { personId, to: person?.emails[0] ?? null };
}

function queueing(deps: QueueDeps, recipient: Recipient, event: SecurityEvent): Queueing<"security-notice"> {
  const at = deps.clock.now();
  const notice: OutboxNotice = {
    kind: event.kind,
    lines: event.lines,
    at,
    from: event.from,
    learn: event.learn ?? null,
    quiet: event.quiet ?? false,
    ...(event.urgent === true ? { urgent: true } : {}),
    folded: {},
  };
  const deliverBy = new Date(at.getTime() + NOTICE_DELIVER_WITHIN_MS);
  return { kind: "security-notice", about: recipient.personId, to: recipient.to, deliverBy, notice };
}

/**
 * Queues the notice in `tx`, the action's own transaction: one outbox write, nothing read; its
 * address is fixed now (`recipient`, see recipientOf). Returns its entry's id.
 */
export function queueNotice(deps: QueueDeps, tx: Transaction, recipient: Recipient, event: SecurityEvent): string {
  return enqueue(deps, tx, queueing(deps, recipient, event));
}

/**
 * Queues the notice of an action that has no transaction of its own (POST /auth/verify): one
 * write, nothing read. Never fails the action: a notice that cannot be queued is logged and dropped.
 */
export async function queueNoticeAlone(
  deps: QueueDeps & Pick<Deps, "mailQueue" | "log">,
  recipient: Recipient,
  event: SecurityEvent,
): Promise<void> {
  try {
    await enqueueAlone(deps, queueing(deps, recipient, event));
  } catch (err) {
    deps.log.warn("security notice not queued", { kind: event.kind, error: errorText(err) });
  }
}

// What each event says. Plain text; the mail escapes it.

/** Who did it, where it was not the person: an administrator (from their browser), or an operator. */
export const byAdmin = (browser: string) => `an administrator, from ${browser}`;
export const BY_OPERATOR = "an operator, on the command line";

export function newBrowserEvent(from: string, learn: string, quiet: boolean): SecurityEvent {
  return {
    kind: "newBrowser",
    lines: ["Someone signed in to your account from a browser not seen before on it."],
    from,
    learn,
    quiet,
  };
}

export function passkeysEvent(change: "added" | "removed", names: string[], from: string): SecurityEvent {
  const quoted = names.map((n) => `“${n}”`).join(", ");
  const what = names.length === 1 ? `A passkey was ${change}` : `${names.length} passkeys were ${change}`;
  return { kind: "waysIn", lines: [`${what}: ${quoted}.`], from };
}

/** How a person knows the identity provider's sign-in methods; a bridge or other provider by its own name. */
const PROVIDER_NAMES: Record<string, string> = {
  password: "email and password",
  phone: "phone number",
  "google.com": "Google",
  "apple.com": "Apple",
  "microsoft.com": "Microsoft",
  "github.com": "GitHub",
};

/**
 * How a person knows one of their accounts at the provider: each sign-in linked to it by name,
 * with the address or account it names ("Google (ada@example.test)"); "email code (address)" for
 * the account made for an address at a code sign-in.
 */
export function accountLabel(account: ProviderAccount): string {
  const linked = account.providers.filter((p) => p.provider !== "password" && p.provider !== "phone");
  if (linked.length === 0) {
    // A bridge's account is made by the service, named `<bridge>:<account there>`.
    const bridged = /^([a-z][a-z0-9.-]*):(.+)$/.exec(account.uid);
    if (bridged !== null) return `${bridged[1]} (${bridged[2]})`;
    const has = (provider: string) => account.providers.some((p) => p.provider === provider);
    const what = has("password") ? "email and password" : has("phone") ? "phone number" : "email code";
    const which = has("phone") && !has("password") ? account.phone : (account.email ?? account.phone);
    return which === null ? what : `${what} (${which})`;
  }
  return linked
    .map((p) => {
      const name = PROVIDER_NAMES[p.provider] ?? p.provider;
      const which = p.email ?? p.account;
      return which === null ? name : `${name} (${which})`;
    })
    .join(", ");
}

/** A provider's account linked to the person by a sign-in with an address or number of theirs. */
export function accountLinkedEvent(provider: string, account: string | null, from: string): SecurityEvent {
  const name = PROVIDER_NAMES[provider] ?? provider;
  const which = account === null ? name : `${name} (${account})`;
  return {
    kind: "waysIn",
    lines: [`A sign-in by ${which} was linked to your account, and now signs in as you.`],
    from,
  };
}

/** A provider's account the person unlinked from their account page: it no longer signs in as them. */
export function accountUnlinkedEvent(account: string, from: string): SecurityEvent {
  return { kind: "waysIn", lines: [`A sign-in by ${account} was unlinked, and no longer signs in as you.`], from };
}

export function sessionsEndedEvent(count: number, from: string): SecurityEvent {
  const what = count === 1 ? "One of your sessions was ended" : `${count} of your sessions were ended`;
  return { kind: "access", lines: [`${what}: the browsers they were in are signed out.`], from };
}

export function appDisconnectedEvent(app: string, from: string): SecurityEvent {
  return {
    kind: "access",
    lines: [
      `The app “${app}” was disconnected from your account: it can no longer act for you, and was told you signed out of it.`,
    ],
    from,
  };
}

const listed = (values: string[]) => values.join(", ");
const gone = (before: string[], after: string[]) => before.filter((v) => !after.includes(v));

/**
 * What a change to a person tells them, for the kinds the operator has on: ways in first (with
 * what went with a removed address: `withIt`), then access; null when it tells nothing. A decision on a pending person is told by the review
 * notices (core/notices/review-notices), not here.
 */
export function personChangeEvent(
  settings: NoticeSettings,
  before: Person,
  after: Person,
  from: string,
  withIt: { accounts?: string[]; passkeys?: string[]; codes?: boolean } = {},
): SecurityEvent | null {
  const { accounts: accountsLetGo = [], passkeys = [], codes = false } = withIt;
  const waysIn: string[] = [];
  const lines = (label: string, field: "emails" | "phones") => {
    const added = gone(after[field], before[field]);
    const removed = gone(before[field], after[field]);
    if (added.length > 0) waysIn.push(`${label} added: ${listed(added)}.`);
    if (removed.length > 0) waysIn.push(`${label} removed: ${listed(removed)}.`);
  };
  lines("Address", "emails");
  // The address mail goes to is a way in too: whoever reads it can sign in by code.
  const [first, next] = [before.emails[0], after.emails[0]];
  if (first !== undefined && next !== undefined && first !== next && after.emails.includes(first))
    waysIn.push(`Mail for your account now goes to ${next}, no longer to ${first}.`);
  lines("Phone number", "phones");
  if (accountsLetGo.length > 0)
    waysIn.push(`These sign-ins went with it, and no longer sign in as you: ${listed(accountsLetGo)}.`);
  if (passkeys.length > 0)
    waysIn.push(
      `${passkeys.length === 1 ? "A passkey" : `${passkeys.length} passkeys`} added from a sign-in through it went with it, and no longer sign${passkeys.length === 1 ? "s" : ""} you in: ${passkeys.map((n) => `“${n}”`).join(", ")}.`,
    );
  if (codes) waysIn.push("Your recovery codes, made from a sign-in through it, went with it.");
  const access: string[] = [];
  // A review's decision is told by its own notice (review-notices), the grants given with it
  // included: one mail, and none of the hour's places taken. A role given with it is told.
  const reviewed = before.status === "pending" && after.status !== "pending";
  if (before.status !== after.status && !reviewed)
    access.push(`Your account's status changed from ${before.status} to ${after.status}.`);
  if (before.role !== after.role) access.push(`Your role changed from ${before.role} to ${after.role}.`);
  const grants = [
    ["project", "projects"],
    ["group", "groups"],
  ] as const;
  for (const [label, field] of reviewed ? [] : grants) {
    const added = gone(after[field], before[field]);
    const removed = gone(before[field], after[field]);
    if (added.length > 0) access.push(`Access given to ${label}${added.length > 1 ? "s" : ""}: ${listed(added)}.`);
    if (removed.length > 0)
      access.push(`Access taken away from ${label}${removed.length > 1 ? "s" : ""}: ${listed(removed)}.`);
  }
  const told = [...(settings.waysIn ? waysIn : []), ...(settings.access ? access : [])];
  if (told.length === 0) return null;
  const kind: NoticeKind = settings.waysIn && waysIn.length > 0 ? "waysIn" : "access";
  return { kind, lines: told, from };
}

/**
 * The notices to the addresses a change took off the person, apart from theirs, one each (a
 * message names no other address): each says only that the address was removed, and when
 * (security-mail), never what the account holds now.
 */
export function addressRemovedNotices(
  settings: NoticeSettings,
  before: Person,
  after: Person,
): Array<{ recipient: Recipient; event: SecurityEvent }> {
  if (!settings.waysIn) return [];
  return gone(before.emails, after.emails).map((to) => ({
    recipient: { personId: before.id, to },
    event: { kind: ADDRESS_REMOVED, lines: [], from: "" },
  }));
}

export function newBrowserNoticesOffEvent(from: string): SecurityEvent {
  return {
    kind: "access",
    lines: [
      "Notices of sign-ins from new browsers were turned off: nothing will tell you of one until they are turned on again on your account page.",
    ],
    from,
  };
}
