/**
 * The keys a person holds when they take a role the passkey rule holds (a promotion, the
 * operator's first administrator). Their passkeys and recovery codes were made while the rule did
 * not judge their sign-ins: after one by email code, or by a passkey that itself followed one, so
 * an email code a look-alike page relayed while they were a member could have made any of them.
 * How the session that added a passkey began proves nothing of the passkey behind that session,
 * and every passkey a member holds goes back to a sign-in the rule did not judge. So none becomes
 * an administrator's key: in the transaction that gives the role, every passkey and the recovery
 * codes are removed, and each session a passkey or a recovery code opened ends with them (as a
 * removed address's do). The person then has the enrolment's days to add a passkey, told at
 * every address they hold (core/passkeys/registration).
 */
import type { Deps } from "../deps";
import * as passkeys from "../../store/passkeys";
import * as recoveryCodes from "../../store/recovery-codes";
import type { SessionRecord } from "../../store/sessions";
import type { Transaction } from "../../store/db";
import type { Passkey } from "../model/passkey";
import type { Person } from "../model/person";
import type { Actor, Via } from "../model/history";
import { byPasskey, RECOVERY_METHOD, type PasskeyRule } from "../model/passkey-rule";
import { recordEvent } from "./history";
import { ruledBy } from "./acting";

/** What a person holds of the keys the rule counts: their passkeys, and their recovery codes (null: none made). */
export interface HeldKeys {
  passkeys: Passkey[];
  codes: recoveryCodes.RecoveryCodes | null;
}

/** Whether a change of role puts the person under the rule: a role it names, from one it does not. */
export function takesRuledRole(rule: PasskeyRule, before: Pick<Person, "role">, after: Pick<Person, "role">): boolean {
  return ruledBy(rule, after) && !ruledBy(rule, before);
}

/** Whether a session began with a passkey or a recovery code: those a promotion's removal of the keys ends. */
export function openedByKey(session: Pick<SessionRecord, "amr">): boolean {
  return byPasskey(session.amr) || session.amr.includes(RECOVERY_METHOD);
}

/**
 * The person's ended sessions with `ending` among them, each kept until it would have expired
 * anyway (as logout keeps one), and those past that dropped.
 */
export function endedWith(
  person: Pick<Person, "endedSessions">,
  ending: Array<Pick<SessionRecord, "sessionId" | "expiresAt">>,
  now: Date,
): Record<string, Date> {
  const kept = Object.entries(person.endedSessions ?? {}).filter(([, until]) => until.getTime() > now.getTime());
  return Object.fromEntries([...kept, ...ending.map((s) => [s.sessionId, s.expiresAt] as const)]);
}

/** The person's passkeys and recovery codes, read in `tx`. */
export async function heldKeys(deps: Pick<Deps, "store">, tx: Transaction, personId: string): Promise<HeldKeys> {
  const [held, codes] = await Promise.all([
    passkeys.listByPerson(deps.store, personId, tx),
    recoveryCodes.findByPerson(deps.store, personId, tx),
  ]);
  return { passkeys: held, codes };
}

/**
 * Removes them in `tx`, after its reads: the credentials are unknown from then on, and the codes
 * sign in no more. The person's history names them, and whoever gave the role.
 */
export function removeHeldKeys(
  deps: Pick<Deps, "store" | "random" | "clock">,
  tx: Transaction,
  personId: string,
  keys: HeldKeys,
  recorded: { by: Actor; via: Via },
): void {
  for (const passkey of keys.passkeys) passkeys.remove(deps.store, tx, passkey.id);
  if (keys.codes !== null) recoveryCodes.remove(deps.store, tx, personId);
  if (keys.passkeys.length === 0 && keys.codes === null) return;
  const unused = keys.codes?.codes.filter((c) => c.usedAt === null).length ?? 0;
  recordEvent(deps, tx, {
    personId,
    ...recorded,
    event: "passkeys-removed",
    changes: {
      ...(keys.passkeys.length === 0 ? {} : { passkeys: { from: keys.passkeys.map((p) => p.name), to: null } }),
      ...(keys.codes === null ? {} : { recoveryCodes: { from: String(unused), to: null } }),
    },
  });
}
