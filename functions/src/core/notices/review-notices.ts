/**
 * What the review tells people, by mail through the outbox (core/outbox/enqueue):
 *
 * - the reviewers, when someone new waits: a digest, at most one per window (REVIEW_DIGEST_MINUTES),
 *   naming who waits and linking to the queue. A new pending person is marked `awaitingNotice` in
 *   the transaction that makes them (nothing shared is written on that path, so a burst of
 *   requests contends on nothing); the drainer gathers the marked into a digest in one
 *   transaction that also records when it went, so of many drains at once one sends it.
 * - the person, when approved: that they can sign in now, with a link to the sign-in page (a page
 *   to sign in on, never a sign-in). When rejected, only where NOTIFY_REJECTED is on.
 *
 * A notice is queued in the transaction of the decision it tells of: a review that commits has
 * its mail, once, and one that does not has none; a mail server that is down delays the mail and
 * never the review.
 */
import { DAY } from "../../clock";
import * as people from "../../store/people";
import * as peopleList from "../../store/people-list";
import * as digests from "../../store/review-digests";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import { enqueue, enqueueMail, NOTICE_DELIVER_WITHIN_MS } from "../outbox/enqueue";
import type { Handlers } from "../outbox/handlers";
import type { OutboxEntryOf } from "../model/outbox";
import type { MailMessage } from "../ports";
import { escapeHtml } from "../text";
import { composeMail as mail, link, plain } from "../mail/compose";
import { type Person, type PersonStatus } from "../model/person";

/** How many of the waiting one digest names; the rest it counts. */
export const DIGEST_NAMES = 50;

export type NoticeDeps = Pick<Deps, "store" | "clock" | "random" | "pepper" | "config" | "log" | "transaction">;

/** The approval notice: they can sign in now. The link opens the sign-in page and does nothing more. */
export function approvalMail(to: string, idUrl: string): MailMessage {
  const host = new URL(idUrl).host;
  return mail(to, "Your access is approved", [
    plain(`A reviewer approved your account at ${host}. You can sign in now.`),
    link("Sign in", `${idUrl}/`),
    plain(`Sign in the way you first did: with a code we email to ${to}, or with the provider you used.`),
    plain(
      "If you did not ask for access, you can ignore this email: nobody can sign in as you without a code sent here.",
    ),
  ]);
}

export function rejectionMail(to: string, idUrl: string): MailMessage {
  const host = new URL(idUrl).host;
  return mail(to, "Your access request", [
    plain(`A reviewer decided not to give this account access to ${host}, so you cannot sign in with it.`),
    plain("If you think that is a mistake, contact the people who run the site."),
  ]);
}

/** How a waiting person is named to the reviewer: name, address or provider account. Plain text. */
export function describeWaiting(person: Person): string {
  const origin = person.origin;
  const via =
    origin?.via === "account"
      ? `${origin.provider} account ${origin.account || "(unnamed)"}`
      : (person.emails[0] ?? "no address");
  return person.name === "" ? via : `${person.name} (${via})`;
}

export function digestMail(to: string, waiting: Person[], total: number, idUrl: string): MailMessage {
  const queue = `${idUrl}/review`;
  const count = (n: number) => (n === 1 ? "1 person" : `${n} people`);
  const names = waiting.map(describeWaiting);
  const rest = total - waiting.length;
  return mail(to, `${count(total)} waiting for review`, [
    plain(
      `${count(waiting.length)} asked for access since the last of these emails, and ${count(total)} now ${total === 1 ? "waits" : "wait"} for review:`,
    ),
    { text: names.map((n) => `- ${n}`).join("\n"), html: names.map(escapeHtml).join("<br>") },
    ...(rest > 0 ? [plain(`…and ${rest} more.`)] : []),
    link("Open the review queue", queue),
    plain(
      "You get this because you review who gets access. At most one of these emails comes in a while, however many people ask.",
    ),
  ]);
}

/**
 * Queues, in `tx`, what the person is told of a review that moved them from `before` to `after`:
 * a notice about them, written when it is sent (reviewNoticeHandlers), so no key is needed here.
 */
export function queueReviewNotice(
  deps: Pick<Deps, "store" | "clock" | "random" | "config">,
  tx: Transaction,
  before: Person,
  after: Person,
): boolean {
  if (after.emails.length === 0 || before.status === after.status) return false;
  const tell = after.status === "approved" || (after.status === "rejected" && deps.config.review.notifyRejected);
  if (!tell) return false;
  const deliverBy = new Date(deps.clock.now().getTime() + NOTICE_DELIVER_WITHIN_MS);
  // Addressed now: a new first address given them before it goes cannot take it.
  const kind = after.status === "approved" ? "approval" : "rejection";
  enqueue(deps, tx, { kind, about: after.id, to: after.emails[0] ?? null, deliverBy });
  return true;
}

/**
 * The review's notices to a person, written as they are sent: to the address fixed when they were
 * queued, and only while what they tell is still true (an approval undone before it went is not sent).
 */
export function reviewNoticeHandlers(
  deps: Pick<Deps, "store" | "config" | "transaction" | "clock" | "random" | "identity" | "log">,
): Pick<Handlers, "approval" | "rejection"> {
  const about = async (entry: OutboxEntryOf<"approval" | "rejection">, status: PersonStatus) => {
    const person = await people.findById(deps.store, entry.about);
    return person?.status === status ? (entry.to ?? person.emails[0] ?? null) : null;
  };
  return {
    async approval(entry) {
      const to = await about(entry, "approved");
      return to === null ? null : approvalMail(to, deps.config.idUrl);
    },
    async rejection(entry) {
      const to = await about(entry, "rejected");
      return to === null ? null : rejectionMail(to, deps.config.idUrl);
    },
  };
}

/** The reviewers' addresses: REVIEWERS, or every approved administrator's first address. */
async function reviewerAddresses(deps: NoticeDeps, tx: Transaction): Promise<string[]> {
  if (deps.config.review.reviewers.length > 0) return deps.config.review.reviewers;
  const admins = await people.approvedAdminList(deps.store, tx, 100);
  return [...new Set(admins.map((a) => a.emails[0]).filter((e): e is string => e !== undefined))];
}

export type DigestOutcome =
  { kind: "none" } | { kind: "sent"; reviewers: number; named: number } | { kind: "later"; at: Date };

/**
 * Sends the reviewers a digest of who has come to wait since the last one, unless one went within
 * the window: then answers when it ends, for the drain that runs it to be woken then. One read
 * when nobody waits.
 */
export async function sendReviewDigest(deps: NoticeDeps): Promise<DigestOutcome> {
  if ((await people.awaitingNotice(deps.store, 1)).length === 0) return { kind: "none" };
  const total = await peopleList.countByStatus(deps.store, "pending");
  const outcome = await deps.transaction(async (tx): Promise<DigestOutcome> => {
    const now = deps.clock.now();
    const last = await digests.lastSentAt(deps.store, tx);
    const marked = await people.awaitingNotice(deps.store, DIGEST_NAMES, tx);
    // Reviewed before any digest named them: nothing to tell, and nothing more to wait for.
    const waiting = marked.filter((p) => p.status === "pending");
    const opens = last === null ? now : new Date(last.getTime() + deps.config.review.digestWindowMs);
    if (waiting.length > 0 && opens.getTime() > now.getTime()) return { kind: "later", at: opens };
    // Every read before the first write, as a transaction must.
    const reviewers = waiting.length === 0 ? [] : await reviewerAddresses(deps, tx);
    people.markNoticed(
      deps.store,
      tx,
      marked.map((p) => p.id),
    );
    if (waiting.length === 0) return { kind: "none" };
    const deliverBy = new Date(now.getTime() + DAY);
    for (const to of reviewers)
      enqueueMail(deps, tx, digestMail(to, waiting, Math.max(total, waiting.length), deps.config.idUrl), {
        kind: "digest",
        deliverBy,
      });
    digests.saveSentAt(deps.store, tx, now);
    return { kind: "sent", reviewers: reviewers.length, named: waiting.length };
  });
  if (outcome.kind === "sent" && outcome.reviewers === 0)
    deps.log.warn("people wait for review and there is no reviewer to tell", { named: outcome.named });
  else if (outcome.kind === "sent")
    deps.log.info("review digest queued", { reviewers: outcome.reviewers, named: outcome.named });
  return outcome;
}
