/**
 * Every line the outbox logs, in one table: the kinds of entry it is about, its message, its
 * fields and its severity, and what it means. The drain, its handlers and its wakes log through
 * `logOutbox`, which takes a line of this table and exactly its fields; docs/operating.md lists the
 * table as it is here (functions/test/unit/outbox-log.test.ts holds the two together). No line
 * names an address or a mail's text.
 */
import type { Logger } from "../../logger";
import type { OutboxKind } from "../model/outbox";
import { kindsThatAre } from "./kinds";

type Severity = "INFO" | "WARNING" | "ERROR";

interface Line {
  message: string;
  severity: Severity;
  /** The kinds of entry it is about; empty for the outbox as a whole. */
  kinds: readonly OutboxKind[];
  fields: readonly string[];
  means: string;
}

const MAIL = kindsThatAre("mail");
/** Mail written as it is sent (a notice, an invitation), rather than sealed when it was decided. */
const WRITTEN: OutboxKind[] = ["approval", "rejection", "client-review", "security-notice", "invitation"];
const DELIVERIES = kindsThatAre("delivery");
const JOBS = kindsThatAre("job");

export const OUTBOX_LOG = {
  mailSent: {
    message: "mail sent",
    severity: "INFO",
    kinds: MAIL,
    fields: ["outboxId", "kind", "attempt"],
    means: "The drain sent a mail; never the address or the text",
  },
  mailSentNotMarked: {
    message: "mail sent, not marked",
    severity: "WARNING",
    kinds: MAIL,
    fields: ["outboxId", "kind", "attempt"],
    means:
      "A mail went, but its entry could not be marked sent (the store too busy with it): once its claim lapses it is sent again as the same message, one `Message-ID`, so a mail client shows it once",
  },
  mailNotSent: {
    message: "mail not sent",
    severity: "WARNING",
    kinds: MAIL,
    fields: ["outboxId", "kind", "attempt", "error"],
    means:
      "The mail server did not take a mail (`error`: `timeout`, `unreachable`, `deferred`, `rejected`, `failed`); it is tried again after a backoff, unless it was a `5xx` refusal ([the outbox](endpoints/email-codes.md#the-outbox)). The answer to the person was `200` long before",
  },
  mailNotNeeded: {
    message: "mail not needed",
    severity: "INFO",
    kinds: WRITTEN,
    fields: ["outboxId", "kind"],
    means:
      "A notice had nothing left to say when its turn came (its person gone, no longer approved or without an address, an approval undone, an app's review changed again or the app removed, an invitation revoked or sent again since, or a browser only to remember): nothing sent, the entry done as `none`. A security notice past the person's limit is done as `folded` instead, and counted in their summary ([Security notices](privacy.md#security-notices))",
  },
  mailNotWritten: {
    message: "mail not written",
    severity: "WARNING",
    kinds: WRITTEN,
    fields: ["outboxId", "kind", "error"],
    means:
      "The drain could not write a notice when its turn came (`error`: the store unreachable, or too busy with that person's other notices); it is tried again after the backoff, like a mail the server did not take",
  },
  mailGivenUp: {
    message: "mail given up",
    severity: "ERROR",
    kinds: MAIL,
    fields: ["outboxId", "kind", "attempts", "error"],
    means:
      "A mail could not be sent before its `deliverBy` (a code mail: the code's expiry), after ten attempts, or was refused for good, or could not be opened (`unreadable`: its pepper key retired): it is dropped. Many of these mean the mail server is down or refusing us: `GET /status` shows the outbox's backlog",
  },
  eventDelivered: {
    message: "event delivered",
    severity: "INFO",
    kinds: ["delivery"],
    fields: ["outboxId", "app", "type", "attempt"],
    means: "An app took an event ([Events](endpoints/events.md))",
  },
  eventNotDelivered: {
    message: "event not delivered",
    severity: "WARNING",
    kinds: ["delivery"],
    fields: ["outboxId", "app", "attempt", "error"],
    means:
      "An app did not take an event (`error`: `status <n>`, `timeout`, `unreachable`, `no secret`); tried again after the backoff, then kept as dead (`hooks deliveries`). While its endpoint rests after a failure, its deliveries wait without a try or a line",
  },
  logoutTokenDelivered: {
    message: "logout token delivered",
    severity: "INFO",
    kinds: ["backchannel-logout"],
    fields: ["outboxId", "client", "attempt"],
    means: "A client took a logout token for a sign-in that ended ([Back-channel logout](endpoints/oidc.md))",
  },
  logoutTokenNotDelivered: {
    message: "logout token not delivered",
    severity: "WARNING",
    kinds: ["backchannel-logout"],
    fields: ["outboxId", "client", "attempt", "error"],
    means:
      "A client did not take a logout token (`error`: `status <n>`, `timeout`, `unreachable`); tried again after the backoff for a day",
  },
  deliveryNotNeeded: {
    message: "delivery not needed",
    severity: "INFO",
    kinds: DELIVERIES,
    fields: ["outboxId", "kind"],
    means:
      "Nobody to deliver to any more when its turn came: the app's subscription removed or disabled, the client gone, disabled or without a `backchannel_logout_uri`. Done as `none`",
  },
  deliveryNotWritten: {
    message: "delivery not written",
    severity: "WARNING",
    kinds: DELIVERIES,
    fields: ["outboxId", "kind", "error"],
    means:
      "The drain could not read or write what an entry in the apps' lane needs (an event's fan-out to its subscriptions, a delivery, a logout token): tried again after the backoff",
  },
  deliveryGivenUp: {
    message: "delivery given up",
    severity: "ERROR",
    kinds: DELIVERIES,
    fields: ["outboxId", "kind", "attempts", "error"],
    means:
      "An entry in the apps' lane was not taken before its `deliverBy` or within its attempts: the app's or the client's endpoint is down or refusing. A dead event delivery is listed by `hooks deliveries <app>` and can be sent again (`hooks redeliver`)",
  },
  jobDone: {
    message: "job done",
    severity: "INFO",
    kinds: JOBS,
    fields: ["outboxId", "kind"],
    means:
      "A job the outbox runs is done: a provider account let go deleted (or signed in with again since, and so someone's to keep), an erasure finished. Done as `none`; an erasure's job is deleted as the erasure ends, and logs nothing",
  },
  jobNotDone: {
    message: "job not done",
    severity: "WARNING",
    kinds: JOBS,
    fields: ["outboxId", "kind", "error"],
    means:
      "A job could not be done this time (`error`: the identity provider refused or failed, the store unreachable); tried again after the backoff. An erasure's job is tried until it is done, at least every 4 hours ([Erasure](privacy.md#erasure))",
  },
  jobGivenUp: {
    message: "job given up",
    severity: "ERROR",
    kinds: ["account-deletion"],
    fields: ["outboxId", "kind", "attempts", "error"],
    means:
      "A provider account let go could not be deleted within a week: it is no longer anyone's way in (no person holds it), but it stays at the provider until deleted by hand",
  },
  unknownGivenUp: {
    message: "outbox entry of an unknown kind given up",
    severity: "ERROR",
    kinds: [],
    fields: ["outboxId", "kind"],
    means:
      "An entry of a kind this code does not know, or missing what its kind carries (written by another version, or damaged): it cannot be sent or run, and is kept as `failed`",
  },
  drainNotWoken: {
    message: "mail drainer could not be woken; the outbox keeps the mail",
    severity: "WARNING",
    kinds: [],
    fields: ["error"],
    means:
      "Enqueueing the `mail` task failed (the Cloud Tasks API, or the service account's permission to enqueue; from the operator CLI, also its credentials' right to read the `mail` function, to enqueue and to act as the function's service account: [The operator CLI](#commands)). What was queued waits in the outbox for the next wake",
  },
} as const satisfies Record<string, Line>;

export type OutboxLine = keyof typeof OUTBOX_LOG;

/** The fields of `line`, each named: no more, no fewer. */
export type FieldsOf<L extends OutboxLine> = Record<(typeof OUTBOX_LOG)[L]["fields"][number], string | number | null>;

/** Logs `line` of the table with its fields, at its severity. */
export function logOutbox<L extends OutboxLine>(log: Logger, line: L, fields: FieldsOf<L>): void {
  const { message, severity } = OUTBOX_LOG[line];
  if (severity === "INFO") log.info(message, fields);
  else if (severity === "WARNING") log.warn(message, fields);
  else log.error(message, fields);
}
