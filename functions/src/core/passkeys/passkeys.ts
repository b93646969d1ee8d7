/**
 * A person's passkeys as they and the administrators see them: listed, renamed, removed. Nothing
 * here loads the WebAuthn library, so the people function can use it without paying for it.
 */
import type { Deps } from "../deps";
import * as passkeys from "../../store/passkeys";
import { ensure } from "../errors";
import { recordEvent } from "../people/history";
import {
  enrolmentEnds,
  ensureAdminActs,
  ensureRecentSignIn,
  liftedUntil,
  mayAddPasskey,
  mayChangePasskeys,
  passkeyRule,
  recordedAs,
  ruledBy,
  standingOf,
  toldAs,
  type Acting,
  type ActingOnOthers,
} from "../people/acting";
import type { Person } from "../model/person";
import type { RuleView } from "./passkey-view";
import type { Transaction } from "../../store/db";
import { passkeysEvent, queueNotice, recipientOf } from "../notices/security-notices";
import { sessionsThrough } from "../people/sessions-through";
import * as people from "../../store/people";

import type { Passkey } from "../model/passkey";

export { passkeyView, type PasskeyView, type RuleView } from "./passkey-view";

export function listPasskeys(deps: Pick<Deps, "store">, personId: string): Promise<Passkey[]> {
  return passkeys.listByPerson(deps.store, personId);
}

/** The person's passkeys, and how the passkey rule stands for the session of `amr` (GET /auth/passkeys). */
export async function passkeysAndRule(
  deps: Pick<Deps, "store" | "config" | "clock">,
  person: Person,
  amr: string[],
): Promise<{ passkeys: Passkey[]; rule: RuleView }> {
  const [held, rule] = await Promise.all([passkeys.listByPerson(deps.store, person.id), passkeyRule(deps)]);
  const now = deps.clock.now();
  const holds = ruledBy(rule, person);
  const enrolBy = holds && held.length === 0 ? enrolmentEnds(person, now) : null;
  return {
    passkeys: held,
    rule: {
      holds,
      acts: standingOf(rule, person, amr, now) !== null,
      liftedUntil: holds ? (liftedUntil(rule, person.id, now)?.toISOString() ?? null) : null,
      mayAdd: mayAddPasskey(rule, person, amr, held.length, now),
      enrolBy: enrolBy?.toISOString() ?? null,
    },
  };
}

/** PATCH /auth/passkeys/:passkeyId: only the person's own; another's is as unknown as none. */
export async function renamePasskey(
  deps: Pick<Deps, "store" | "transaction">,
  personId: string,
  passkeyId: string,
  name: string,
): Promise<Passkey> {
  return deps.transaction(async (tx) => {
    const passkey = await passkeys.findById(deps.store, passkeyId, tx);
    ensure(passkey && passkey.personId === personId, "passkey_not_found");
    passkeys.rename(deps.store, tx, passkeyId, name);
    return { ...passkey, name };
  });
}

/**
 * DELETE /auth/passkeys/:passkeyId (the person's own) and the administrators' removal: the
 * document goes, so the credential is unknown from then on and any sign-in with it is refused, and
 * every session it opened ends in the same transaction (core/people/sessions-through): whoever
 * holds the lost device keeps nothing it gave them. The person's own removal asks, as adding one
 * does, a sign-in of the last five minutes.
 */
export async function removePasskey(
  deps: RemovalDeps,
  personId: string,
  passkeyId: string,
  given: Acting,
): Promise<void> {
  const ended = await deps.transaction(async (tx) => {
    const by = await ensureAdminActs(deps, tx, given);
    const [passkey, person] = await Promise.all([
      passkeys.findById(deps.store, passkeyId, tx),
      people.findById(deps.store, personId, tx),
    ]);
    ensure(passkey && passkey.personId === personId && person, "passkey_not_found");
    if ("self" in by) {
      // The person's own, under the passkey rule: not from an email code alone (core/people/acting).
      ensure(
        mayChangePasskeys(await passkeyRule(deps, tx), by.self, by.amr ?? [], deps.clock.now()),
        "passkey_required",
        "Remove a passkey from a sign-in with a passkey or a recovery code",
      );
      // A stolen session, or one left open on a shared machine, must not strip the person of their
      // passkeys weeks later: the person proved themselves moments ago, as adding one asks.
      ensureRecentSignIn(deps, by.signedInAt, "passkey_removal_too_old");
    }
    const through = await sessionsThrough(deps, tx, person, { passkeyIds: [passkey.id] });
    const from = toldAs(by);
    passkeys.remove(deps.store, tx, passkeyId);
    through.end();
    if (!("self" in by)) recordRemoval(deps, tx, personId, [passkey], by);
    if (deps.config.notices.waysIn && from !== null)
      queueNotice(deps, tx, recipientOf(person), passkeysEvent("removed", [passkey.name], from));
    return through.ending.length;
  });
  if (ended > 0) deps.personCache.evict(personId);
}

type RemovalDeps = Pick<
  Deps,
  "store" | "transaction" | "random" | "clock" | "config" | "mailQueue" | "log" | "personCache"
>;

/** Someone else removing a person's passkeys (an administrator, an operator): the person's history says who. */
function recordRemoval(
  deps: Pick<Deps, "store" | "random" | "clock">,
  tx: Transaction,
  personId: string,
  removed: Passkey[],
  by: ActingOnOthers,
): void {
  const names = removed.map((p) => p.name);
  recordEvent(deps, tx, {
    personId,
    ...recordedAs(by),
    event: "passkeys-removed",
    changes: { passkeys: { from: names, to: null } },
  });
}

/**
 * Every passkey of a person, removed in one transaction (an administrator's, say for a lost
 * device or a suspect one), with every session they opened: returns how many there were. The
 * person signs in by email code after.
 */
export async function removeAllPasskeys(deps: RemovalDeps, personId: string, given: ActingOnOthers): Promise<number> {
  const done = await deps.transaction(async (tx) => {
    const by = await ensureAdminActs(deps, tx, given);
    const [held, person] = await Promise.all([
      passkeys.listByPerson(deps.store, personId, tx),
      people.findById(deps.store, personId, tx),
    ]);
    if (held.length === 0) return { removed: 0, ended: 0 };
    const through =
      person === null
        ? { ending: [], end: () => [] }
        : await sessionsThrough(deps, tx, person, { passkeyIds: held.map((p) => p.id) });
    for (const passkey of held) passkeys.remove(deps.store, tx, passkey.id);
    through.end();
    recordRemoval(deps, tx, personId, held, by);
    const event = passkeysEvent(
      "removed",
      held.map((p) => p.name),
      toldAs(by) as string,
    );
    const recipient = person === null ? { personId, to: null } : recipientOf(person);
    if (deps.config.notices.waysIn) queueNotice(deps, tx, recipient, event);
    return { removed: held.length, ended: through.ending.length };
  });
  if (done.ended > 0) deps.personCache.evict(personId);
  return done.removed;
}
