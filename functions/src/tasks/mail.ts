/**
 * The `mail` task function's work, woken through its task queue by whatever queued mail: the
 * reviewers' digest when one is due, then the outbox (core/people/review-notices).
 */
export { mailRound as run } from "../core/people/review-notices";
