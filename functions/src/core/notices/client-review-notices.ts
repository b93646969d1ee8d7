/**
 * What the people who tried an app while it waited for review are told of the reviewer's
 * decision, by mail through the outbox: that it was let in (go back to it and sign in again), or
 * that it was not. Queued in the transaction of the decision, one entry per person (never several
 * people in one To:), to the address they had then; written when it is sent, and only while it is
 * still true: the person still approved, and the app still there with that decision.
 */
import * as clients from "../../store/oidc-clients";
import * as people from "../../store/people";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import { enqueue, NOTICE_DELIVER_WITHIN_MS } from "../outbox/enqueue";
import type { Handlers } from "../outbox/handlers";
import type { MailMessage } from "../ports";
import { composeMail as mail, plain } from "../mail/compose";
import type { Person } from "../model/person";

export type ClientDecision = "approved" | "blocked";

/**
 * The mail. The app's name is its own claim: quoted as what it calls itself, never a link, and
 * nothing in it points anywhere but back to the app the person was using.
 */
export function clientReviewMail(to: string, appName: string, decision: ClientDecision, idUrl: string): MailMessage {
  const host = new URL(idUrl).host;
  const app = `“${appName}”`;
  if (decision === "approved")
    return mail(to, "An app you tried can be used now", [
      plain(
        `You tried to sign in to an app that calls itself ${app} with your account at ${host}, while it waited for review.`,
      ),
      plain("A reviewer has let it in. Go back to it and sign in again."),
      plain(
        "The app registered itself: its name is its own. When you sign in, you are asked what it may do; say no if you do not know it.",
      ),
    ]);
  return mail(to, "An app you tried was not let in", [
    plain(
      `You tried to sign in to an app that calls itself ${app} with your account at ${host}, while it waited for review.`,
    ),
    plain("A reviewer decided not to let it in, so it cannot sign you in with this account."),
    plain("If you think that is a mistake, contact the people who run the site."),
  ]);
}

/**
 * Queues, in `tx`, one notice to each of `tried` (people read in `tx`) who is still approved and
 * has an address; the address is fixed now. How many were queued.
 */
export function queueClientReviewNotices(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  clientId: string,
  decision: ClientDecision,
  tried: Array<Person | null>,
): number {
  const deliverBy = new Date(deps.clock.now().getTime() + NOTICE_DELIVER_WITHIN_MS);
  let queued = 0;
  for (const person of tried) {
    const to = person?.emails[0];
    // Erased, or no longer let in themself: nothing to go back to.
    if (person === null || person.status !== "approved" || to === undefined) continue;
    enqueue(deps, tx, { kind: "client-review", about: person.id, to, client: clientId, decision, deliverBy });
    queued++;
  }
  return queued;
}

/** The notice, written as it is sent, while it is still true. */
export function clientReviewNoticeHandlers(deps: Pick<Deps, "store" | "config">): Pick<Handlers, "client-review"> {
  return {
    async "client-review"(entry) {
      const [person, client] = await Promise.all([
        people.findById(deps.store, entry.about),
        clients.findById(deps.store, entry.client),
      ]);
      if (person?.status !== "approved" || client === null || client.review !== entry.decision) return null;
      const to = entry.to ?? person.emails[0] ?? null;
      return to === null ? null : clientReviewMail(to, client.name, entry.decision, deps.config.idUrl);
    },
  };
}
