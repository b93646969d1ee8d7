import { DAY } from "../../clock";
import { errorText } from "../../logger";
import * as outbox from "../../store/outbox";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { MailMessage } from "../ports";
import type { ServiceEvent } from "../model/event";
import { seal } from "../seal";
import { pepperRing } from "../pepper";

/**
 * Mail goes through an outbox. The rule that decides to send writes the message in its own
 * transaction (`enqueueMail`), so the decision and the mail are one commit: a retried
 * transaction writes it once, a refused one not at all. The drainer (core/outbox/drain, run by the
 * `mail` task function) sends it afterwards and retries with backoff, so no answer of the API
 * waits on, or tells anything about, the mail server.
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
  options: { kind: string; deliverBy: Date; id?: string },
): string {
  const id = options.id ?? deps.random.id();
  const placeholder: MailMessage = { to: "", subject: "", text: "", html: "" };
  add(deps, tx, {
    id,
    kind: options.kind,
    sealed: seal(pepperRing(deps), deps.random, message ?? placeholder),
    about: null,
    to: null,
    state: message === null ? "none" : "pending",
    deliverBy: options.deliverBy,
  });
  return id;
}

/**
 * How many mails and deliveries waiting to be sent are sealed under the CODE_PEPPER key `kid`:
 * once it leaves the ring they cannot be opened, and are given up (`keys retire-code-pepper`).
 */
export const waitingSealedUnder = (deps: Pick<Deps, "store">, kid: string): Promise<number> =>
  outbox.pendingSealedUnder(deps.store, kid);

/**
 * Records a notice of `kind` about `about` (a person's id) for sending once `tx` commits. No
 * message is stored: the drainer writes it when it sends it (a Renderer, see core/outbox/drain), from
 * what is true then. Needs no key, so a function that decides a notice never holds CODE_PEPPER.
 */
export function enqueueNotice(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  options: NoticeOptions,
): string {
  const entry = noticeEntry(deps, options);
  outbox.add(deps.store, tx, entry);
  return entry.id;
}

export interface NoticeOptions {
  kind: string;
  about: string;
  /**
   * For a notice to a person: the address it goes to, fixed now (outbox `to`), in the transaction
   * of what it tells. Omitted for what goes to no person (an app's event, a job).
   */
  to?: string | null;
  deliverBy: Date;
  /** What a security notice tells. */
  notice?: outbox.OutboxNotice;
  /** Not sent before then (a summary waits for the end of its hour); now otherwise. */
  notBefore?: Date;
  /** An event for the apps (core/events), and the entry's id then: the event's own. */
  event?: ServiceEvent;
  /** A sign-in to tell its client has ended (core/oidc/backchannel). */
  logout?: outbox.OutboxLogout;
  /** `apps` for what goes to the family's apps, `bulk` for invitations; `mail` (for people) otherwise. */
  lane?: outbox.OutboxLane;
  id?: string;
}

/** A notice's entry as it is first stored, for the caller to write in its transaction or alone. */
export function noticeEntry(deps: Pick<Deps, "clock" | "random">, options: NoticeOptions): outbox.OutboxEntry {
  return entry(deps, {
    id: options.id ?? deps.random.id(),
    kind: options.kind,
    sealed: null,
    about: options.about,
    to: options.to ?? null,
    ...(options.notice === undefined ? {} : { notice: options.notice }),
    ...(options.event === undefined ? {} : { event: options.event }),
    ...(options.logout === undefined ? {} : { logout: options.logout }),
    ...(options.lane === undefined ? {} : { lane: options.lane }),
    state: "pending",
    deliverBy: options.deliverBy,
    ...(options.notBefore === undefined ? {} : { nextAttemptAt: options.notBefore }),
  });
}

function add(
  deps: Pick<Deps, "store" | "clock">,
  tx: Transaction,
  fields: Pick<outbox.OutboxEntry, "id" | "kind" | "sealed" | "about" | "to" | "state" | "deliverBy">,
): void {
  outbox.add(deps.store, tx, entry(deps, fields));
}

function entry(
  deps: Pick<Deps, "clock">,
  fields: Pick<
    outbox.OutboxEntry,
    "id" | "kind" | "sealed" | "about" | "to" | "state" | "deliverBy" | "notice" | "event" | "logout"
  > &
    Partial<Pick<outbox.OutboxEntry, "nextAttemptAt" | "lane">>,
): outbox.OutboxEntry {
  const now = deps.clock.now();
  return {
    attempts: 0,
    nextAttemptAt: now,
    lane: "mail",
    ...fields,
    claim: null,
    createdAt: now,
    sentAt: null,
    lastError: null,
    forgetAfter: new Date(Math.max(fields.deliverBy.getTime(), now.getTime()) + KEPT_MS),
  };
}

/**
 * Asks for a drain, at once or at `at`, and never fails the caller: mail that is not woken for
 * now waits in the outbox for the next wake (GET /status shows the backlog).
 */
export async function wakeDrainer(deps: Pick<Deps, "mailQueue" | "log">, at?: Date): Promise<void> {
  try {
    await deps.mailQueue.wake(at);
  } catch (err) {
    deps.log.warn("mail drainer could not be woken; the outbox keeps the mail", { error: errorText(err) });
  }
}
