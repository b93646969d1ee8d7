import type { Person } from "../../store/people";

/** Why an approved sign-in still opens no session; the contract's `reason` vocabulary. */
export type Refusal = "pending" | "rejected" | "no_project_access";

export function hasProject(person: Pick<Person, "role" | "projects">, project: string): boolean {
  return person.role === "admin" || person.projects.includes("*") || person.projects.includes(project);
}

/**
 * The identity host's own project: its pages (the account page, the OpenID Connect sign-in, the
 * hand-off to an app) serve every approved person, granted projects or not. A session opened for
 * it gives nothing more: every gated endpoint checks its own project on every request.
 */
export const ACCOUNT_PROJECT = "account";

/** The approval rule of POST /auth/verify: status first, then the grant for the project. */
export function decideAccess(person: Pick<Person, "status" | "role" | "projects">, project: string): Refusal | null {
  if (person.status === "pending") return "pending";
  if (person.status === "rejected") return "rejected";
  return project === ACCOUNT_PROJECT || hasProject(person, project) ? null : "no_project_access";
}

/** The person as sign-in endpoints return it. */
export function personView(person: Person, uid: string) {
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
