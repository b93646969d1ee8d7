/**
 * The security notices (core/notices/security-notices) as they are sent. At most NOTICES_PER_HOUR
 * are sent a person in any 60 minutes; the rest are folded into one summary, sent when the
 * earliest of those is an hour old (taking a place itself), to the person. The notice to an
 * address taken off them goes to that address alone, takes no place and is never folded. The
 * place is decided by the mail drainer as it sends
 * (`placeNotice`), in a transaction on the person's window (store/notice-windows), so a burst of
 * sign-ins costs each one write and never contends.
 */
import { DAY, HOUR } from "../../clock";
import * as outbox from "../../store/outbox";
import * as people from "../../store/people";
import * as windows from "../../store/notice-windows";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import { composeMail, link, plain, type Paragraph } from "../mail/compose";
import { enqueue, NOTICE_DELIVER_WITHIN_MS } from "../outbox/enqueue";
import type { Handlers } from "../outbox/handlers";
import type { OutboxEntryOf, OutboxNotice } from "../model/outbox";
import type { MailMessage } from "../ports";
import type { Person } from "../model/person";
import { ADDRESS_REMOVED } from "./security-notices";

/** How many notices a person is sent in any 60 minutes before the rest are folded into one summary. */
export const NOTICES_PER_HOUR = 3;
/** How many browsers are remembered per person; the least recently learned goes first. */
export const KNOWN_BROWSERS_KEPT = 20;

const SUBJECTS: Record<string, string> = {
  newBrowser: "New sign-in to your account",
  waysIn: "A way into your account changed",
  access: "Your access changed",
  summary: "More changes to your account",
  [ADDRESS_REMOVED]: "This address was removed from an account",
};

const FOLDED: Record<string, (n: number) => string> = {
  newBrowser: (n) => (n === 1 ? "1 sign-in from a new browser" : `${n} sign-ins from new browsers`),
  waysIn: (n) => (n === 1 ? "1 change to your ways in" : `${n} changes to your ways in`),
  access: (n) => (n === 1 ? "1 change to your access" : `${n} changes to your access`),
};

const when = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

export function securityMail(to: string, notice: OutboxNotice, idUrl: string): MailMessage {
  const account = link("Review your account", `${idUrl}/account`);
  const host = new URL(idUrl).host;
  const advice = plain(
    "If this was you, there is nothing to do. If it was not, open your account page, choose “Sign out everywhere else”, and check your passkeys and addresses.",
  );
  if (notice.kind === ADDRESS_REMOVED)
    // Whoever holds the address now may not be the person: what it was, and when, and no more.
    return composeMail(to, SUBJECTS[ADDRESS_REMOVED] as string, [
      plain(`At ${host}: this email address was removed from the account it was on, and no longer signs in to it.`),
      plain(`When: ${when(notice.at)}`),
      plain(`If you did not expect this, tell the people who run ${host}. If you did, there is nothing to do.`),
    ]);
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
  entry: OutboxEntryOf<"security-notice">,
  claim: string,
): Promise<{ person: Person; notice: OutboxNotice } | null> {
  const { store } = deps;
  const personId = entry.about;
  return deps.transaction(async (tx) => {
    const [current, person, window] = await Promise.all([
      outbox.findOf(store, "security-notice", entry.id, tx),
      people.findById(store, personId, tx),
      windows.find(store, tx, personId),
    ]);
    const waiting =
      window.summary === null || window.summary === entry.id
        ? null
        : await outbox.findOf(store, "security-notice", window.summary, tx);
    const notice = current?.notice ?? null;
    if (current?.state !== "pending" || current.claim !== claim || notice === null || person === null) return null;
    const now = deps.clock.now();
    if (notice.learn !== null) remember(deps, tx, person, notice.learn, now);
    // Turned off since it was queued: the browser is remembered, and nothing said.
    if (notice.quiet || (notice.kind === "newBrowser" && person.newBrowserNotices === false)) return null;
    // Not the person's notice: it takes none of their places, and nothing is folded into it.
    if (notice.kind === ADDRESS_REMOVED) return { person, notice };
    if (window.sent[entry.id] !== undefined) return { person, notice };
    const recent = Object.entries(window.sent).filter(([, at]) => now.getTime() - at.getTime() < HOUR);
    const forgetAfter = new Date(now.getTime() + WINDOW_KEPT_MS);
    const open = waiting?.state === "pending" ? waiting : null;
    // A summary goes to one address: a notice meant for another (the person's first address
    // changed within the hour) is sent on its own rather than told somewhere it was not meant for.
    const elsewhere = open !== null && open.to !== entry.to;
    // A summary, and what must be told at once, take a place whatever the count.
    const atOnce = notice.kind === "summary" || notice.urgent === true;
    if (atOnce || (open === null && recent.length < NOTICES_PER_HOUR) || elsewhere) {
      const sent = { ...Object.fromEntries(recent), [entry.id]: now };
      windows.save(store, tx, { personId, sent, summary: open?.id ?? null }, forgetAfter);
      return { person, notice };
    }
    if (open !== null) outbox.fold(store, tx, open.id, notice.kind);
    else {
      // The first past the limit: a summary, due when the earliest place is an hour old.
      const due = new Date(Math.min(...recent.map(([, at]) => at.getTime())) + HOUR);
      const summary = enqueue(deps, tx, {
        kind: "security-notice",
        about: personId,
        // Where the first notice it folds was going: fixed then, as that notice's was.
        to: entry.to,
        deliverBy: new Date(due.getTime() + NOTICE_DELIVER_WITHIN_MS),
        notBefore: due,
        notice: { ...notice, kind: "summary", lines: [], learn: null, folded: { [notice.kind]: 1 } },
      });
      windows.save(store, tx, { personId, sent: Object.fromEntries(recent), summary }, forgetAfter);
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
 * The security notices, written as they are sent (placeNotice): to the address fixed when each was
 * queued (security-notices `recipientOf`), or, for an address taken off them, to that address alone.
 */
export function securityNoticeHandlers(deps: PlaceDeps & Pick<Deps, "config">): Pick<Handlers, "security-notice"> {
  return {
    async "security-notice"(entry, claim) {
      const placed = await placeNotice(deps, entry, claim);
      if (placed === null) return null;
      // Fixed when it was queued: a change since (a new first address) cannot send it elsewhere.
      const to = entry.to ?? (placed.notice.kind === ADDRESS_REMOVED ? null : (placed.person.emails[0] ?? null));
      return to === null ? null : securityMail(to, placed.notice, deps.config.idUrl);
    },
  };
}
