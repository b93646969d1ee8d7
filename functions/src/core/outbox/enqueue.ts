import { DAY } from "../../clock";
import * as outbox from "../../store/outbox";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { MailMessage } from "../ports";
import type {
  HandledKind,
  OutboxEntry,
  OutboxEntryOf,
  OutboxKind,
  OutboxKinds,
  Queued,
  SealedKind,
} from "../model/outbox";
import { seal } from "../seal";
import { pepperRing } from "../pepper";
import { noteQueued, wakeDrainer } from "./wake";
import { KINDS } from "./kinds";
import { currentTrace } from "../../trace";

/**
 * What follows a commit goes through the outbox. The rule that decides it writes its entry in its
 * own transaction (`enqueue`, `enqueueMail`), so the decision and what follows from it are one
 * commit: a retried transaction writes it once, a refused one not at all. The drain
 * (core/outbox/drain, run by the `mail` task function) is woken once that commit is made
 * (core/outbox/wake), sends or runs it, and retries with backoff, so no answer of the API waits
 * on, or tells anything about, a mail server or an app.
 */

/**
 * A notice not delivered within a day is given up: by then it is stale, and the pepper key it was
 * sealed under may have been retired (CODE_PEPPER's rotation keeps an old key for 24 hours).
 */
export const NOTICE_DELIVER_WITHIN_MS = DAY;
/** How long a finished entry is kept for the log's sake. */
const KEPT_MS = 7 * DAY;

type OutboxDeps = Pick<Deps, "store" | "clock" | "random" | "pepper" | "config" | "log" | "transaction">;

/**
 * Records `message` for sending once `tx` commits; its id doubles as the Message-ID. With a null
 * message the same write is made with nothing to send (state `none`): an address on no account
 * must cost what a person's address costs.
 */
export function enqueueMail(
  deps: OutboxDeps,
  tx: Transaction,
  message: MailMessage | null,
  options: { kind: SealedKind; deliverBy: Date; id?: string },
): string {
  const placeholder: MailMessage = { to: "", subject: "", text: "", html: "" };
  const entry = {
    ...queued(deps, options.kind, options),
    kind: options.kind,
    sealed: seal(pepperRing(deps), deps.random, message ?? placeholder),
    state: message === null ? "none" : "pending",
  } satisfies OutboxEntry;
  outbox.add(deps.store, tx, entry);
  noteQueued(tx);
  return entry.id;
}

/**
 * How many mails and deliveries waiting to be sent are sealed under the CODE_PEPPER key `kid`:
 * once it leaves the ring they cannot be opened, and are given up (`keys retire-code-pepper`).
 */
export const waitingSealedUnder = (deps: Pick<Deps, "store">, kid: string): Promise<number> =>
  outbox.pendingSealedUnder(deps.store, kid);

/**
 * An entry of kind `K` to queue: what its kind carries (core/model/outbox `OutboxKinds`), by when
 * it is given up, and from when it is due.
 */
export type Queueing<K extends HandledKind> = { kind: K } & OutboxKinds[K] & {
    deliverBy: Date;
    /** Not due before then (a summary waits for the end of its hour, an erasure's job for the request's own try); now otherwise. */
    notBefore?: Date;
    /** The entry's id: an event's own, an invitation's per send; a random one otherwise. */
    id?: string;
    /** Tried until it is done, never given up, and kept until its work deletes it (an erasure's job). */
    retryUntilDone?: true;
  };

/**
 * Records an entry for sending or running once `tx` commits. Nothing is written for it but what
 * its kind carries: the drain writes a notice when it sends it (its handler, core/outbox/drain),
 * from what is true then, so a function that decides a notice never holds CODE_PEPPER.
 */
export function enqueue<K extends HandledKind>(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  queueing: Queueing<K>,
): string {
  const entry = queuedEntry(deps, queueing);
  outbox.add(deps.store, tx, entry);
  noteQueued(tx);
  return entry.id;
}

/**
 * Records an entry outside any transaction (an action with none of its own, POST /auth/verify),
 * and wakes the drain once it is written. A write that fails is thrown, and wakes nobody.
 */
export async function enqueueAlone<K extends HandledKind>(
  deps: Pick<Deps, "store" | "clock" | "random" | "mailQueue" | "log">,
  queueing: Queueing<K>,
): Promise<void> {
  await outbox.addAlone(deps.store, queuedEntry(deps, queueing));
  await wakeDrainer(deps);
}

/** The entry as it is first stored, for the caller to write in its transaction or alone. */
export function queuedEntry<K extends HandledKind>(
  deps: Pick<Deps, "clock" | "random">,
  queueing: Queueing<K>,
): OutboxEntryOf<K> {
  const { deliverBy: _, notBefore: __, id: ___, retryUntilDone, ...carried } = queueing;
  const entry = { ...queued(deps, queueing.kind, queueing), ...carried };
  return (retryUntilDone ? { ...entry, retryUntilDone, forgetAfter: null } : entry) as OutboxEntryOf<K>;
}

/** Where an entry of `kind` first is in the queue: pending, due at `notBefore` or now. */
function queued(
  deps: Pick<Deps, "clock" | "random">,
  kind: OutboxKind,
  options: { deliverBy: Date; notBefore?: Date; id?: string },
): Queued {
  const now = deps.clock.now();
  return {
    id: options.id ?? deps.random.id(),
    state: "pending",
    lane: KINDS[kind].lane,
    attempts: 0,
    nextAttemptAt: options.notBefore ?? now,
    claim: null,
    deliverBy: options.deliverBy,
    createdAt: now,
    sentAt: null,
    lastError: null,
    forgetAfter: new Date(Math.max(options.deliverBy.getTime(), now.getTime()) + KEPT_MS),
    // The request (or other work) that decided it: the drain's lines about it carry its trace.
    trace: currentTrace(),
  };
}
