/**
 * What the drain (core/outbox/drain) asks of each kind of entry it does not send as it is: a
 * handler, which writes the mail when its time comes, or delivers or runs the entry itself. The
 * drain is given one for every such kind (`Handlers`), so a kind without one does not compile.
 */
import * as outbox from "../../store/outbox";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { MailMessage } from "../ports";
import type { HandledKind, OutboxEntryOf } from "../model/outbox";

/**
 * What a handler that delivers the entry itself and settles it (an event fanned out, a delivery
 * an app took, a logout token a client took) answers: done, counted as sent, with nothing more for
 * the drain to write.
 */
export const DELIVERED = Symbol("delivered");

/**
 * The mail to send, or null when there is nothing to send any more (the person is gone, or has no
 * address, or the handler has settled the entry itself; a job that is done), or DELIVERED when the
 * handler delivered it and settled it.
 */
export type HandlerAnswer = Promise<MailMessage | null | typeof DELIVERED>;

/**
 * Writes or runs an entry of kind `K` as its time comes. `claim` is the drain's hold on the
 * entry, for a handler that settles it in a transaction of its own (changeWhileClaimed).
 */
export type Handler<K extends HandledKind> = (entry: OutboxEntryOf<K>, claim: string) => HandlerAnswer;

/** A handler for every kind the drain does not send as it is (core/model/outbox `HandledKind`). */
export type Handlers = { [K in HandledKind]: Handler<K> };

/** The handlers, made for the deps the drain runs with (tasks/mail `handlers`). */
export type HandlersOf<D> = (deps: D) => Handlers;

/**
 * What a handler that delivers itself (an event to an app's endpoint, core/events/delivery)
 * throws when the delivery did not go through: retried after the backoff, like a mail the server
 * did not take, with `kind` (`timeout`, `status 503`, `paused`…) as its last error.
 */
export class NotDelivered extends Error {
  readonly kind: string;
  /**
   * Not tried at all: its endpoint rests until then (an app's pause after failures). The entry
   * waits until that time, and the wait is not counted as an attempt.
   */
  readonly until: Date | null;
  constructor(kind: string, until: Date | null = null) {
    super(`not delivered: ${kind}`);
    this.kind = kind;
    this.until = until;
  }
}

/**
 * Records `change` on the entry, in one transaction with `work` (a handler's own writes, say an
 * event's deliveries), if the entry is still pending under this drain's claim, and says so;
 * otherwise leaves it: settled already (by its handler, say a notice folded into a summary), or
 * taken over by another drain whose claim replaced ours, whose outcome is the one that counts.
 * Contention past the retries is thrown, for the caller to judge.
 */
export function changeWhileClaimed(
  deps: Pick<Deps, "store" | "transaction">,
  id: string,
  claimId: string,
  change: Parameters<typeof outbox.update>[3],
  work?: (tx: Transaction) => Promise<void>,
): Promise<boolean> {
  return deps.transaction(async (tx) => {
    const current = await outbox.findById(deps.store, id, tx);
    if (current?.state !== "pending" || current.claim !== claimId) return false;
    await work?.(tx);
    outbox.update(deps.store, tx, id, change);
    return true;
  });
}
