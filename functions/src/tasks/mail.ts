/**
 * The `mail` task function's work, woken through its task queue by whatever queued mail or a job
 * in the outbox (core/outbox/enqueue): the reviewers' digest when one is due
 * (core/notices/review-notices), then the outbox drained (core/outbox/drain) with a handler for
 * every kind of entry it holds: the review's notices (of people, and of the apps people tried:
 * core/notices/client-review-notices), the person's security notices (core/notices/security-mail), and, not mail but run and retried as the outbox runs its entries,
 * the erasure's finishing job (core/people/erasure-job), the deletion of a provider account a
 * person let go with an address (core/people/accounts), the events for the apps, fanned out
 * and delivered to each subscription (core/events/delivery), and the logout tokens of ended
 * sign-ins for the OpenID Connect clients (core/oidc/backchannel).
 */
import type { Deps } from "../core/deps";
import { DRAIN_BATCH, drainOutbox, type DrainReport } from "../core/outbox/drain";
import type { Handlers } from "../core/outbox/handlers";
import { eventHandlers } from "../core/events/delivery";
import { backchannelHandlers } from "../core/oidc/backchannel";
import { erasureJobHandlers } from "../core/people/erasure-job";
import { accountDeletionHandlers } from "../core/people/accounts";
import { reviewNoticeHandlers, sendReviewDigest } from "../core/notices/review-notices";
import { securityNoticeHandlers } from "../core/notices/security-mail";
import { clientReviewNoticeHandlers } from "../core/notices/client-review-notices";
import { invitationHandlers } from "../core/invitations/invitation-mail";
import { errorText } from "../logger";

export type MailDeps = Pick<
  Deps,
  | "store"
  | "clock"
  | "random"
  | "pepper"
  | "config"
  | "log"
  | "transaction"
  | "mailQueue"
  | "mailer"
  | "identity"
  | "fetch"
  | "tokens"
>;

/**
 * How each kind of outbox entry that is not sent as it is gets written (or run) when its time
 * comes: one handler a kind, or this does not compile.
 */
export function handlers(deps: MailDeps): Handlers {
  return {
    ...securityNoticeHandlers(deps),
    ...erasureJobHandlers(deps),
    ...accountDeletionHandlers(deps),
    ...reviewNoticeHandlers(deps),
    ...clientReviewNoticeHandlers(deps),
    ...eventHandlers(deps),
    ...backchannelHandlers(deps),
    ...invitationHandlers(deps),
  };
}

/**
 * One round: the digest, unless `digest` is false (a test that leaves the reviewers' digest to
 * itself), then the outbox.
 */
export async function run(deps: MailDeps, { digest = true }: { digest?: boolean } = {}): Promise<DrainReport> {
  return drainOutbox(deps, handlers, DRAIN_BATCH, digest ? reviewDigest : undefined);
}

/**
 * The reviewers' digest, when one is due: when it is due later, the time to be woken at. A digest
 * that cannot be made now is made at the next wake; the mail already queued goes anyway.
 */
async function reviewDigest(deps: MailDeps): Promise<Date | null> {
  const outcome = await sendReviewDigest(deps).catch((err: unknown) => {
    deps.log.error("review digest failed", { error: errorText(err) });
    return null;
  });
  return outcome?.kind === "later" ? outcome.at : null;
}
