import type { Person } from "../model/person";
import type { OidcClient } from "../model/oidc-client";
import { AppError, type ErrorCode } from "../errors";

/** Why an approved sign-in still opens no session; the contract's `reason` vocabulary. */
export type ApprovalRefusal = "pending" | "rejected" | "no_project_access";

/** Why a person may not do what they ask, wherever it is asked: the one vocabulary of access. */
export type AccessRefusal = "no_person" | ApprovalRefusal | "not_admin";

export function hasProject(person: Pick<Person, "role" | "projects">, project: string): boolean {
  return person.role === "admin" || person.projects.includes("*") || person.projects.includes(project);
}

/**
 * The identity host's own project: its pages (the account page, the OpenID Connect sign-in, the
 * hand-off to an app) serve every approved person, granted projects or not. A session opened for
 * it gives nothing more: every gated endpoint checks its own project on every request.
 */
export const ACCOUNT_PROJECT = "account";

/** What is asked of a person: a project's grant, the admin role, or neither (approval alone). */
export interface AccessNeed {
  project?: string;
  admin?: boolean;
}

/**
 * The one access decision, made the same way by the gate, POST /auth/verify, the exchange and the
 * code sign-in: a person first, then their status, then the grant, then the role.
 */
export function decideAccess(
  person: Pick<Person, "status" | "role" | "projects"> | null,
  need: AccessNeed = {},
): AccessRefusal | null {
  if (person === null) return "no_person";
  if (person.status === "pending") return "pending";
  if (person.status === "rejected") return "rejected";
  const { project } = need;
  if (project !== undefined && project !== ACCOUNT_PROJECT && !hasProject(person, project)) return "no_project_access";
  if (need.admin && person.role !== "admin") return "not_admin";
  return null;
}

/**
 * How each place answers each refusal, in the contract's words for it: the gate's `403 Forbidden`
 * (with `reason` for a status), the exchange's `Account not approved`, the code sign-in's own
 * sentences. POST /auth/verify answers its refusals success-shaped, with the refusal as `reason`.
 */
export const ACCESS_REFUSALS = {
  gate: {
    no_person: "forbidden",
    pending: "forbidden_pending",
    rejected: "forbidden_rejected",
    no_project_access: "forbidden",
    not_admin: "forbidden",
  },
  exchange: { no_person: "exchange_person_not_found", pending: "exchange_pending", rejected: "exchange_rejected" },
  codeSignIn: { no_person: "signin_no_account", pending: "signin_pending", rejected: "signin_rejected" },
} as const satisfies Record<string, Partial<Record<AccessRefusal, ErrorCode>>>;

/** Refuses, in `place`'s words, a person who may not have what `need` asks; narrows to the person when allowed. */
export function ensureAccess<P extends Pick<Person, "status" | "role" | "projects">>(
  person: P | null,
  need: AccessNeed,
  place: keyof typeof ACCESS_REFUSALS,
): asserts person is P {
  const refusal = decideAccess(person, need);
  if (refusal === null) return;
  const code = (ACCESS_REFUSALS[place] as Partial<Record<AccessRefusal, ErrorCode>>)[refusal];
  if (code === undefined) throw new Error(`${place} has no answer for ${refusal}`);
  throw new AppError(code);
}

/**
 * Whether the person may sign in to the client, now: the one access decision (decideAccess above),
 * with the client's project where it names one. Asked by the authorise endpoint, at a code's
 * redemption, at every refresh, and of a change that may end the person's sign-ins (sign-in-ends).
 */
export function maySignInTo<P extends Pick<Person, "status" | "role" | "projects">>(
  person: P | null,
  client: Pick<OidcClient, "project">,
): person is P {
  return decideAccess(person, client.project === null ? {} : { project: client.project }) === null;
}

/**
 * Whether the person may still use what the client was given for their account `uid`: they may
 * sign in to it (maySignInTo), and the account is still theirs. Asked at every refresh, and of
 * every token userinfo and introspection are shown.
 */
export function mayStillUse<P extends Pick<Person, "status" | "role" | "projects" | "uids">>(
  person: P | null,
  client: Pick<OidcClient, "project">,
  uid: string,
): person is P {
  return maySignInTo(person, client) && person.uids.includes(uid);
}

/**
 * What a change from `before` to `after` takes away of the person's access, item by item: a
 * status other than approved given them (a waiting person turned down, an approved one set back),
 * the administrator's role, a project, a group. A change that only widens it, or renames them,
 * takes nothing away. The one definition: a change that takes anything away ends the person's
 * sessions at the identity provider (core/people/change-person), and one that takes their approval,
 * their role or a project ends their sign-ins to the clients they may no longer use (sign-in-ends).
 */
export interface AccessTaken {
  status: boolean;
  role: boolean;
  projects: boolean;
  groups: boolean;
}

const lost = (before: string[], after: string[]) => before.some((v) => !after.includes(v));

export function accessTaken(
  before: Pick<Person, "status" | "role" | "projects" | "groups">,
  after: Pick<Person, "status" | "role" | "projects" | "groups">,
): AccessTaken {
  return {
    status: after.status !== "approved" && after.status !== before.status,
    role: before.role === "admin" && after.role !== "admin",
    projects: lost(before.projects, after.projects),
    groups: lost(before.groups, after.groups),
  };
}

/** Whether the change takes anything of the person's access away (accessTaken). */
export function takesAccessAway(
  before: Pick<Person, "status" | "role" | "projects" | "groups">,
  after: Pick<Person, "status" | "role" | "projects" | "groups">,
): boolean {
  const taken = accessTaken(before, after);
  return taken.status || taken.role || taken.projects || taken.groups;
}
