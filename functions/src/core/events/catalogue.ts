/**
 * Which event a change to a person is, and what it says (core/model/event): free of I/O. A change
 * is one event: an approval or a rejection by its status; otherwise a change of access (status,
 * role, projects, groups) before one of the person's name, addresses or numbers; each carries
 * every field the change made, but the note to the reviewer, which is theirs.
 */
import type { Actor, HistoryEntry } from "../model/history";
import type { EventCause, EventChange, EventType, ServiceEvent } from "../model/event";
import { EVENT_VERSION } from "../model/event";
import type { Person } from "../model/person";

type Changes = HistoryEntry["changes"];

const ACCESS = ["status", "role", "projects", "groups"];
const PROFILE = ["name", "emails", "phones", "uids"];

/** The event a change is, or null for one no app hears of (a note alone, or nothing). */
export function changeEventType(changes: Changes): EventType | null {
  const status = changes.status?.to;
  if (status === "approved") return "person.approved";
  if (status === "rejected") return "person.rejected";
  if (Object.keys(changes).some((f) => ACCESS.includes(f))) return "person.access_changed";
  if (Object.keys(changes).some((f) => PROFILE.includes(f))) return "person.profile_changed";
  return null;
}

/** What an app is told of who caused it: a kind, never a person. */
export function causeOf(actor: Actor): EventCause {
  if (actor.kind === "admin") return "administrator";
  return actor.kind;
}

/** The fields an app hears of: every tracked field but the note. */
export function eventChanges(changes: Changes): Record<string, EventChange> {
  return Object.fromEntries(Object.entries(changes).filter(([field]) => field !== "note"));
}

export interface EventFacts {
  id: string;
  type: EventType;
  at: Date;
  person: Pick<Person, "id" | "uids">;
  seq: number;
  by: EventCause;
  changes?: Changes;
  sessions?: number;
}

/** The event as the apps receive it. An erasure says nothing but the ids. */
export function eventOf(facts: EventFacts): ServiceEvent {
  const data: ServiceEvent["data"] = { uids: [...facts.person.uids], by: facts.by };
  if (facts.type !== "person.erased") {
    if (facts.changes !== undefined) data.changes = eventChanges(facts.changes);
    if (facts.sessions !== undefined) data.sessions = facts.sessions;
  }
  return {
    id: facts.id,
    type: facts.type,
    version: EVENT_VERSION,
    occurredAt: facts.at.toISOString(),
    personId: facts.person.id,
    seq: facts.seq,
    data,
  };
}
