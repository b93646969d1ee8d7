import { signInsEnding, tellClients } from "../people/sign-in-ends";
import { oneWakeAfter } from "../outbox/wake";
import { DAY } from "../../clock";
import { ensureRecentSignIn } from "../people/acting";
import type { Deps } from "../deps";
import * as people from "../../store/people";
import * as projectAccess from "../../store/project-access";
import * as sessionRecords from "../../store/sessions";
import * as passkeys from "../../store/passkeys";
import * as recoveryCodes from "../../store/recovery-codes";
import type { VerifiedSignIn } from "../ports";
import { recordSession } from "./active-sessions";
import { decideAccess, type ApprovalRefusal } from "../people/access";
import { AppError, ensure } from "../errors";
import { resolvePerson } from "../arrival/resolve-person";
import { sha256 } from "../secrets";
import { newBrowserEvent, queueNoticeAlone, recipientOf } from "../notices/security-notices";
import { nameUserAgent } from "./user-agent";
import { signedInBefore, type Person } from "../model/person";

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
  // A sign-in from before the person ended their other sessions (or lost an address) is refused
  // as a revoked token is: one made moments before, relayed or kept, must not open a new session.
  if (signedInBefore(person, signIn.authTime)) throw new AppError("invalid_token");
  // A person always exists here (resolvePerson makes one), so the refusal is one of the contract's reasons.
  const reason = decideAccess(person, { project }) as ApprovalRefusal | null;
  if (reason) return { approved: false, reason };
  ensure(await wayInStands(deps, person, signIn), "invalid_token");
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
    recordSession(
      deps,
      {
        ...claims,
        address: signIn.address,
        passkeyId: signIn.passkeyId,
        codesMadeAt: signIn.codesMadeAt,
        expiresAt: session.expiresAt,
      },
      sign.userAgent,
    ),
    noteBrowser(deps, person, sign),
  ]);
  return { approved: true, person, uid: signIn.uid, ...session };
}

/**
 * Whether what the sign-in came in through is still the person's: the address its code went to,
 * the passkey that signed, the set of recovery codes its code was one of. Taken away between the
 * sign-in and this moment (its ID token verifies for 5 minutes more), it opens no session: the
 * sessions it had opened were ended with it, and this one would have been.
 */
async function wayInStands(deps: Pick<Deps, "store">, person: Person, signIn: VerifiedSignIn): Promise<boolean> {
  if (signIn.address !== null && !person.emails.includes(signIn.address)) return false;
  const [passkey, codes] = await Promise.all([
    signIn.passkeyId === null ? null : passkeys.findById(deps.store, signIn.passkeyId),
    signIn.codesMadeAt === null ? null : recoveryCodes.findByPerson(deps.store, person.id),
  ]);
  if (signIn.passkeyId !== null && passkey?.personId !== person.id) return false;
  return signIn.codesMadeAt === null || codes?.madeAt.getTime() === signIn.codesMadeAt.getTime();
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
  /**
   * For a bearer ID token, the address a code of the service's proved for its sign-in (its
   * `signed_in_address`); null for any other sign-in, and for a session, whose record keeps it.
   */
  address: string | null;
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
      address: null,
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
        address: null,
      }
    : null;
}

/** Not a secret once digested, and short: it is a key of the person's record. */
function cookieDigest(cookie: string): string {
  return `c-${Buffer.from(sha256(cookie), "hex").subarray(0, 16).toString("base64url")}`;
}

/**
 * Whether the person has ended what the principal signs in with, decided from the person alone
 * (the gate has read them already, or holds them cached: nothing more is read). A session: ended
 * by logout or from the person's list. A bearer ID token: minted for a code to an address that is
 * no longer theirs (whoever reads that mailbox now kept the token, or the refresh token that mints
 * more), or for a sign-in made before their `tokensValidAfter`.
 */
export function signInEnded(
  person: Person,
  principal: Pick<Principal, "sessionKey" | "address" | "authTime">,
): boolean {
  if (principal.sessionKey !== null) return person.endedSessions?.[principal.sessionKey] !== undefined;
  if (principal.address !== null && !person.emails.includes(principal.address)) return true;
  return signedInBefore(person, principal.authTime);
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
  // The logout tokens' wake once the guarded work is done: it counts nothing against its deadline.
  await oneWakeAfter(deps, async (deps) => {
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
        tellClients(deps, tx, signedIn);
        return person.id;
      }),
    );
    if (ended !== null) deps.personCache.evict(ended);
  });
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
