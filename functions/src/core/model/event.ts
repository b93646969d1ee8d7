/**
 * What the service tells the family's apps (signed webhooks, core/events): one event per change
 * to a person, versioned. No secret, and no more of the person than the change needs: their ids
 * (`personId`, and `uids`, the provider accounts the apps know them by), and for a change the
 * fields it changed, before and after. An erasure carries the ids alone. No I/O here.
 */

/** The catalogue, version 1. */
export const EVENT_TYPES = [
  "person.access_requested",
  "person.approved",
  "person.rejected",
  "person.access_changed",
  "person.profile_changed",
  "person.sessions_ended",
  "person.erased",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_VERSION = 1;

/** A field's value before and after (null: it had none). */
export type EventChange = { from: string | string[] | null; to: string | string[] | null };

/** Who caused it, as an app may act on it: never who the administrator was. */
export type EventCause = "person" | "administrator" | "operator" | "service";

export interface ServiceEvent {
  /** `evt_` and 22 random characters: the `webhook-id` of every delivery of it, retries and redeliveries alike. */
  id: string;
  type: EventType;
  version: typeof EVENT_VERSION;
  /** When the change was made (ISO 8601). */
  occurredAt: string;
  personId: string;
  /** This person's events in order: an app that holds a higher one drops this. */
  seq: number;
  data: {
    uids: string[];
    /** The fields changed; absent from an erasure and an ending of sessions. */
    changes?: Record<string, EventChange>;
    /** An ending of sessions: how many. */
    sessions?: number;
    by: EventCause;
  };
}
