import { signInsEnding, tellClients } from "../people/sign-in-ends";
import { wakeDrainer } from "../mail/outbox";
import { DAY } from "../../clock";
import { ensureRecentSignIn } from "../people/acting";
import type { Deps } from "../deps";
import * as people from "../../store/people";
import * as projectAccess from "../../store/project-access";
import * as sessionRecords from "../../store/sessions";
import { recordSession } from "./active-sessions";
import { decideAccess, type ApprovalRefusal } from "../people/access";
import { AppError } from "../errors";
import { resolvePerson } from "../arrival/resolve-person";
import { sha256 } from "../secrets";
import { newBrowserEvent, queueNoticeAlone, recipientOf } from "../notices/security-notices";
import { nameUserAgent } from "./user-agent";
import { type Person } from "../model/person";

export const SESSION_LIFETIME_MS = 14 * DAY;
export type VerifyOutcome =
  | {
      approved: true;
      person: Person;
      uid: string;
      token: string;
      issuedAt: Date;
      expiresAt: Date;
    }
  | { approved: false; reason: ApprovalRefusal };

/**
 * What a sign-in says of where it comes from, to tell a browser the person has used before from
 * one they have not: the identifiers it carries (the one the identity host's page keeps, sent as
 * verify's `browser`, then an older browser's cookie), and what a client that keeps none calls
 * itself (its User-Agent) and the network it calls from.
 */
export interface BrowserSign {
  ids: string[];
  userAgent: string;
  network: string;
}

/**
 * POST /auth/verify: an ID token becomes a session for an approved person with the grant.
 * Revocation is checked here (one call to the provider) and nowhere on the hot path: a session
 * is only ever minted from a token that is live at this moment.
 */
export async function openSession(
  deps: Pick<
    Deps,
    "identity" | "store" | "transaction" | "clock" | "random" | "tokens" | "seen" | "mailQueue" | "log" | "config"
  >,
  idToken: string,
  project: string,
  sign: BrowserSign,
): Promise<VerifyOutcome> {
  const signIn = await deps.identity.verifyIdToken(idToken, true);
  if (!signIn) throw new AppError("invalid_token");
  // Only from a sign-in made moments ago (within STEP_UP_MS), as the identity provider advises for
  // minting session cookies: an ID token lifted from a page or a log later on (it verifies for an
  // hour) must not become a two-week session. The pages call verify right after sign-in.
  ensureRecentSignIn(deps, signIn.authTime, "sign_in_too_old");
  const person = await resolvePerson(deps, signIn, null, nameUserAgent(sign.userAgent));
  // A person always exists here (resolvePerson makes one), so the refusal is one of the contract's reasons.
  const reason = decideAccess(person, { project }) as ApprovalRefusal | null;
  if (reason) return { approved: false, reason };
  const claims = {
    uid: signIn.uid,
    personId: person.id,
    sessionId: deps.random.token(16),
    authTime: signIn.authTime,
    amr: signIn.amr,
  };
  const session = await deps.tokens.issue(claims, deps.clock.now(), SESSION_LIFETIME_MS);
  // Recorded before the cookie is set: a session the person cannot see in their list never exists.
  await Promise.all([
    recordSession(deps, { ...claims, address: signIn.address, expiresAt: session.expiresAt }, sign.userAgent),
    noteBrowser(deps, person, sign),
  ]);
  return { approved: true, person, uid: signIn.uid, ...session };
}

/**
 * The browser a session is opened in: known to the person when the digest of one of its
 * identifiers is on their record (read already, so deciding costs nothing); otherwise the person
 * is told, and the browser remembered when the notice is written (off this path: its one write
 * here is the notice's outbox entry). Their first browser is remembered without a mail, and so is
 * every new one while they have turned these notices off; with NOTIFY_NEW_BROWSER off nothing is
 * written. A browser known by its older cookie has its page's identifier learned without a mail.
 * A client that keeps no identifier (a script, a server) is known by what it calls itself and
 * the network it calls from: told of the first time, not at every sign-in, and again from
 * another network. Whatever goes wrong here is logged and the session still opens.
 */
async function noteBrowser(
  deps: Pick<Deps, "store" | "clock" | "random" | "config" | "mailQueue" | "log">,
  person: Person,
  sign: BrowserSign,
): Promise<void> {
  if (!deps.config.notices.newBrowser) return;
  // Only digests are stored: the record never holds what the browser holds.
  const digests = sign.ids.length > 0 ? sign.ids.map(sha256) : [sha256(`client ${sign.network} ${sign.userAgent}`)];
  const [digest] = digests as [string];
  const known = person.knownBrowsers ?? {};
  if (known[digest] !== undefined) return;
  const recognised = digests.some((d) => known[d] !== undefined);
  const quiet = recognised || Object.keys(known).length === 0 || person.newBrowserNotices === false;
  await queueNoticeAlone(deps, recipientOf(person), newBrowserEvent(nameUserAgent(sign.userAgent), digest, quiet));
}

/** Who a session cookie speaks for: the current token format first, then the provider's older cookie. */
export interface Principal {
  uid: string;
  /** Known without a lookup for the current format. */
  personId: string | null;
  /** When the person authenticated at the identity provider. */
  authTime: Date;
  /** How (RFC 8176); empty when not known. */
  amr: string[];
  /**
   * What logout ends this session by: its `sid`, or for a cookie without one, a digest of it.
   * null for a bearer ID token, which is not a session.
   */
  sessionKey: string | null;
  /** When the cookie stops verifying on its own: how long an ended session must be remembered. */
  expiresAt: Date;
}

/** Wraps work that leaves the process (a provider call, a database read) in a deadline. */
export type Guard = <T>(work: () => Promise<T>) => Promise<T>;
const unguarded: Guard = (work) => work();

export async function readSession(
  deps: Pick<Deps, "tokens" | "identity" | "clock">,
  cookie: string,
  guard: Guard = unguarded,
): Promise<Principal | null> {
  const now = deps.clock.now();
  const claims = await deps.tokens.verify(cookie, now);
  if (claims)
    return {
      uid: claims.uid,
      personId: claims.personId,
      authTime: claims.authTime,
      amr: claims.amr,
      sessionKey: claims.sessionId ?? cookieDigest(cookie),
      expiresAt: claims.expiresAt,
    };
  const legacy = await guard(() => deps.identity.verifyProviderSessionCookie(cookie));
  // The provider's cookies lived at most as long as ours.
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  return legacy
    ? {
        uid: legacy.uid,
        personId: null,
        authTime: legacy.authTime,
        amr: legacy.amr,
        sessionKey: cookieDigest(cookie),
        expiresAt,
      }
    : null;
}

/** Not a secret once digested, and short: it is a key of the person's record. */
function cookieDigest(cookie: string): string {
  return `c-${Buffer.from(sha256(cookie), "hex").subarray(0, 16).toString("base64url")}`;
}

/** Whether the session was ended by logout; the record travels with the person (see personFor). */
export function sessionEnded(person: Person, principal: Pick<Principal, "sessionKey">): boolean {
  return principal.sessionKey !== null && person.endedSessions?.[principal.sessionKey] !== undefined;
}

/**
 * POST /auth/logout: ends the session the cookie carries, server-side, until it would have
 * expired anyway; the person's sessions in other browsers go on. Expired entries are pruned in
 * the same write. This instance forgets its cached copy of the person at once; other instances
 * see the end when their copy lapses (PERSON_CACHE_TTL_MS).
 */
export async function endSession(
  deps: Pick<
    Deps,
    "tokens" | "identity" | "clock" | "store" | "personCache" | "transaction" | "random" | "mailQueue" | "log"
  >,
  cookie: string,
  guard: Guard = unguarded,
): Promise<void> {
  const principal = await readSession(deps, cookie, guard);
  if (!principal || principal.sessionKey === null) return;
  const sessionKey = principal.sessionKey;
  const now = deps.clock.now();
  const ended = await guard(() =>
    deps.transaction(async (tx) => {
      const person =
        principal.personId !== null
          ? await people.findById(deps.store, principal.personId, tx)
          : await people.findByUid(deps.store, principal.uid, tx);
      if (!person) return null;
      const recorded = await sessionRecords.exists(deps.store, sessionKey, tx);
      // The clients signed in to from it are told (back-channel logout), read before any write.
      const signedIn = await signInsEnding(deps, tx, person.id, [sessionKey]);
      const kept = Object.entries(person.endedSessions ?? {}).filter(([, until]) => until.getTime() > now.getTime());
      people.setEndedSessions(deps.store, tx, person.id, {
        ...Object.fromEntries(kept),
        [sessionKey]: principal.expiresAt,
      });
      if (recorded) sessionRecords.markEnded(deps.store, tx, sessionKey, now);
      return { personId: person.id, told: tellClients(deps, tx, signedIn).length > 0 };
    }),
  );
  if (ended === null) return;
  deps.personCache.evict(ended.personId);
  if (ended.told) await wakeDrainer(deps);
}

/** The person a principal speaks for, from the per-instance cache when it is fresh there. */
export async function personFor(
  deps: Pick<Deps, "store" | "personCache">,
  principal: Pick<Principal, "uid" | "personId">,
  guard: Guard = unguarded,
): Promise<Person | null> {
  if (principal.personId !== null) {
    const cached = deps.personCache.get(principal.personId);
    if (cached) return cached.uids.includes(principal.uid) ? cached : null;
  }
  const id = principal.personId;
  const person = await guard(() =>
    id !== null ? people.findById(deps.store, id) : people.findByUid(deps.store, principal.uid),
  );
  if (!person) return null;
  deps.personCache.set(person.id, person);
  // An account an admin has unlinked from the person no longer speaks for them.
  return person.uids.includes(principal.uid) ? person : null;
}

/** How long a project's use is remembered after the person last reached it. */
export const PROJECT_ACCESS_KEPT_MS = 365 * DAY;

/** POST /auth/project-access: when the person last reached a project, and how often; forgotten a year after the last time. */
export async function recordProjectAccess(
  deps: Pick<Deps, "store" | "clock">,
  personId: string,
  project: string,
): Promise<void> {
  const now = deps.clock.now();
  await projectAccess.record(deps.store, personId, project, now, new Date(now.getTime() + PROJECT_ACCESS_KEPT_MS));
}
