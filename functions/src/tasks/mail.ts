/**
 * The `mail` task function's work: drain the mail outbox (core/mail/outbox), woken through its
 * task queue by whatever queued mail.
 */
export { drainOutbox as run } from "../core/mail/outbox";
