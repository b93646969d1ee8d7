import { MINUTE, SECOND } from "../../clock";
import { errorText } from "../../logger";
import * as outbox from "../../store/outbox";
import type { Deps } from "../deps";
import { MailRefused, type MailMessage } from "../ports";
import { unseal } from "../seal";
import { pepperRing } from "../pepper";
import { contended } from "../failures";
import { drainsOwnWakes, wakeDrainer } from "./wake";
import {
  changeWhileClaimed,
  DELIVERED,
  NotDelivered,
  type Handler,
  type HandlerAnswer,
  type Handlers,
  type HandlersOf,
} from "./handlers";
import type { HandledKind, OutboxEntry, OutboxEntryOf } from "../model/outbox";
import { KINDS } from "./kinds";
import { logOutbox } from "./log";

/**
 * The drainer: sends what the outbox (core/outbox/enqueue) holds, after the transaction that decided
 * it, and retries with backoff.
 *
 * Delivery is at least once: a drainer that dies after the mail server took a message and before
 * it recorded so leaves its claim to lapse, and the next one sends it again, under the same
 * Message-ID, which receiving mailboxes treat as the one message it is.
 */

/** How long a drainer's claim on an entry holds: longer than one SMTP send may take (nodemailer's 10 s + 20 s). */
export const LEASE_MS = MINUTE;
export const MAX_ATTEMPTS = 10;
/** How many of a drain's batch the apps' entries get however much mail is due (more when there is less). */
export const APPS_SHARE = 5;
/** How many of a drain's batch mail sent in bulk (invitations) gets however much else is due. */
export const BULK_SHARE = 5;
/** How many entries one drain sends before handing the rest to another. */
export const DRAIN_BATCH = 25;
type DrainDeps = Pick<
  Deps,
  "store" | "clock" | "random" | "pepper" | "config" | "log" | "transaction" | "mailer" | "mailQueue"
>;

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

export interface DrainReport {
  sent: number;
  retrying: number;
  failed: number;
}

/**
 * Sends what is due, and asks to be woken again for what is left or retried. What is due, and what
 * has run out of time, is judged as of the drain's start. Drains woken together read the same due
 * list: each starts at a place of its own in it, and a claim is a write on the version it read, so
 * they claim different entries side by side rather than queueing on the same one. `first`, work
 * done before (the reviewers' digest), may ask for a wake at a time of its own. What the handlers
 * and `first` queue wakes nobody: it is due by the time this drain ends, and asks for its wake.
 */
export async function drainOutbox<D extends DrainDeps>(
  deps: D,
  handlers: HandlersOf<D>,
  batch = DRAIN_BATCH,
  first?: (deps: D) => Promise<Date | null>,
): Promise<DrainReport> {
  const own = drainsOwnWakes(deps);
  const later = first === undefined ? null : await first(own);
  if (later !== null) await wakeDrainer(deps, later);
  const handling = handlers(own);
  const now = deps.clock.now();
  const report: DrainReport = { sent: 0, retrying: 0, failed: 0 };
  // Mail for people first; the apps' entries, then mail sent in bulk (invitations), fill the rest
  // of the batch, and each always gets a share.
  const mail = await outbox.due(deps.store, now, batch, "mail");
  const appsAsked = Math.max(APPS_SHARE, batch - mail.length);
  const apps = await outbox.due(deps.store, now, appsAsked, "apps");
  const bulkAsked = Math.max(BULK_SHARE, batch - mail.length - apps.length);
  const bulk = await outbox.due(deps.store, now, bulkAsked, "bulk");
  // Entries stored before there were lanes are in none: taken once the lanes have nothing due.
  const unlaned = mail.length + apps.length + bulk.length === 0 ? await outbox.due(deps.store, now, batch) : [];
  const lanes = [mail, apps, bulk].flatMap((due) => fromAPlaceOfItsOwn(deps, due));
  for (const read of [...lanes, ...unlaned]) {
    const outcome = await deliverWith(deps, read, now, handling);
    if (outcome !== "skipped") report[outcome]++;
  }
  // A full batch leaves more behind; a retry, an entry given back after a lost race, or a lapsing
  // claim falls due at `next` (a wake for a time past runs at once).
  const full = mail.length === batch || apps.length === appsAsked || bulk.length === bulkAsked;
  const next = await outbox.nextDue(deps.store);
  if (next !== null) await wakeDrainer(deps, full ? undefined : next);
  return report;
}

/** The entries of one lane, from a random place on, round to the start: drains read alike, and claim apart. */
function fromAPlaceOfItsOwn(deps: Pick<DrainDeps, "random">, due: outbox.Read[]): outbox.Read[] {
  const start = due.length === 0 ? 0 : deps.random.int(0, due.length);
  return [...due.slice(start), ...due.slice(0, start)];
}

type Outcome = "sent" | "retrying" | "failed" | "skipped";

/** One entry: claimed, sent, and marked. */
export async function deliver<D extends DrainDeps>(
  deps: D,
  id: string,
  now: Date,
  handlers: HandlersOf<D>,
): Promise<Outcome> {
  const read = await outbox.read(deps.store, id);
  return read === null ? "skipped" : deliverWith(deps, read, now, handlers(drainsOwnWakes(deps)));
}

/** One entry, as a drain read it: nothing is done unless it is still as read (see claim). */
export function deliverRead<D extends DrainDeps>(
  deps: D,
  read: outbox.Read,
  now: Date,
  handlers: HandlersOf<D>,
): Promise<Outcome> {
  return deliverWith(deps, read, now, handlers(drainsOwnWakes(deps)));
}

async function deliverWith(deps: DrainDeps, read: outbox.Read, now: Date, handlers: Handlers): Promise<Outcome> {
  const id = read.entry.id;
  const claimed = await unlessContended(claim(deps, read, now), null);
  if (claimed === null) return "skipped";
  const { entry, claimId } = claimed;
  // A document of no kind this code knows: nothing can be done with it, now or later.
  if (entry.kind === null) return settle(deps, entry, claimId, "unknown_kind", true);
  let message: MailMessage | null | typeof DELIVERED;
  try {
    message =
      "sealed" in entry ? unseal(pepperRing(deps), entry.sealed) : await handle(handlers, entry.kind, entry, claimId);
  } catch (err) {
    // Another drain's transaction on the same documents won (a person's notices sent at once).
    if (contended(err)) return release(deps, entry, claimId);
    if (err instanceof NotDelivered && err.until !== null) return postpone(deps, entry, claimId, err.kind, err.until);
    if (err instanceof NotDelivered) {
      notDelivered(deps, entry, err.kind);
      return settle(deps, entry, claimId, err.kind, false);
    }
    // A store that could not be read: tried again after the backoff.
    logOutbox(deps.log, NOT_WRITTEN[KINDS[entry.kind].is], {
      outboxId: entry.id,
      kind: entry.kind,
      error: errorText(err),
    });
    return settle(deps, entry, claimId, "unwritten", false);
  }
  if (message === DELIVERED) return "sent";
  if (message === null && !("sealed" in entry)) return settleUnneeded(deps, entry, claimId);
  if (message === null) return settle(deps, entry, claimId, "unreadable", true);
  if (deps.mailer === null) return settle(deps, entry, claimId, "not_configured", false);
  try {
    await deps.mailer.send(message, { messageId: `<${entry.id}@${deps.config.parentDomain}>` });
  } catch (err) {
    const permanent = err instanceof MailRefused && err.permanent;
    const kind = err instanceof MailRefused ? err.kind : "failed";
    logOutbox(deps.log, "mailNotSent", { outboxId: entry.id, kind: entry.kind, attempt: entry.attempts, error: kind });
    return settle(deps, entry, claimId, kind, permanent);
  }
  const marked = markSent(deps, id, claimed.version);
  // Unmarked, it is sent again once the claim lapses, as the same message (one Message-ID).
  const sent = { outboxId: entry.id, kind: entry.kind, attempt: entry.attempts };
  logOutbox(deps.log, (await unlessContended(marked, false)) ? "mailSent" : "mailSentNotMarked", sent);
  return "sent";
}

/** The line for an entry that could not be written or run this time, by what it is. */
const NOT_WRITTEN = { mail: "mailNotWritten", delivery: "deliveryNotWritten", job: "jobNotDone" } as const;
/** The line for an entry with nothing left to do when its turn came, by what it is. */
const NOT_NEEDED = { mail: "mailNotNeeded", delivery: "deliveryNotNeeded", job: "jobDone" } as const;
/** The line for an entry given up, by what it is. */
const GIVEN_UP = { mail: "mailGivenUp", delivery: "deliveryGivenUp", job: "jobGivenUp" } as const;

/** An app or a client that did not take what was posted to it, each named as what it is. */
function notDelivered(deps: Pick<DrainDeps, "log">, entry: OutboxEntry, error: string): void {
  const attempt = entry.attempts;
  if (entry.kind === "delivery")
    logOutbox(deps.log, "eventNotDelivered", { outboxId: entry.id, app: entry.about, attempt, error });
  else if (entry.kind === "backchannel-logout")
    logOutbox(deps.log, "logoutTokenNotDelivered", { outboxId: entry.id, client: entry.about, attempt, error });
  else logOutbox(deps.log, NOT_WRITTEN[KINDS[entry.kind].is], { outboxId: entry.id, kind: entry.kind, error });
}

function givenUp(deps: Pick<DrainDeps, "log">, entry: outbox.StoredEntry, error: string): void {
  if (entry.kind === null) logOutbox(deps.log, "unknownGivenUp", { outboxId: entry.id, kind: entry.storedKind });
  else
    logOutbox(deps.log, GIVEN_UP[KINDS[entry.kind].is], {
      outboxId: entry.id,
      kind: entry.kind,
      attempts: entry.attempts,
      error,
    });
}

/** The handler of the entry's kind, which every kind has: `Handlers` has a key for each. */
function handle<K extends HandledKind>(
  handlers: Handlers,
  kind: K,
  entry: OutboxEntryOf<K>,
  claimId: string,
): HandlerAnswer {
  const handler: Handler<K> = handlers[kind];
  return handler(entry, claimId);
}

/**
 * Takes the entry for this drain, if it is due, by a write on the version that was read: of drains
 * that read the same version, one claim lands and the others find it written since, at once, with
 * no transaction to queue behind. Its claim's version is what it marks the entry sent on.
 */
async function claim(
  deps: DrainDeps,
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
async function markSent(deps: DrainDeps, id: string, version: outbox.Read["version"]): Promise<boolean> {
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
async function release(deps: DrainDeps, entry: outbox.StoredEntry, claimId: string): Promise<Outcome> {
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
async function postpone(
  deps: DrainDeps,
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
  deps: DrainDeps,
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
async function unlessContended<T>(step: Promise<T>, otherwise: T): Promise<T> {
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
async function settleUnneeded(deps: DrainDeps, entry: OutboxEntry, claimId: string): Promise<Outcome> {
  if (await whileClaimed(deps, entry.id, claimId, { state: "none", claim: null }))
    logOutbox(deps.log, NOT_NEEDED[KINDS[entry.kind].is], { outboxId: entry.id, kind: entry.kind });
  return "skipped";
}

/** A failed attempt: retried after the backoff, or given up when it cannot succeed or is out of time. */
async function settle(
  deps: DrainDeps,
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
