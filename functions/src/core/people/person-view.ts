/**
 * The person as the sign-in endpoints return it (POST /auth/verify, POST /auth/session/refresh;
 * the exchange without `groups`): the contract's Person resource. A type of its own with nothing
 * imported, so the identity host's pages take it from here (site/src/shared/api.ts) instead of a copy.
 */
export interface PersonView {
  uid: string;
  personId: string;
  /** The first of the person's addresses; null when they have none (a phone-only person). */
  email: string | null;
  name: string;
  role: "user" | "admin";
  projects: string[];
  groups: string[];
}
