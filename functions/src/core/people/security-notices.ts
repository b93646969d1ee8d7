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
 * At most NOTICES_PER_HOUR a person in a clock hour, and the rest of that hour folded into one
 * summary sent when it ends. Decided without a shared document: the person's notices of an hour
 * are outbox entries with names of their own (`notice-<person>-<hour>-1` … `-more`), so the first
 * free name is the next notice, and of two actions racing for one name one creates it.
 */
import { HOUR } from "../../clock";
import { errorText } from "../../logger";
import * as outbox from "../../store/outbox";
import * as people from "../../store/people";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { NoticeSettings } from "../settings";
import { composeMail, link, plain, type Paragraph } from "../mail/compose";
import { NOTICE_DELIVER_WITHIN_MS, noticeEntry, wakeDrainer, type Renderer } from "../mail/outbox";
import type { MailMessage } from "../ports";

/** How many notices a person gets in a clock hour before the rest are folded into one summary. */
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

type PlanDeps = Pick<Deps, "store" | "clock">;
type QueueDeps = Pick<Deps, "store" | "clock" | "random">;

function slotsOf(personId: string, at: Date): { notices: string[]; summary: string; ends: Date } {
  const hour = Math.floor(at.getTime() / HOUR);
  // A person's id is a document id of theirs; encoded, it is safe in one of the outbox's too.
  const name = (n: string) => `notice-${encodeURIComponent(personId)}-${hour}-${n}`;
  const notices = Array.from({ length: NOTICES_PER_HOUR }, (_, i) => name(String(i + 1)));
  return { notices, summary: name("more"), ends: new Date((hour + 1) * HOUR) };
}

/** Which of the person's places of this hour are taken, read (in `tx`, before its first write) with one lookup. */
export interface NoticePlan {
  personId: string;
  at: Date;
  taken: Set<string>;
}

export async function planNotice(deps: PlanDeps, personId: string, tx?: Transaction): Promise<NoticePlan> {
  const at = deps.clock.now();
  const { notices, summary } = slotsOf(personId, at);
  return { personId, at, taken: await outbox.existing(deps.store, [...notices, summary], tx) };
}

type Write = { add: outbox.OutboxEntry; wakeAt: Date } | { fold: string; kind: NoticeKind };

function decide(deps: Pick<Deps, "clock" | "random">, plan: NoticePlan, event: SecurityEvent): Write {
  const slots = slotsOf(plan.personId, plan.at);
  const notice: outbox.OutboxNotice = {
    kind: event.kind,
    lines: event.lines,
    at: plan.at,
    from: event.from,
    alsoTo: event.alsoTo ?? [],
    learn: event.learn ?? null,
    quiet: event.quiet ?? false,
    folded: {},
  };
  const about = plan.personId;
  const deliverBy = new Date(plan.at.getTime() + NOTICE_DELIVER_WITHIN_MS);
  if (notice.quiet)
    return { add: noticeEntry(deps, { kind: SECURITY_NOTICE, about, deliverBy, notice }), wakeAt: plan.at };
  const free = slots.notices.find((id) => !plan.taken.has(id));
  if (free !== undefined)
    return { add: noticeEntry(deps, { id: free, kind: SECURITY_NOTICE, about, deliverBy, notice }), wakeAt: plan.at };
  if (plan.taken.has(slots.summary)) return { fold: slots.summary, kind: event.kind };
  // The hour's first one past the limit: a summary, sent when the hour ends, that the rest fold into.
  const summary: outbox.OutboxNotice = {
    ...notice,
    kind: "summary",
    lines: [],
    alsoTo: [],
    folded: { [event.kind]: 1 },
  };
  const entry = noticeEntry(deps, {
    id: slots.summary,
    kind: SECURITY_NOTICE,
    about,
    deliverBy: new Date(slots.ends.getTime() + NOTICE_DELIVER_WITHIN_MS),
    notBefore: slots.ends,
    notice: summary,
  });
  return { add: entry, wakeAt: slots.ends };
}

/**
 * Queues the notice in `tx`, the action's own transaction (which read `plan` before its first
 * write): one outbox write. Returns when to wake the drainer once `tx` has committed (null: not
 * needed, the notice was folded into a summary already waiting).
 */
export async function queueNotice(
  deps: QueueDeps,
  tx: Transaction,
  plan: NoticePlan,
  event: SecurityEvent,
): Promise<Date | null> {
  const write = decide(deps, plan, event);
  if ("fold" in write) {
    await outbox.fold(deps.store, tx, write.fold, write.kind);
    return null;
  }
  outbox.add(deps.store, tx, write.add);
  return write.wakeAt;
}

/** gRPC ALREADY_EXISTS: another action took the place first. */
const placeTaken = (err: unknown) => typeof err === "object" && err !== null && (err as { code?: unknown }).code === 6;

/**
 * Queues the notice of an action that has no transaction of its own (POST /auth/verify): one
 * lookup and one write (no lookup for a browser only to remember), and on losing a place to a
 * concurrent action, the next place. Never fails the action: a notice that cannot be queued is
 * logged and dropped.
 */
export async function queueNoticeAlone(
  deps: QueueDeps & Pick<Deps, "mailQueue" | "log">,
  personId: string,
  event: SecurityEvent,
): Promise<void> {
  try {
    // A browser only to remember takes no place: nothing to read first.
    const unplanned: NoticePlan = { personId, at: deps.clock.now(), taken: new Set() };
    for (let attempt = 0; attempt <= 2 * (NOTICES_PER_HOUR + 1); attempt++) {
      const plan = event.quiet === true ? unplanned : await planNotice(deps, personId);
      const write = decide(deps, plan, event);
      try {
        if ("fold" in write) return void (await outbox.fold(deps.store, null, write.fold, write.kind));
        await outbox.addAlone(deps.store, write.add);
        return void (await wakeDrainer(
          deps,
          write.wakeAt.getTime() > deps.clock.now().getTime() ? write.wakeAt : undefined,
        ));
      } catch (err) {
        if (!placeTaken(err)) throw err;
      }
    }
  } catch (err) {
    deps.log.warn("security notice not queued", { kind: event.kind, error: errorText(err) });
  }
}

/** Wakes the drainer for what queueNotice queued, once its transaction has committed. */
export async function wakeForNotice(deps: Pick<Deps, "mailQueue" | "log" | "clock">, at: Date | null): Promise<void> {
  if (at === null) return;
  await wakeDrainer(deps, at.getTime() > deps.clock.now().getTime() ? at : undefined);
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
  before: people.Person,
  after: people.Person,
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
        `More happened to your account at ${host} in the hour after ${when(notice.at)} than we send one email each for: ${counts.join(", ")}.`,
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

/**
 * Remembers `digest` as one of the person's browsers (the newest KNOWN_BROWSERS_KEPT kept), in a
 * transaction of the drainer's, off the sign-in's path. Returns the person as it reads them.
 */
async function learnBrowser(
  deps: Pick<Deps, "store" | "transaction" | "clock">,
  personId: string,
  digest: string,
): Promise<people.Person | null> {
  return deps.transaction(async (tx) => {
    const person = await people.findById(deps.store, personId, tx);
    if (person === null || person.knownBrowsers?.[digest] !== undefined) return person;
    const known = { ...person.knownBrowsers, [digest]: deps.clock.now() };
    const kept = Object.entries(known)
      .sort(([, a], [, b]) => b.getTime() - a.getTime())
      .slice(0, KNOWN_BROWSERS_KEPT);
    people.setKnownBrowsers(deps.store, tx, personId, Object.fromEntries(kept));
    return person;
  });
}

/** The security notices, written as they are sent: to the person's address then, and any address taken off them. */
export function securityNoticeRenderers(
  deps: Pick<Deps, "store" | "transaction" | "clock" | "config">,
): Record<string, Renderer> {
  return {
    async [SECURITY_NOTICE](entry) {
      const notice = entry.notice ?? null;
      if (notice === null || entry.about === null) return null;
      const person =
        notice.learn === null
          ? await people.findById(deps.store, entry.about)
          : await learnBrowser(deps, entry.about, notice.learn);
      if (person === null || notice.quiet) return null;
      const to = [...new Set([...person.emails.slice(0, 1), ...notice.alsoTo])];
      return to.length === 0 ? null : securityMail(to.join(", "), notice, deps.config.idUrl);
    },
  };
}
