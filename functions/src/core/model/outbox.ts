/**
 * An outbox entry: what the service decided, in the transaction of a change, to send or to do once
 * it has committed (core/outbox), and how far it has got. Every kind of entry is declared here,
 * once, with what it carries (`OutboxKinds`); the store maps the documents (store/outbox.ts). No
 * I/O here.
 */
import type { ServiceEvent } from "./event";
import type { Sealed } from "./sealed";

/**
 * - `pending`: to be sent once `nextAttemptAt` has come; a drain that claims it pushes that time
 *   forward by its lease, so a claim that died with its drain is taken up again.
 * - `sent`, `failed`: done; kept until `forgetAfter` for the log's sake.
 * - `none`: nothing to send (a send to an address on no account, a notice with nothing left to say).
 * - `folded`: a security notice past a person's limit, told in a summary (another entry) instead.
 */
export type OutboxState = "pending" | "sent" | "failed" | "none" | "folded";

/**
 * Which of the drain's queues an entry waits in: `mail`, for people (codes, notices, the digest,
 * the jobs), taken first; `apps`, for the family's apps (events, their deliveries, logout tokens);
 * `bulk`, mail an administrator sends many of at once (invitations). The last two may come by the
 * thousand and must not hold up a code.
 */
export type OutboxLane = "mail" | "apps" | "bulk";

/**
 * What a security notice tells (core/notices/security-notices), kept beside whom it is about so the
 * drain can write it when it sends it. Nothing in it opens anything: lines of plain text, a
 * browser's name, and the digest (never the identifier) of the browser to remember.
 */
export interface OutboxNotice {
  /**
   * `newBrowser`, `waysIn`, `access`; `summary` for the one that tells of those past the limit;
   * `addressRemoved` for the one to an address taken off the person.
   */
  kind: string;
  /** What happened, a line each. */
  lines: string[];
  at: Date;
  /** The browser and system that did it ("Firefox on Windows"), or who did it where there was none. */
  from: string;
  /** The digest of a browser to remember as the person's once this notice is written; null for none. */
  learn: string | null;
  /** Nothing to tell, only a browser to remember: the first one a person signs in from. */
  quiet: boolean;
  /** Sent at once, whatever the hour's count: it takes a place, and is never folded. */
  urgent?: boolean;
  /** A summary's count of the notices folded into it, by kind. */
  folded: Record<string, number>;
}

/** A sign-in whose end a client is told of (core/oidc/backchannel): its `sid`, and its `sub` unless the person was erased. */
export interface OutboxLogout {
  sid: string;
  sub: string | null;
}

/**
 * A mail written when it was decided, sealed (core/seal): a code mail carries the code, and no
 * stored record may. Its kind names it in the log.
 */
export interface SealedMail {
  sealed: Sealed;
}

/**
 * A notice to a person, written when it is sent from what is true then, so the function that
 * decides it needs no key: `about` the person's id, and the one address it goes to, fixed when it
 * was queued, in the transaction of what it tells (their first address before the change, or the
 * address a change took off them). A change made since cannot send it elsewhere. `to` null:
 * written to their first address when it is sent (a person who had none when it was queued).
 */
export interface PersonNotice {
  about: string;
  to: string | null;
}

/** Every kind of entry, and what it carries. */
export interface OutboxKinds {
  /** A sign-in code's mail (core/email-codes). */
  code: SealedMail;
  /** An address's owner told it is locked after wrong codes (core/email-codes). */
  "lock-notice": SealedMail;
  /** The reviewers' digest of who waits (core/notices/review-notices). */
  digest: SealedMail;
  /** A person told they are approved (core/notices/review-notices). */
  approval: PersonNotice;
  /** A person told they are turned down, where NOTIFY_REJECTED is on. */
  rejection: PersonNotice;
  /**
   * A person who tried an app while it waited for review, told of the reviewer's decision
   * (core/notices/client-review-notices): `client` its id, `decision` what was decided.
   */
  "client-review": PersonNotice & { client: string; decision: "approved" | "blocked" };
  /** A person told of their own account (core/notices/security-notices). */
  "security-notice": PersonNotice & { notice: OutboxNotice };
  /** An invitation's mail (core/invitations/invitations), `about` the invitation; each send its own entry. */
  invitation: { about: string };
  /** A provider account a person let go, deleted at the identity provider (core/people/accounts), `about` its uid. */
  "account-deletion": { about: string };
  /** What is left of a person's erasure (core/people/erasure-job), `about` their id: retried until done. */
  erasure: { about: string };
  /** An event for the apps (core/events), `about` its person, fanned out to each subscription; its id is the event's. */
  event: { about: string; event: ServiceEvent };
  /** One app's delivery of an event, `about` the app. */
  delivery: { about: string; event: ServiceEvent };
  /** A logout token for a client (core/oidc/backchannel), `about` the client. */
  "backchannel-logout": { about: string; logout: OutboxLogout };
}

export type OutboxKind = keyof OutboxKinds;

/** The kinds of mail sealed when it was decided: sent as it is, with nothing to write. */
export type SealedKind = { [K in OutboxKind]: OutboxKinds[K] extends SealedMail ? K : never }[OutboxKind];

/** The kinds written or run when their time comes: each has its handler (core/outbox/handlers `Handlers`). */
export type HandledKind = Exclude<OutboxKind, SealedKind>;

/** What every entry has, whatever its kind: where it is in the queue. */
export interface Queued {
  id: string;
  state: OutboxState;
  lane: OutboxLane;
  attempts: number;
  nextAttemptAt: Date;
  /** The claim of the drain sending it now; null when nobody is. */
  claim: string | null;
  /** Not sent by then, not sent at all (a code mail is worthless once its code has expired). */
  deliverBy: Date;
  createdAt: Date;
  sentAt: Date | null;
  /** The kind of the last failure only (`timeout`, `refused`, `rejected`...), never a server's text. */
  lastError: string | null;
  /**
   * Tried until it is done, past `deliverBy` and any number of attempts (an erasure's finishing
   * job): never given up. Such an entry is deleted by whoever finishes its work.
   */
  retryUntilDone?: boolean;
  /** When TTL deletes it; null for an entry retried until done, which no TTL may take while it waits. */
  forgetAfter: Date | null;
  /** The trace of the work that queued it (trace.ts), which the drain's work on it carries on; null: none. */
  trace: string | null;
}

/** An entry of kind `K` (of each of them, for a union). */
export type OutboxEntryOf<K extends OutboxKind> = K extends OutboxKind ? Queued & { kind: K } & OutboxKinds[K] : never;

export type OutboxEntry = OutboxEntryOf<OutboxKind>;
