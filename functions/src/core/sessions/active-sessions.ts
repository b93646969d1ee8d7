import { signInsEnding, tellClients } from "../people/sign-in-ends";
import { MINUTE } from "../../clock";
import * as people from "../../store/people";
import * as sessions from "../../store/sessions";
import type { Deps } from "../deps";
import { ensure } from "../errors";
import { auditHistoryEntry } from "../audit";
import { ensureAdminActs, recordedAs, toldAs, type ActingOnOthers } from "../people/acting";
import { publishAndRecordSessionsEnded } from "../people/person-events";
import { queueNotice, recipientOf, sessionsEndedEvent } from "../notices/security-notices";
import { describeUserAgent } from "./user-agent";
import type { SessionView } from "./session-view";
import { tokensValidFrom, type Person } from "../model/person";

export type { SessionView };

/**
 * A person's sessions as they can see and end them: each session POST /auth/verify opens is
 * recorded (store/sessions), seen again at most every SEEN_EVERY_MS, and ended through the same
 * server-side end as logout (the person's `endedSessions`, which every session request already
 * reads), so an ended session is refused exactly as fast as a logged-out one.
 */
export const SEEN_EVERY_MS = 10 * MINUTE;
/** Kept of a User-Agent: enough to name the browser and system. */
const USER_AGENT_KEPT = 256;

/** What POST /auth/verify records of a session it opens. */
export async function recordSession(
  deps: Pick<Deps, "store" | "clock" | "seen">,
  session: {
    sessionId: string;
    personId: string;
    uid: string;
    authTime: Date;
    amr: string[];
    address: string | null;
    passkeyId: string | null;
    codesMadeAt: Date | null;
    expiresAt: Date;
  },
  userAgent: string,
): Promise<void> {
  const now = deps.clock.now();
  // Seen now, by this instance: its next requests here need not say so for a while.
  deps.seen.set(session.sessionId, true);
  await sessions.record(deps.store, {
    ...session,
    openedAt: now,
    lastSeenAt: now,
    userAgent: userAgent.slice(0, USER_AGENT_KEPT),
    endedAt: null,
  });
}

/**
 * The session was used: its record says so, once per SEEN_EVERY_MS on this instance at most (a
 * write that most requests skip without a read). A session opened before sessions were recorded
 * has nothing to touch, and a failed touch loses nothing but a time.
 */
export async function noteSeen(
  deps: Pick<Deps, "store" | "clock" | "seen">,
  principal: { sessionKey: string | null },
): Promise<void> {
  const sessionId = principal.sessionKey;
  if (sessionId === null || deps.seen.get(sessionId) !== undefined) return;
  deps.seen.set(sessionId, true);
  await sessions.touch(deps.store, sessionId, deps.clock.now()).catch(() => undefined);
}

/** The person's live sessions, most recently seen first, the asking browser's marked. */
export async function listSessions(
  deps: Pick<Deps, "store" | "clock">,
  person: Person,
  currentSessionId: string | null,
): Promise<SessionView[]> {
  const live = await sessions.findLive(deps.store, person.id, deps.clock.now());
  return live
    .filter((s) => person.endedSessions?.[s.sessionId] === undefined)
    .map((s) => ({
      sessionId: s.sessionId,
      current: s.sessionId === currentSessionId,
      openedAt: s.openedAt.toISOString(),
      signedInAt: s.authTime.toISOString(),
      methods: s.amr,
      lastSeenAt: s.lastSeenAt.toISOString(),
      ...describeUserAgent(s.userAgent),
    }));
}

/**
 * Ends sessions of the person's, server-side, in one transaction: each named one (it must be
 * theirs and live), or with `allBut`, every live one but that, and every ID token of a sign-in
 * before now (`tokensValidAfter`). Each is recorded on the person until it would have expired, as
 * logout does; this instance forgets its copy of the person at once, others within the person
 * cache's lifetime. Returns how many were ended.
 */
export async function endSessions(
  deps: Pick<Deps, "store" | "clock" | "transaction" | "personCache" | "random" | "config" | "mailQueue" | "log">,
  personId: string,
  which: { sessionIds: string[] } | { allBut: string | null },
  /**
   * Someone else ending them (an administrator, an operator): the person's history says who, and
   * the person is told (`from`: who, from where).
   */
  given?: ActingOnOthers,
): Promise<{ ended: number; apps: string[] }> {
  const { ended, apps } = await deps.transaction(async (tx) => {
    // An administrator ends someone's sessions under the passkey rule, read in this transaction.
    const by = given === undefined ? undefined : await ensureAdminActs(deps, tx, given);
    const now = deps.clock.now();
    const person = await people.findById(deps.store, personId, tx);
    ensure(person, "person_not_found");
    const live = await sessions.findLive(deps.store, personId, now, tx);
    const chosen =
      "sessionIds" in which
        ? live.filter((s) => which.sessionIds.includes(s.sessionId))
        : live.filter((s) => s.sessionId !== which.allBut);
    if ("sessionIds" in which) ensure(chosen.length === which.sessionIds.length, "session_not_found");
    const kept = Object.entries(person.endedSessions ?? {}).filter(([, until]) => until.getTime() > now.getTime());
    // The clients signed in to from them are told (back-channel logout), read before any write.
    const signedIn =
      chosen.length === 0
        ? []
        : await signInsEnding(
            deps,
            tx,
            personId,
            chosen.map((s) => s.sessionId),
          );
    // Someone else ended them: the apps hear of it, and the person's history says who, in this transaction.
    const seq =
      by !== undefined && chosen.length > 0
        ? publishAndRecordSessionsEnded(
            deps,
            tx,
            person,
            recordedAs(by),
            chosen.map((s) => s.sessionId),
          )
        : undefined;
    // None was live, yet ending them is still an act on the person (everywhere, it refuses the ID
    // tokens of earlier sign-ins): the trail has it, though the history has nothing to tell.
    if (by !== undefined && chosen.length === 0) {
      const { by: actor, via } = recordedAs(by);
      auditHistoryEntry(deps, tx, { personId, by: actor, via, event: "sessions-ended", changes: {} }, { ended: "0" });
    }
    people.setEndedSessions(
      deps.store,
      tx,
      personId,
      { ...Object.fromEntries(kept), ...Object.fromEntries(chosen.map((s) => [s.sessionId, s.expiresAt])) },
      seq,
      // Everywhere (else): the ID tokens of earlier sign-ins too, which a client of its own may
      // hold as a bearer credential, or mint afresh with the provider's refresh token. The session
      // kept is a cookie, which this leaves alone.
      "allBut" in which ? tokensValidFrom(now) : undefined,
    );
    for (const s of chosen) sessions.markEnded(deps.store, tx, s.sessionId, now);
    const apps = tellClients(deps, tx, signedIn);
    // Someone else ended them: the person is told.
    if (by !== undefined && chosen.length > 0 && deps.config.notices.access)
      queueNotice(deps, tx, recipientOf(person), sessionsEndedEvent(chosen.length, toldAs(by) as string));
    return { ended: chosen.length, apps };
  });
  deps.personCache.evict(personId);
  return { ended, apps };
}
