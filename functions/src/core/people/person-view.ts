/**
 * The person as the sign-in endpoints return it (POST /auth/verify, POST /auth/session/refresh;
 * the exchange without `groups`): the contract's Person resource, and its mapper. Built from the
 * domain's records (core/model), which import nothing, so the identity host's pages take it from
 * here (site/src/shared/api.ts) instead of a copy.
 */
import type { Person, Role } from "../model/person";

export interface PersonView {
  uid: string;
  personId: string;
  /** The first of the person's addresses; null when they have none (a phone-only person). */
  email: string | null;
  name: string;
  role: Role;
  projects: string[];
  groups: string[];
}

/** The person as sign-in endpoints return it, signed in with the account `uid`. */
export function personView(person: Person, uid: string): PersonView {
  return {
    uid,
    personId: person.id,
    email: person.emails[0] ?? null,
    name: person.name,
    role: person.role,
    projects: person.projects,
    groups: person.groups,
  };
}
