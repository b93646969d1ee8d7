import { errorText } from "../../logger";
import * as outbox from "../../store/outbox";
import type { Deps } from "../deps";
import { MailRefused, type MailMessage } from "../ports";
import { unseal } from "../seal";
import { pepperRing } from "../pepper";
import { contended } from "../failures";
import {
  claim,
  markSent,
  notDelivered,
  notWritten,
  postpone,
  release,
  settle,
  settleUnneeded,
  unlessContended,
  type Outcome,
} from "./claims";
import { drainsOwnWakes, wakeDrainer } from "./wake";
import { DELIVERED, NotDelivered, type Handler, type HandlerAnswer, type Handlers, type HandlersOf } from "./handlers";
import type { HandledKind, OutboxEntryOf } from "../model/outbox";
import { logOutbox } from "./log";
import { inTrace } from "../../trace";

/**
 * The drainer: sends what the outbox (core/outbox/enqueue) holds, after the transaction that decided
 * it, and retries with backoff.
 *
 * Delivery is at least once: a drainer that dies after the mail server took a message and before
 * it recorded so leaves its claim to lapse, and the next one sends it again, under the same
 * Message-ID, which receiving mailboxes treat as the one message it is.
 */

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
 * Drains woken together mostly find what was due claimed already: one that finds nothing due
 * reads no lane.
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
  // Nothing due (the drains woken at once have claimed it, say): one query, not one a lane, and a
  // wake for when something falls due.
  const earliest = await outbox.nextDue(deps.store);
  if (earliest === null || earliest.getTime() > now.getTime()) {
    if (earliest !== null) await wakeDrainer(deps, earliest);
    return report;
  }
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

/**
 * Every way an entry is worked on comes here, the drain's included: under the trace of the request
 * that queued it, so its lines, and its mail's, carry that request's trace id (trace.ts).
 */
function deliverWith(deps: DrainDeps, read: outbox.Read, now: Date, handlers: Handlers): Promise<Outcome> {
  return inTrace(read.entry.trace, () => deliverTraced(deps, read, now, handlers));
}

async function deliverTraced(deps: DrainDeps, read: outbox.Read, now: Date, handlers: Handlers): Promise<Outcome> {
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
    notWritten(deps, entry, errorText(err));
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
