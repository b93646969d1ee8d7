/**
 * What a person is told of their own account, by mail through the outbox (core/mail/outbox), so
 * a mail server that is down delays a notice and never the action, and an action that does not
 * commit sends nothing:
 *
 * - a sign-in from a browser not seen before for them (`newBrowser`; they may turn it off);
 * - a way in changed: a passkey added or removed, an address or number added or removed
 *   (`waysIn`; a removed address is told too);
 * - their access changed by someone else: role, status, projects, groups, sessions ended
 *   (`access`).
 *
 * Each says what happened, when, from which browser and system (or who, where no browser of
 * theirs did it), and links to the account page, where "Sign out everywhere else" is; never a
 * credential. Each kind can be turned off by the operator (NOTIFY_*).
 *
 * At most NOTICES_PER_HOUR are sent a person in any 60 minutes; the rest are folded into one
 * summary, sent when the earliest of those is an hour old (taking a place itself), to the person
 * and every address a folded notice was also for. The action that has something to tell writes
 * one outbox entry and reads nothing for it; the place is decided by the mail drainer as it
 * sends (`placeNotice`), in a transaction on the person's window (store/notice-windows), so a
 * burst of sign-ins costs each one write and never contends.
 */
import { DAY, HOUR } from "../../clock";
import { errorText } from "../../logger";
import * as outbox from "../../store/outbox";
import * as people from "../../store/people";
import * as windows from "../../store/notice-windows";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { NoticeSettings } from "../settings";
import { composeMail, link, plain, type Paragraph } from "../mail/compose";
import { NOTICE_DELIVER_WITHIN_MS, noticeEntry, wakeDrainer } from "../mail/outbox";
import type { Renderer } from "../mail/drain";
import type { MailMessage } from "../ports";
import { type Person } from "../model/person";

/** How many notices a person is sent in any 60 minutes before the rest are folded into one summary. */
export const NOTICES_PER_HOUR = 3;
/** How many browsers are remembered per person; the least recently learned goes first. */
export const KNOWN_BROWSERS_KEPT = 20;
/** The outbox kind of every security notice. */
export const SECURITY_NOTICE = "security-notice";

export type NoticeKind = keyof NoticeSettings;

/** Something to tell a person. `from`: the browser and system that did it, or who did it. */
export interface SecurityEvent {
  kind: NoticeKind;
  lines: string[];
  from: string;
  /** Addresses told besides the person's own: one just taken off them. */
  alsoTo?: string[];
  /** The digest of a browser to remember as theirs once the notice is written. */
  learn?: string | null;
  /** Nothing to tell, only a browser to remember (their first): takes no place in the hour's count. */
  quiet?: boolean;
}

type QueueDeps = Pick<Deps, "store" | "clock" | "random">;

function entryOf(deps: QueueDeps, personId: string, event: SecurityEvent): outbox.OutboxEntry {
  const at = deps.clock.now();
  const notice: outbox.OutboxNotice = {
    kind: event.kind,
    lines: event.lines,
    at,
    from: event.from,
    alsoTo: event.alsoTo ?? [],
    learn: event.learn ?? null,
    quiet: event.quiet ?? false,
    folded: {},
  };
  const deliverBy = new Date(at.getTime() + NOTICE_DELIVER_WITHIN_MS);
  return noticeEntry(deps, { kind: SECURITY_NOTICE, about: personId, deliverBy, notice });
}

/**
 * Queues the notice in `tx`, the action's own transaction: one outbox write, nothing read.
 * Returns its entry's id, for waking the drainer once `tx` has committed (wakeForNotice).
 */
export function queueNotice(deps: QueueDeps, tx: Transaction, personId: string, event: SecurityEvent): string {
  const entry = entryOf(deps, personId, event);
  outbox.add(deps.store, tx, entry);
  return entry.id;
}

/**
 * Queues the notice of an action that has no transaction of its own (POST /auth/verify): one
 * write, nothing read. Never fails the action: a notice that cannot be queued is logged and dropped.
 */
export async function queueNoticeAlone(
  deps: QueueDeps & Pick<Deps, "mailQueue" | "log">,
  personId: string,
  event: SecurityEvent,
): Promise<void> {
  try {
    await outbox.addAlone(deps.store, entryOf(deps, personId, event));
  } catch (err) {
    return deps.log.warn("security notice not queued", { kind: event.kind, error: errorText(err) });
  }
  await wakeDrainer(deps);
}

/** Wakes the drainer for what queueNotice queued (its id; null: nothing was), once its transaction has committed. */
export async function wakeForNotice(deps: Pick<Deps, "mailQueue" | "log">, queued: string | null): Promise<void> {
  if (queued !== null) await wakeDrainer(deps);
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

export function sessionsEndedEvent(count: number, from: string): SecurityEvent {
  const what = count === 1 ? "One of your sessions was ended" : `${count} of your sessions were ended`;
  return { kind: "access", lines: [`${what}: the browsers they were in are signed out.`], from };
}

const listed = (values: string[]) => values.join(", ");
const gone = (before: string[], after: string[]) => before.filter((v) => !after.includes(v));

/**
 * What a change to a person tells them, for the kinds the operator has on: ways in first, then
 * access; null when it tells nothing. A decision on a pending person is told by the review
 * notices (core/people/review-notices), not here.
 */
export function personChangeEvent(
  settings: NoticeSettings,
  before: Person,
  after: Person,
  from: string,
): SecurityEvent | null {
  const waysIn: string[] = [];
  const lines = (label: string, field: "emails" | "phones") => {
    const added = gone(after[field], before[field]);
    const removed = gone(before[field], after[field]);
    if (added.length > 0) waysIn.push(`${label} added: ${listed(added)}.`);
    if (removed.length > 0) waysIn.push(`${label} removed: ${listed(removed)}.`);
  };
  lines("Address", "emails");
  lines("Phone number", "phones");
  const access: string[] = [];
  if (before.status !== after.status && before.status !== "pending")
    access.push(`Your account's status changed from ${before.status} to ${after.status}.`);
  if (before.role !== after.role) access.push(`Your role changed from ${before.role} to ${after.role}.`);
  for (const [label, field] of [
    ["project", "projects"],
    ["group", "groups"],
  ] as const) {
    const added = gone(after[field], before[field]);
    const removed = gone(before[field], after[field]);
    if (added.length > 0) access.push(`Access given to ${label}${added.length > 1 ? "s" : ""}: ${listed(added)}.`);
    if (removed.length > 0)
      access.push(`Access taken away from ${label}${removed.length > 1 ? "s" : ""}: ${listed(removed)}.`);
  }
  const told = [...(settings.waysIn ? waysIn : []), ...(settings.access ? access : [])];
  if (told.length === 0) return null;
  const kind: NoticeKind = settings.waysIn && waysIn.length > 0 ? "waysIn" : "access";
  const alsoTo = settings.waysIn ? gone(before.emails, after.emails) : [];
  return { kind, lines: told, from, alsoTo };
}

/**
 * Which notices the person may choose, as they have chosen: only those of new browsers. Read from
 * the store, not the person cache: a choice just made on another instance shows at once.
 */
export async function noticeChoices(deps: Pick<Deps, "store">, personId: string): Promise<{ newBrowser: boolean }> {
  const person = await people.findById(deps.store, personId);
  return { newBrowser: person?.newBrowserNotices !== false };
}

/**
 * GET/PATCH /auth/session/notices: the person turns the notices of sign-ins from new browsers off
 * or on. The others cannot be turned off: they tell of a way in or of access changing, which a
 * person who did not do it must hear of. This instance forgets its copy of the person at once.
 */
export async function chooseNewBrowserNotices(
  deps: Pick<Deps, "store" | "people">,
  personId: string,
  on: boolean,
): Promise<void> {
  await people.setNewBrowserNotices(deps.store, personId, on);
  deps.people.evict(personId);
}

// Written as sent.

const SUBJECTS: Record<string, string> = {
  newBrowser: "New sign-in to your account",
  waysIn: "A way into your account changed",
  access: "Your access changed",
  summary: "More changes to your account",
};

const FOLDED: Record<string, (n: number) => string> = {
  newBrowser: (n) => (n === 1 ? "1 sign-in from a new browser" : `${n} sign-ins from new browsers`),
  waysIn: (n) => (n === 1 ? "1 change to your ways in" : `${n} changes to your ways in`),
  access: (n) => (n === 1 ? "1 change to your access" : `${n} changes to your access`),
};

const when = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

export function securityMail(to: string, notice: outbox.OutboxNotice, idUrl: string): MailMessage {
  const account = link("Review your account", `${idUrl}/account`);
  const host = new URL(idUrl).host;
  const advice = plain(
    "If this was you, there is nothing to do. If it was not, open your account page, choose “Sign out everywhere else”, and check your passkeys and addresses.",
  );
  if (notice.kind === "summary") {
    const counts = Object.entries(notice.folded).map(([kind, n]) => FOLDED[kind]?.(n) ?? `${n} more`);
    return composeMail(to, SUBJECTS.summary as string, [
      plain(
        `Since ${when(notice.at)}, more happened to your account at ${host} than we send one email each for: ${counts.join(", ")}.`,
      ),
      plain("Your account page lists your sessions, passkeys and addresses as they are now."),
      account,
      advice,
    ]);
  }
  const paragraphs: Paragraph[] = [
    plain(`At ${host}: ${notice.lines.join(" ")}`),
    plain(`When: ${when(notice.at)}`),
    plain(`From: ${notice.from}`),
    account,
    advice,
  ];
  if (notice.kind === "newBrowser")
    paragraphs.push(plain("You can turn off these emails about new browsers on your account page."));
  return composeMail(to, SUBJECTS[notice.kind] ?? "Your account changed", paragraphs);
}

type PlaceDeps = Pick<Deps, "store" | "transaction" | "clock" | "random">;

/** How long a person's window is kept untouched: past its places' hour and any summary's day of delivery. */
const WINDOW_KEPT_MS = 2 * DAY;

/**
 * Decides, as the drainer sends a notice and in one transaction of its own (off every action's
 * path), whether it is sent now or folded into the summary: sent when fewer than
 * NOTICES_PER_HOUR took a place in the last 60 minutes and no summary is waiting; otherwise
 * counted into the waiting summary, or into a new one due when the earliest place is an hour
 * old. A summary, when its time comes, takes a place too. The browser a notice names is
 * remembered as the person's here as well (the newest KNOWN_BROWSERS_KEPT kept).
 *
 * Returns the person and what to tell them (a summary's counts as they stand), or null when
 * nothing is to be sent: folded, only a browser to remember, the person gone, or the entry
 * settled by another drainer. A retry after a crash finds its place taken already, by itself.
 */
export async function placeNotice(
  deps: PlaceDeps,
  entry: outbox.OutboxEntry,
  claim: string,
): Promise<{ person: Person; notice: outbox.OutboxNotice } | null> {
  const { store } = deps;
  const personId = entry.about;
  if (personId === null) return null;
  return deps.transaction(async (tx) => {
    const [current, person, window] = await Promise.all([
      outbox.findById(store, entry.id, tx),
      people.findById(store, personId, tx),
      windows.find(store, tx, personId),
    ]);
    const waiting =
      window.summary === null || window.summary === entry.id ? null : await outbox.findById(store, window.summary, tx);
    const notice = current?.notice ?? null;
    if (current?.state !== "pending" || current.claim !== claim || notice === null || person === null) return null;
    const now = deps.clock.now();
    if (notice.learn !== null) remember(deps, tx, person, notice.learn, now);
    // Turned off since it was queued: the browser is remembered, and nothing said.
    if (notice.quiet || (notice.kind === "newBrowser" && person.newBrowserNotices === false)) return null;
    if (window.sent[entry.id] !== undefined) return { person, notice };
    const recent = Object.entries(window.sent).filter(([, at]) => now.getTime() - at.getTime() < HOUR);
    const forgetAfter = new Date(now.getTime() + WINDOW_KEPT_MS);
    const open = waiting?.state === "pending" ? waiting : null;
    if (notice.kind === "summary" || (open === null && recent.length < NOTICES_PER_HOUR)) {
      const sent = { ...Object.fromEntries(recent), [entry.id]: now };
      windows.save(store, tx, { personId, sent, summary: open?.id ?? null }, forgetAfter);
      return { person, notice };
    }
    if (open !== null) outbox.fold(store, tx, open.id, notice.kind, notice.alsoTo);
    else {
      // The first past the limit: a summary, due when the earliest place is an hour old.
      const due = new Date(Math.min(...recent.map(([, at]) => at.getTime())) + HOUR);
      const summary = noticeEntry(deps, {
        kind: SECURITY_NOTICE,
        about: personId,
        deliverBy: new Date(due.getTime() + NOTICE_DELIVER_WITHIN_MS),
        notBefore: due,
        notice: { ...notice, kind: "summary", lines: [], learn: null, folded: { [notice.kind]: 1 } },
      });
      outbox.add(store, tx, summary);
      windows.save(store, tx, { personId, sent: Object.fromEntries(recent), summary: summary.id }, forgetAfter);
    }
    outbox.update(store, tx, entry.id, { state: "folded", claim: null });
    return null;
  });
}

/** Remembers `digest` as one of the person's browsers, in `tx`: the newest KNOWN_BROWSERS_KEPT are kept. */
function remember(deps: Pick<Deps, "store">, tx: Transaction, person: Person, digest: string, now: Date): void {
  if (person.knownBrowsers?.[digest] !== undefined) return;
  const known = { ...person.knownBrowsers, [digest]: now };
  const kept = Object.entries(known)
    .sort(([, a], [, b]) => b.getTime() - a.getTime())
    .slice(0, KNOWN_BROWSERS_KEPT);
  people.setKnownBrowsers(deps.store, tx, person.id, Object.fromEntries(kept));
}

/**
 * The security notices, written as they are sent (placeNotice): to the person's address then,
 * and every address taken off them that the notice, or a notice folded into it, is for.
 */
export function securityNoticeRenderers(deps: PlaceDeps & Pick<Deps, "config">): Record<string, Renderer> {
  return {
    async [SECURITY_NOTICE](entry, claim) {
      const placed = await placeNotice(deps, entry, claim);
      if (placed === null) return null;
      const to = [...new Set([...placed.person.emails.slice(0, 1), ...placed.notice.alsoTo])];
      return to.length === 0 ? null : securityMail(to.join(", "), placed.notice, deps.config.idUrl);
    },
  };
}
