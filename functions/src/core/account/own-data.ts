/**
 * What the service keeps about a person, for them: their copy of it (an export, GDPR Art. 15 and
 * 20), its erasure (Art. 17, core/account/erasure), and their own name. The person themself, an
 * administrator and an operator on the command line each may; the first two only within
 * STEP_UP_MS of signing in, which these functions check themselves (core/people/acting; a
 * caller cannot leave it out). Each is recorded in the person's history, naming who did it; an erasure leaves that one
 * entry and nothing else.
 */
import type { Deps } from "../deps";
import * as people from "../../store/people";
import * as history from "../../store/person-history";
import * as sessions from "../../store/sessions";
import * as passkeys from "../../store/passkeys";
import * as projectAccess from "../../store/project-access";
import * as notifications from "../../store/notifications";
import { ensure } from "../errors";
import type { ProviderAccount } from "../ports";
import { describeUserAgent } from "../sessions/user-agent";
import { passkeyView, type PasskeyView } from "../passkeys/passkeys";
import { recordEvent } from "../people/history";
import type { Actor, HistoryEntry } from "../model/history";
import type { Transaction } from "../../store/db";
import { historyView, type HistoryEntryView } from "../people/admin-view";
import { changePerson, type ChangeDeps } from "../people/change-person";
import { ensureAdminActs, ensureOwnAccount, ensureStepUp, recordedAs, type Acting } from "../people/acting";
import { type Origin, type Person, type PersonStatus, type Role } from "../model/person";

export type OwnDataDeps = Pick<
  Deps,
  "store" | "clock" | "identity" | "personCache" | "log" | "transaction" | "random" | "mailQueue" | "config"
>;

/**
 * Records, in `tx`, what was done to the person in their history, and, when an administrator did
 * it to someone else, in the administrator's own history too (naming the person by id only).
 */
export function recordBoth(
  deps: Pick<Deps, "store" | "random" | "clock">,
  tx: Transaction,
  personId: string,
  by: Acting,
  event: "exported" | "erased",
): void {
  recordEvent(deps, tx, { personId, ...recordedAs(by), event, changes: {} });
  recordInAdministrator(deps, tx, personId, by, event);
}

/**
 * Records, in `tx`, in the administrator's own history what they did to someone else (naming the
 * person by id only); nothing when the person acted on their own account, or an operator acted.
 */
export function recordInAdministrator(
  deps: Pick<Deps, "store" | "random" | "clock">,
  tx: Transaction,
  personId: string,
  by: Acting,
  event: "exported" | "erased",
): void {
  if ("admin" in by && by.admin.id !== personId)
    recordEvent(deps, tx, {
      personId: by.admin.id,
      ...recordedAs(by),
      event: event === "exported" ? "exported-someone" : "erased-someone",
      changes: { person: { from: null, to: personId } },
    });
}

/**
 * Who may take a person's copy or erase them, checked by the core whoever calls it, in the
 * action's transaction: the person on their own account, an administrator (under the passkey
 * rule) or an operator on anyone's; at a page, signed in within STEP_UP_MS. Returns who acts, as
 * the history records them.
 */
export async function ensureMayHandleData<A extends Acting>(
  deps: Pick<Deps, "clock" | "store" | "config">,
  tx: Transaction,
  personId: string,
  by: A,
): Promise<A> {
  ensureOwnAccount(by, personId);
  const acting = await ensureAdminActs(deps, tx, by);
  ensureStepUp(deps, acting);
  return acting;
}

/** One JSON document of everything the service keeps about a person; never a secret. */
export interface PersonData {
  format: "person-data/1";
  exportedAt: string;
  person: {
    personId: string;
    name: string;
    emails: string[];
    phones: string[];
    uids: string[];
    status: PersonStatus;
    role: Role;
    projects: string[];
    groups: string[];
    createdAt: string;
    updatedAt: string;
    /** How they first came, and what they wrote when they asked for access. */
    origin: Origin | null;
    note: string;
    /** Their choice of mail: whether sign-ins from browsers not seen before are mailed. */
    notices: { newBrowser: boolean };
  };
  /** Their accounts at the identity provider. */
  accounts: ProviderAccount[];
  sessions: Array<{
    sessionId: string;
    openedAt: string;
    signedInAt: string;
    methods: string[];
    lastSeenAt: string;
    expiresAt: string;
    endedAt: string | null;
    userAgent: string;
    browser: string;
    system: string;
  }>;
  passkeys: Array<PasskeyView & { transports: string[]; authenticator: string }>;
  history: HistoryEntryView[];
  /** Start-page notices addressed to them by name, and which notices they have read. */
  notifications: Array<{ id: string; title: string; body: string; link: string | null; createdAt: string }>;
  notificationsRead: { readIds: string[]; allReadAt: string | null };
  projectAccess: Array<{ project: string; lastAt: string; count: number }>;
}

const iso = (d: Date) => d.toISOString();

/**
 * Who acted, as the copy shows it: to the person themself an administrator is named by role, not
 * by address (another person's data, GDPR Art. 15(4)); to an administrator or operator, in full.
 */
function shownTo(reader: Acting, actor: Actor): Actor {
  return "self" in reader && actor.kind === "admin" ? { ...actor, email: null } : actor;
}

/** The person's whole history, oldest first. */
async function wholeHistory(deps: Pick<Deps, "store">, personId: string): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = [];
  let before: string | null = null;
  for (;;) {
    const page = await history.page(deps.store, personId, 500, before);
    entries.push(...page);
    if (page.length < 500) return entries.reverse();
    before = page[page.length - 1]?.key ?? null;
  }
}

/** Everything kept about the person, as one document (`people export`, GET /auth/account/data). */
export async function exportPersonData(deps: OwnDataDeps, personId: string, by: Acting): Promise<PersonData> {
  const person = await deps.transaction(async (tx) => {
    const acting = await ensureMayHandleData(deps, tx, personId, by);
    const current = await people.findById(deps.store, personId, tx);
    ensure(current, "person_not_found");
    recordBoth(deps, tx, personId, acting, "exported");
    return current;
  });
  const [accounts, opened, keys, entries, addressed, reads, reached] = await Promise.all([
    deps.identity.describeAccounts(person.uids),
    sessions.listByPerson(deps.store, person.id),
    passkeys.listByPerson(deps.store, person.id),
    wholeHistory(deps, person.id),
    notifications.addressedTo(deps.store, person.id),
    notifications.readState(deps.store, person.id),
    projectAccess.listByPerson(deps.store, person.id),
  ]);
  return {
    format: "person-data/1",
    exportedAt: iso(deps.clock.now()),
    person: {
      personId: person.id,
      name: person.name,
      emails: person.emails,
      phones: person.phones,
      uids: person.uids,
      status: person.status,
      role: person.role,
      projects: person.projects,
      groups: person.groups,
      createdAt: iso(person.createdAt),
      updatedAt: iso(person.updatedAt),
      origin: person.origin,
      note: person.note,
      notices: { newBrowser: person.newBrowserNotices !== false },
    },
    accounts,
    sessions: opened.map((s) => ({
      sessionId: s.sessionId,
      openedAt: iso(s.openedAt),
      signedInAt: iso(s.authTime),
      methods: s.amr,
      lastSeenAt: iso(s.lastSeenAt),
      expiresAt: iso(s.expiresAt),
      endedAt: s.endedAt === null ? null : iso(s.endedAt),
      userAgent: s.userAgent,
      ...describeUserAgent(s.userAgent),
    })),
    passkeys: keys.map((k) => ({ ...passkeyView(k), transports: k.transports, authenticator: k.aaguid })),
    history: entries.map((e) => ({ ...historyView(e), by: shownTo(by, e.by) })),
    notifications: addressed.map((n) => ({
      id: n.id,
      title: n.title,
      body: n.body,
      link: n.link,
      createdAt: iso(n.createdAt),
    })),
    notificationsRead: { readIds: reads.readIds, allReadAt: reads.allReadAt === null ? null : iso(reads.allReadAt) },
    projectAccess: reached.map((r) => ({ project: r.project, lastAt: iso(r.lastAt), count: r.count })),
  };
}

/**
 * The person renames themself (PATCH /auth/account): changed as an administrator's change is
 * (core/people/change-person changePerson, which keeps the name plain text), and recorded in their
 * history as their own.
 */
export async function renameSelf(
  deps: ChangeDeps,
  by: Extract<Acting, { self: unknown }>,
  raw: string,
): Promise<Person> {
  return (await changePerson(deps, by.self.id, { name: raw }, by)).person;
}
