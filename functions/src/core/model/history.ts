/**
 * A person's history, as the domain tells it: who acted, how, and what changed. The store keeps
 * it (store/person-history); no I/O here.
 */

/** Who acted: an administrator (through the API), an operator (the CLI), the person themself, or the service. */
export type Actor = AdminActor | Operator | { kind: "person" } | { kind: "service" };

/**
 * An administrator, and how the session they acted from began: its methods (RFC 8176: `hwk` or
 * `swk` for a passkey) and, when the operator had lifted the passkey rule for them, `lifted`.
 * Entries written before this was recorded carry neither.
 */
export interface AdminActor {
  kind: "admin";
  personId: string;
  email: string | null;
  amr?: string[];
  lifted?: true;
}

/** An operator on the command line, by login and machine. */
export type Operator = { kind: "operator"; name: string };

export type Via =
  | "api"
  | "cli"
  | "request-access"
  | "bridge"
  | "sign-in"
  | "seed"
  | "review"
  | "account"
  | "invitation"
  // A person let in by the operator's rule for their address's domain (ADDRESS_RULES).
  | "rule";

/**
 * What happened: the person was created, changed, or had sessions or passkeys ended by someone
 * else (or passkeys and recovery codes taken with an address, by anyone).
 */
export type HistoryEvent =
  | "created"
  | "changed"
  | "sessions-ended"
  | "passkeys-removed"
  // An app they let in through the OpenID Connect provider was disconnected (`changes.apps.from`: its name).
  | "app-disconnected"
  // They let an app that registered itself in, on its consent page (`changes.apps.to`: its name and
  // what it may do: `changes.scopes.to`; the resource, if any: `changes.resource.to`).
  | "app-let-in"
  | "exported"
  | "erased"
  // In an administrator's own history: they took a copy of someone's data, or erased someone.
  | "exported-someone"
  | "erased-someone"
  // In an inviter's own history: they invited an address, sent its invitation again, or revoked it.
  | "invited-someone"
  | "invitation-resent"
  | "invitation-revoked"
  // The operator lifted the passkey rule for them (`changes.passkeyRule.to`: until when), or ended
  // a lift early; or cleared their passkeys and recovery codes (their enrolment begins again).
  | "passkey-rule-lifted"
  | "passkey-rule-restored"
  | "passkeys-cleared";

export type FieldValue = string | string[];

export interface HistoryEntry {
  id: string;
  personId: string;
  at: Date;
  by: Actor;
  via: Via;
  event: HistoryEvent;
  /** Each field the event changed: what it was, and what it became. */
  changes: Record<string, { from: FieldValue | null; to: FieldValue | null }>;
  /** Sorts entries: `at`, then the id (listKeyOf in core/model/person, for history). */
  key: string;
}
