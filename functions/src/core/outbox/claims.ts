/**
 * An entry's way through the drain (core/outbox/drain): claimed by one drain at a time, then
 * marked sent, given back, put off, retried after a backoff, or given up, each step on the entry
 * only while this drain's claim still holds it, and each logged as what the entry is.
 */
import { MINUTE, SECOND } from "../../clock";
import * as outbox from "../../store/outbox";
import type { Deps } from "../deps";
import { contended } from "../failures";
import type { OutboxEntry } from "../model/outbox";
import { changeWhileClaimed } from "./handlers";
import { KINDS } from "./kinds";
import { logOutbox } from "./log";

type ClaimDeps = Pick<Deps, "store" | "clock" | "random" | "log" | "transaction">;

/** What became of an entry a drain took up. */
export type Outcome = "sent" | "retrying" | "failed" | "skipped";

/** How long a drainer's claim on an entry holds: longer than one SMTP send may take (nodemailer's 10 s + 20 s). */
export const LEASE_MS = MINUTE;
export const MAX_ATTEMPTS = 10;
/** Mail that lapses within this of being queued (a code, a lock notice) is retried at least every minute. */
export const SHORT_LIVED_MS = 60 * MINUTE;

/**
 * The wait before attempt `n + 1`: 15 s, 45 s, 2¼ min, … up to 4 hours, each drawn ±20 %. Mail
 * that lapses within the hour is tried again at least once a minute (15 s, 45 s, then a minute):
 * a code later than the minute a person waits before asking for another is worth little, so once
 * the mail server is back, no code waits more than a minute and a fifth for its next try.
 */
export function retryDelay(attempts: number, random: Pick<Deps["random"], "int">, lifetimeMs = Infinity): number {
  const most = lifetimeMs <= SHORT_LIVED_MS ? MINUTE : 4 * 60 * MINUTE;
  const base = Math.min(15 * SECOND * 3 ** Math.max(0, attempts - 1), most);
  return Math.round(base * (0.8 + random.int(0, 401) / 1000));
}

/** The line for an entry that could not be written or run this time, by what it is. */
const NOT_WRITTEN = { mail: "mailNotWritten", delivery: "deliveryNotWritten", job: "jobNotDone" } as const;
/** The line for an entry with nothing left to do when its turn came, by what it is. */
const NOT_NEEDED = { mail: "mailNotNeeded", delivery: "deliveryNotNeeded", job: "jobDone" } as const;
/** The line for an entry given up, by what it is. */
const GIVEN_UP = { mail: "mailGivenUp", delivery: "deliveryGivenUp", job: "jobGivenUp" } as const;

/** An app or a client that did not take what was posted to it, each named as what it is. */
export function notDelivered(deps: Pick<ClaimDeps, "log">, entry: OutboxEntry, error: string): void {
  const attempt = entry.attempts;
  if (entry.kind === "delivery")
    logOutbox(deps.log, "eventNotDelivered", { outboxId: entry.id, app: entry.about, attempt, error });
  else if (entry.kind === "backchannel-logout")
    logOutbox(deps.log, "logoutTokenNotDelivered", { outboxId: entry.id, client: entry.about, attempt, error });
  else notWritten(deps, entry, error);
}

/** An entry of a kind this code knows, that could not be written or run this time. */
export function notWritten(deps: Pick<ClaimDeps, "log">, entry: OutboxEntry, error: string): void {
  logOutbox(deps.log, NOT_WRITTEN[KINDS[entry.kind].is], { outboxId: entry.id, kind: entry.kind, error });
}

function givenUp(deps: Pick<ClaimDeps, "log">, entry: outbox.StoredEntry, error: string): void {
  if (entry.kind === null) logOutbox(deps.log, "unknownGivenUp", { outboxId: entry.id, kind: entry.storedKind });
  else
    logOutbox(deps.log, GIVEN_UP[KINDS[entry.kind].is], {
      outboxId: entry.id,
      kind: entry.kind,
      attempts: entry.attempts,
      error,
    });
}

/**
 * Takes the entry for this drain, if it is due, by a write on the version that was read: of drains
 * that read the same version, one claim lands and the others find it written since, at once, with
 * no transaction to queue behind. Its claim's version is what it marks the entry sent on.
 */
export async function claim(
  deps: ClaimDeps,
  { entry, version }: outbox.Read,
  now: Date,
): Promise<{ entry: outbox.StoredEntry; claimId: string; version: outbox.Read["version"] } | null> {
  if (entry.state !== "pending" || entry.nextAttemptAt.getTime() > now.getTime()) return null;
  if (outOfChances(entry, now)) {
    const failed = { state: "failed" as const, claim: null, lastError: entry.lastError ?? "expired" };
    if ((await outbox.updateAt(deps.store, entry.id, version, failed)) !== null) givenUp(deps, entry, failed.lastError);
    return null;
  }
  const claimId = deps.random.id();
  const attempts = entry.attempts + 1;
  // Pushed forward by the lease: if this drainer dies, the entry falls due again by itself.
  const claimed = await outbox.updateAt(deps.store, entry.id, version, {
    claim: claimId,
    attempts,
    nextAttemptAt: new Date(now.getTime() + LEASE_MS),
  });
  return claimed === null ? null : { entry: { ...entry, attempts }, claimId, version: claimed };
}

/**
 * Out of time or tries: given up. Not an entry retried until done (an erasure's finishing job),
 * whose work must not be left half done for any number of failures: it is tried with the backoff,
 * at least every four hours, for as long as it takes.
 */
function outOfChances(entry: outbox.StoredEntry, at: Date): boolean {
  if (entry.retryUntilDone === true) return false;
  return at.getTime() >= entry.deliverBy.getTime() || entry.attempts >= MAX_ATTEMPTS;
}

/**
 * Sent is sent, whoever holds the claim now: a second sender's attempt must not undo it. On the
 * claim's own version, one write; written since (a handler's settling, another drain's claim
 * after a lapse), in a transaction that reads what is there.
 */
export async function markSent(deps: ClaimDeps, id: string, version: outbox.Read["version"]): Promise<boolean> {
  const sent = () => ({ state: "sent" as const, sentAt: deps.clock.now(), claim: null });
  if ((await outbox.updateAt(deps.store, id, version, sent())) !== null) return true;
  return deps.transaction(async (tx) => {
    const current = await outbox.findById(deps.store, id, tx);
    if (current?.state === "pending") outbox.update(deps.store, tx, id, sent());
    return true;
  });
}

/**
 * A notice that lost a race for what it writes: due again at once, for the next drain (woken for
 * it as for any retry), and its attempt not counted (it failed nothing). Each round of a race has
 * a winner, so it ends.
 */
export async function release(deps: ClaimDeps, entry: outbox.StoredEntry, claimId: string): Promise<Outcome> {
  await whileClaimed(deps, entry.id, claimId, {
    claim: null,
    attempts: entry.attempts - 1,
    nextAttemptAt: deps.clock.now(),
  });
  return "retrying";
}

/**
 * An entry whose endpoint rests until `until`: due again then, the attempt not counted (nothing
 * was tried), so its tries and its time run out only by what was tried; one that would fall due
 * past its time is given up now.
 */
export async function postpone(
  deps: ClaimDeps,
  entry: outbox.StoredEntry,
  claimId: string,
  kind: string,
  until: Date,
): Promise<Outcome> {
  if (until.getTime() >= entry.deliverBy.getTime()) return settle(deps, entry, claimId, kind, true);
  await whileClaimed(deps, entry.id, claimId, {
    claim: null,
    attempts: entry.attempts - 1,
    nextAttemptAt: until,
    lastError: kind,
  });
  return "retrying";
}

/** changeWhileClaimed, where an entry left as it is falls due again when the claim lapses: the same outcome, a lease later. */
function whileClaimed(
  deps: ClaimDeps,
  id: string,
  claimId: string,
  change: Parameters<typeof outbox.update>[3],
): Promise<boolean> {
  return unlessContended(changeWhileClaimed(deps, id, claimId, change), false);
}

/**
 * A step on an entry that other drains kept locked past Firestore's retries (drains woken
 * together read the same due list) answers `otherwise`: the entry keeps its state and its claim's
 * lease, so a later drain takes it up, and this drain goes on to the next.
 */
export async function unlessContended<T>(step: Promise<T>, otherwise: T): Promise<T> {
  try {
    return await step;
  } catch (err) {
    if (!contended(err)) throw err;
    return otherwise;
  }
}

/**
 * An entry with nothing to do any more (a notice whose person is gone or has no address, an
 * approval undone, a browser only to remember; an app or a client gone; a job done): done, as
 * `none`, with nothing sent and nothing gone wrong.
 */
export async function settleUnneeded(deps: ClaimDeps, entry: OutboxEntry, claimId: string): Promise<Outcome> {
  if (await whileClaimed(deps, entry.id, claimId, { state: "none", claim: null }))
    logOutbox(deps.log, NOT_NEEDED[KINDS[entry.kind].is], { outboxId: entry.id, kind: entry.kind });
  return "skipped";
}

/** A failed attempt: retried after the backoff, or given up when it cannot succeed or is out of time. */
export async function settle(
  deps: ClaimDeps,
  entry: outbox.StoredEntry,
  claimId: string,
  kind: string,
  permanent: boolean,
): Promise<Outcome> {
  const lifetime = entry.retryUntilDone === true ? Infinity : entry.deliverBy.getTime() - entry.createdAt.getTime();
  const retryAt = new Date(deps.clock.now().getTime() + retryDelay(entry.attempts, deps.random, lifetime));
  const giveUp = permanent || outOfChances(entry, retryAt);
  const recorded = await whileClaimed(
    deps,
    entry.id,
    claimId,
    giveUp
      ? { state: "failed", claim: null, lastError: kind }
      : { nextAttemptAt: retryAt, claim: null, lastError: kind },
  );
  // Not recorded: another drain has it now, or it is tried again when this claim lapses.
  if (!giveUp || !recorded) return "retrying";
  givenUp(deps, entry, kind);
  return "failed";
}
