import { ping } from "../../store/db";
import { backlog } from "../../store/outbox";
import { DeadlineExceeded, withDeadline } from "../deadline";
import type { Deps } from "../deps";
import { keyDue, signingKid, type KeyDue } from "../model/key-age";

export interface Check {
  ok: boolean;
  ms: number;
  error?: string;
}

/** The outbox: mail waiting to be sent, and how long the oldest has waited. */
export interface OutboxCheck {
  ok: boolean;
  pending?: number;
  oldestSeconds?: number | null;
  error?: string;
}

export interface Health {
  status: "ok" | "degraded";
  checks: {
    firestore: Check;
    mail: Check | { ok: false; configured: false };
    sessionKeys: { ok: boolean };
    outbox: OutboxCheck;
  };
}

const CHECK_DEADLINE_MS = 3000;

/** Whole seconds from `then` to `now` (none before it); null for no `then`. */
export const secondsSince = (then: Date | null, now: Date): number | null =>
  then === null ? null : Math.max(0, Math.round((now.getTime() - then.getTime()) / 1000));
/** Mail waiting longer than this means no drainer is sending it (the task queue, or the mail server). */
export const OUTBOX_STALE_SECONDS = 15 * 60;

/** Times one probe, giving up after the deadline; a failure is reported, never thrown. */
async function probe(deps: Pick<Deps, "clock">, work: () => Promise<unknown>): Promise<Check> {
  const started = deps.clock.now().getTime();
  try {
    await withDeadline(work(), CHECK_DEADLINE_MS);
    return { ok: true, ms: deps.clock.now().getTime() - started };
  } catch (err) {
    // The kind of failure only: messages from drivers can carry hosts and user names.
    return {
      ok: false,
      ms: deps.clock.now().getTime() - started,
      error: err instanceof DeadlineExceeded ? "timeout" : "unavailable",
    };
  }
}

/** The mail's backlog, judged against OUTBOX_STALE_SECONDS: for GET /status and `doctor`. */
export async function outboxCheck(deps: Pick<Deps, "store" | "clock">): Promise<OutboxCheck> {
  try {
    // The mail's backlog: an app's endpoint that is down holds up its own deliveries, not the mail;
    // an erasure the identity provider refuses waits for its next try (doctor reports it), not the mail.
    const { pending, oldest } = await withDeadline(backlog(deps.store, ["delivery", "erasure"]), CHECK_DEADLINE_MS);
    const oldestSeconds = secondsSince(oldest, deps.clock.now());
    return { ok: oldestSeconds === null || oldestSeconds < OUTBOX_STALE_SECONDS, pending, oldestSeconds };
  } catch (err) {
    return { ok: false, error: err instanceof DeadlineExceeded ? "timeout" : "unavailable" };
  }
}

/** The keys in use (the session key that signs, the pepper key that hashes) near their rotation or past it (model/key-age). */
export function keysDue(deps: Pick<Deps, "config" | "pepper" | "clock">): KeyDue[] {
  const now = deps.clock.now();
  return [
    keyDue("SESSION_KEYS", signingKid(deps.config.sessionKeys), now),
    keyDue("CODE_PEPPER", deps.pepper?.[0]?.kid ?? null, now),
  ].filter((due): due is KeyDue => due !== null);
}

/**
 * The health of what the service depends on, checked in parallel: for GET /status. Mail late in
 * the outbox is logged as an ERROR (`outbox late`) each time it is found: the uptime check that
 * reads this every minute is what raises its alert (monitoring/policies/outbox-late.json), even
 * while no drain runs to say so itself. A key in use near its rotation is logged the same way, as
 * a WARNING (`key near retirement`, monitoring/policies/key-near-retirement.json).
 */
export async function checkHealth(
  deps: Pick<Deps, "store" | "mailer" | "tokens" | "clock" | "log" | "config" | "pepper">,
): Promise<Health> {
  const [firestore, mail, sessionKeys, outbox] = await Promise.all([
    probe(deps, () => ping(deps.store)),
    deps.mailer === null
      ? Promise.resolve({ ok: false as const, configured: false as const })
      : probe(deps, () => (deps.mailer as NonNullable<Deps["mailer"]>).check()),
    deps.tokens
      .verify("probe.probe.probe", deps.clock.now())
      .then(() => ({ ok: true }))
      .catch(() => ({ ok: false })),
    outboxCheck(deps),
  ]);
  if ("oldestSeconds" in outbox && outbox.oldestSeconds != null && outbox.oldestSeconds >= OUTBOX_STALE_SECONDS)
    deps.log.error("outbox late", { pending: outbox.pending, oldestSeconds: outbox.oldestSeconds });
  for (const due of keysDue(deps)) deps.log.warn("key near retirement", { ...due });
  const status = firestore.ok && mail.ok && sessionKeys.ok && outbox.ok ? "ok" : "degraded";
  return { status, checks: { firestore, mail, sessionKeys, outbox } };
}
