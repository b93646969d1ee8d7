import type { Request } from "express";
import { ensureAccess, type AccessNeed } from "../core/people/access";
import { ensureAdminSignIn, type Standing } from "../core/people/acting";
import { AppError, ensure } from "../core/errors";
import { recordRefusal } from "../core/audit";
import { withDeadline } from "../core/deadline";
import { errorText } from "../logger";
import { translateFailure, type Failure } from "../core/failures";
import { personFor, readSession, signInEnded, type Guard, type Principal } from "../core/sessions/sessions";
import { noteSeen } from "../core/sessions/active-sessions";
import type { Deps } from "../core/deps";
import type { Person } from "../core/model/person";
import { readSessionCookie } from "./cookies";
import { fromForeignPage } from "./cors";
import { admitAccessToken, type ResourceGrant } from "../core/oidc/resource-tokens";

/** How long a gated request waits for the person before answering 503 (retry, keep the credential). */
export const LOOKUP_DEADLINE_MS = 4000;

export interface GateNeed extends AccessNeed {
  /** People administration takes the session cookie only, never a bearer token. */
  cookieOnly?: boolean;
}

/** What every administrators' route needs: the admin role, from a session cookie (and the passkey rule's sign-in). */
export const ADMIN_NEED = { admin: true, cookieOnly: true } as const;

export type GateDeps = Pick<
  Deps,
  "tokens" | "identity" | "clock" | "store" | "personCache" | "log" | "seen" | "config"
>;

export function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  const match = header === undefined ? null : /^Bearer[ ]+([^\s]+)$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * A failure to check is not a failed check: it is 503, and the caller keeps its credential.
 * Only work that leaves the process is guarded; a hot request (our token, a cached person)
 * never arms a timer.
 */
const LOOKUP_FAILED: Failure = {
  code: "authorization_unavailable",
  log: "authorization lookup failed",
  level: "warn",
  deadlineMs: LOOKUP_DEADLINE_MS,
};

export function unavailableGuard(deps: Pick<Deps, "log">): Guard {
  return (work) => translateFailure(deps, LOOKUP_FAILED, work);
}

/**
 * The session cookie's account and the person behind it, each null when absent; for endpoints
 * that answer "not signed in" themselves rather than through requireAccess. A lookup that
 * cannot be made is 503, as in the gate.
 */
export async function cookieSession(
  deps: GateDeps,
  req: Request,
): Promise<{ principal: Principal | null; person: Person | null }> {
  const cookie = readSessionCookie(req).value;
  const guard = unavailableGuard(deps);
  const principal = cookie === null ? null : await readSession(deps, cookie, guard);
  const person = principal === null ? null : await personFor(deps, principal, guard);
  // An ended session is no session at all: "not signed in", not "signed in and refused".
  if (principal !== null && person !== null && signInEnded(person, principal)) return { principal: null, person: null };
  return { principal, person };
}

async function principalOf(deps: GateDeps, req: Request, need: GateNeed, guard: Guard): Promise<Principal | null> {
  const { value: cookie, several } = readSessionCookie(req);
  ensure(!several, "unauthorized");
  if (cookie !== null) {
    const session = await readSession(deps, cookie, guard);
    if (session) return session;
  }
  const bearer = need.cookieOnly ? null : bearerToken(req);
  if (bearer === null) return null;
  // No revocation check here: it would cost a call to the provider on every request. What the
  // person ended (an address taken off them, their other sessions) is on the person, read next
  // (signInEnded): the token's `signed_in_address` and `auth_time` are all it takes.
  const signIn = await guard(() => deps.identity.verifyIdToken(bearer, false));
  // A bearer ID token is not a session: logout has nothing to end there.
  return signIn
    ? {
        uid: signIn.uid,
        personId: null,
        authTime: signIn.authTime,
        amr: signIn.amr,
        sessionKey: null,
        expiresAt: signIn.authTime,
        address: signIn.address,
      }
    : null;
}

/**
 * The one gate of every gated endpoint: a session cookie (either format) or a bearer ID token,
 * an approved person, and the project grant or admin role the endpoint needs; for the admin role,
 * a sign-in the passkey rule accepts (core/people/acting), so every administrators' route keeps
 * it, and each privileged request is logged with how its session began. Refusals follow the
 * contract's table; each check is a separate line so the order is plain.
 */
export async function requireAccess(
  deps: GateDeps,
  req: Request,
  need: GateNeed,
): Promise<{ person: Person; uid: string; principal: Principal }> {
  const guard = unavailableGuard(deps);
  const principal = await principalOf(deps, req, need, guard);
  ensure(principal, "unauthorized");
  const person = await personFor(deps, principal, guard);
  let standing: Standing | null = null;
  // Ended by the person (logout, sessions ended, an address taken off them): the credential no
  // longer verifies, so 401, decided from the person already read.
  ensure(!(person && signInEnded(person, principal)), "unauthorized");
  try {
    ensureAccess(person, need, "gate");
    if (need.admin) standing = await ensureAdminSignIn(deps, person, principal.amr);
  } catch (err) {
    if (
      need.admin &&
      person?.status === "approved" &&
      err instanceof AppError &&
      !fromForeignPage(req, new Set(deps.config.allowedOrigins))
    )
      await refusalAudited(deps, req, person, principal, err.code);
    throw err;
  }
  if (need.admin) {
    deps.log.info("privileged request", {
      personId: person.id,
      method: req.method,
      path: req.path,
      amr: principal.amr,
      standing,
    });
  }
  await noteSeen(deps, principal);
  return { person, uid: principal.uid, principal };
}

/** How long a refusal waits for the trail's write before it is answered anyway. */
export const REFUSAL_AUDIT_MS = 300;

/**
 * An approved person refused an administrators' route (not an administrator, or not signed in as
 * the passkey rule asks): the refusal goes to the audit trail (core/audit) before it is answered,
 * waiting REFUSAL_AUDIT_MS at most, where the request is theirs (not from a page we do not serve, http/cors): another site
 * cannot write a refusal in their name. The route is named by its pattern (`/auth/people/:personId`),
 * never the path asked, which is the caller's to write. A trail that cannot be written, or not in
 * time, does not change the answer.
 */
async function refusalAudited(
  deps: GateDeps,
  req: Request,
  person: Person,
  principal: Principal,
  reason: string,
): Promise<void> {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  const written = recordRefusal(
    deps,
    {
      actor: { kind: "person", personId: person.id },
      action: "admin-route",
      subjects: [],
      detail: { method: req.method, route: typeof route === "string" ? route : "(none)", amr: principal.amr },
      client: { via: "api", from: null },
    },
    reason,
  );
  await withDeadline(written, REFUSAL_AUDIT_MS).catch((err: unknown) =>
    deps.log.warn("audit refusal not recorded", { personId: person.id, error: errorText(err) }),
  );
}

/**
 * The gate of a resource of the family that takes the provider's access tokens for it (the MCP
 * server): an `Authorization: Bearer` access token for `resource` (core/oidc/resource-tokens), and
 * the person behind it approved and granted `need.project`, decided as above. No cookie and no ID
 * token opens it: what a browser carries by itself is not what an agent was given.
 */
export async function requireResourceToken(
  deps: GateDeps,
  req: Request,
  resource: string,
  need: { project: string },
): Promise<ResourceGrant> {
  const token = bearerToken(req);
  ensure(token, "resource_token_missing");
  return unavailableGuard(deps)(() => admitAccessToken(deps, token, resource, need.project));
}
