import { DAY } from "../../clock";
import type { Deps } from "../deps";
import * as people from "../../store/people";
import * as projectAccess from "../../store/project-access";
import { decideAccess, type Refusal } from "../people/access";
import { AppError } from "../errors";
import { resolvePerson } from "../people/resolve-person";

export const SESSION_LIFETIME_MS = 14 * DAY;

export type VerifyOutcome =
  | { approved: true; person: people.Person; uid: string; token: string; issuedAt: Date; expiresAt: Date }
  | { approved: false; reason: Refusal };

/**
 * POST /auth/verify: an ID token becomes a session for an approved person with the grant.
 * Revocation is checked here (one call to the provider) and nowhere on the hot path: a session
 * is only ever minted from a token that is live at this moment.
 */
export async function openSession(
  deps: Pick<Deps, "identity" | "store" | "transaction" | "clock" | "random" | "tokens">,
  idToken: string,
  project: string,
): Promise<VerifyOutcome> {
  const signIn = await deps.identity.verifyIdToken(idToken, true);
  if (!signIn) throw new AppError("invalid_token");
  const person = await resolvePerson(deps, signIn);
  const reason = decideAccess(person, project);
  if (reason) return { approved: false, reason };
  const session = await deps.tokens.issue(
    { uid: signIn.uid, personId: person.id, authTime: signIn.authTime },
    deps.clock.now(),
    SESSION_LIFETIME_MS,
  );
  return { approved: true, person, uid: signIn.uid, ...session };
}

/** Who a session cookie speaks for: the current token format first, then the provider's older cookie. */
export interface Principal {
  uid: string;
  /** Known without a lookup for the current format. */
  personId: string | null;
  /** When the person authenticated at the identity provider. */
  authTime: Date;
}

/** Wraps work that leaves the process (a provider call, a database read) in a deadline. */
export type Guard = <T>(work: () => Promise<T>) => Promise<T>;
const unguarded: Guard = (work) => work();

export async function readSession(
  deps: Pick<Deps, "tokens" | "identity" | "clock">,
  cookie: string,
  guard: Guard = unguarded,
): Promise<Principal | null> {
  const claims = await deps.tokens.verify(cookie, deps.clock.now());
  if (claims) return { uid: claims.uid, personId: claims.personId, authTime: claims.authTime };
  const legacy = await guard(() => deps.identity.verifyProviderSessionCookie(cookie));
  return legacy ? { uid: legacy.uid, personId: null, authTime: legacy.authTime } : null;
}

/** The person a principal speaks for, from the per-instance cache when it is fresh there. */
export async function personFor(
  deps: Pick<Deps, "store" | "people">,
  principal: Pick<Principal, "uid" | "personId">,
  guard: Guard = unguarded,
): Promise<people.Person | null> {
  if (principal.personId !== null) {
    const cached = deps.people.get(principal.personId);
    if (cached) return cached.uids.includes(principal.uid) ? cached : null;
  }
  const id = principal.personId;
  const person = await guard(() =>
    id !== null ? people.findById(deps.store, id) : people.findByUid(deps.store, principal.uid),
  );
  if (!person) return null;
  deps.people.set(person.id, person);
  // An account an admin has unlinked from the person no longer speaks for them.
  return person.uids.includes(principal.uid) ? person : null;
}

/** POST /auth/project-access: when the person last reached a project, and how often. */
export async function recordProjectAccess(
  deps: Pick<Deps, "store" | "clock">,
  personId: string,
  project: string,
): Promise<void> {
  await projectAccess.record(deps.store, personId, project, deps.clock.now());
}
