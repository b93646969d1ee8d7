/**
 * A person, and an entry of their history, as the people administration endpoints return them
 * (routes/people/), with the mappers that make them. The types are built from the domain's
 * records (core/model), which import nothing, so the identity host's reviewer pages take them
 * from here (as site/src/shared/api.ts takes PersonView) and a new field or history event reaches
 * the pages' type check without a copy to keep in step.
 */
import type { Actor, FieldValue, HistoryEntry, HistoryEvent, Via } from "../model/history";
import type { Origin, Person, PersonStatus, Role, Suggestion } from "../model/person";

export interface AdminPersonView {
  personId: string;
  /** The first linked account at the identity provider; null when there is none. */
  uid: string | null;
  uids: string[];
  /** The first of the person's addresses; null when they have none. */
  email: string | null;
  emails: string[];
  phones: string[];
  name: string;
  role: Role;
  projects: string[];
  groups: string[];
  status: PersonStatus;
  createdAt: string;
  updatedAt: string;
  /** What they proved when they came: an address, an account at a provider; null when an administrator added them. */
  origin: Origin | null;
  /** What they wrote to the reviewer: plain text, "" for none. */
  note: string;
  /** Waiting for review: what the rule for their address's domain suggests they be given; null for none. */
  suggestion: Suggestion | null;
}

export interface HistoryEntryView {
  at: string;
  by: Actor;
  via: Via;
  event: HistoryEvent;
  /** Each field the event changed: what it was, and what it became. */
  changes: Record<string, { from: FieldValue | null; to: FieldValue | null }>;
}

/** A person as administrators see it: the interface's fields, every linked account, and what they asked with. */
export function adminView(person: Person): AdminPersonView {
  return {
    personId: person.id,
    uid: person.uids[0] ?? null,
    uids: person.uids,
    email: person.emails[0] ?? null,
    emails: person.emails,
    phones: person.phones,
    name: person.name,
    role: person.role,
    projects: person.projects,
    groups: person.groups,
    status: person.status,
    createdAt: person.createdAt.toISOString(),
    updatedAt: person.updatedAt.toISOString(),
    origin: person.origin,
    note: person.note,
    suggestion: person.suggestion ?? null,
  };
}

/** An entry of a person's history, as an administrator (and, in their copy, the person) reads it. */
export function historyView(entry: HistoryEntry): HistoryEntryView {
  return { at: entry.at.toISOString(), by: entry.by, via: entry.via, event: entry.event, changes: entry.changes };
}
