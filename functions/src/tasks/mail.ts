/**
 * The `mail` task function's work, woken through its task queue by whatever queued mail or a job
 * in the outbox (core/mail/outbox): the reviewers' digest when one is due
 * (core/people/review-notices), then the outbox drained (core/mail/drain) with a renderer for
 * every kind of entry it holds: the review's notices, the person's security notices
 * (core/people/security-mail), and, not mail but run and retried as the outbox runs its entries,
 * the erasure's finishing job (core/people/erasure-job), the deletion of a provider account a
 * person let go with an address (core/people/accounts), the events for the apps, fanned out
 * and delivered to each subscription (core/events/delivery), and the logout tokens of ended
 * sign-ins for the OpenID Connect clients (core/oidc/backchannel).
 */
import type { Deps } from "../core/deps";
import { drainOutbox, type DrainReport, type Renderer } from "../core/mail/drain";
import { eventRenderers } from "../core/events/delivery";
import { backchannelRenderers } from "../core/oidc/backchannel";
import { erasureJobRenderers } from "../core/people/erasure-job";
import { accountDeletionRenderers } from "../core/people/accounts";
import { reviewNoticeRenderers, sendReviewDigest } from "../core/notices/review-notices";
import { securityNoticeRenderers } from "../core/notices/security-mail";
import { invitationRenderers } from "../core/invitations/invitation-mail";
import { errorText } from "../logger";

type MailDeps = Pick<
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

/** How each kind of outbox entry is written (or run) when its time comes. */
export function renderers(deps: MailDeps): Record<string, Renderer> {
  return {
    ...securityNoticeRenderers(deps),
    ...erasureJobRenderers(deps),
    ...accountDeletionRenderers(deps),
    ...reviewNoticeRenderers(deps),
    ...eventRenderers(deps),
    ...backchannelRenderers(deps),
    ...invitationRenderers(deps),
  };
}

/**
 * One round: the digest, unless `digest` is false (a test that leaves the reviewers' digest to
 * itself), then the outbox. A digest that cannot be made now is made at the next wake; the mail
 * already queued goes anyway.
 */
export async function run(deps: MailDeps, { digest = true }: { digest?: boolean } = {}): Promise<DrainReport> {
  if (digest)
    await sendReviewDigest(deps).catch((err: unknown) =>
      deps.log.error("review digest failed", { error: errorText(err) }),
    );
  return drainOutbox(deps, renderers(deps));
}
