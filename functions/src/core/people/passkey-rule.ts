/**
 * The operator's hand on the passkey rule (the CLI's `passkey-rule …`): which roles it names,
 * over the deployment's PASSKEY_ROLES, and how it stands; and the break-glass for one person: the
 * rule lifted for a stated time, or their passkeys and recovery codes cleared. What the rule
 * decides of a person is decided in core/people/acting, and nowhere else.
 */
import type { Deps } from "../deps";
import * as people from "../../store/people";
import * as passkeys from "../../store/passkeys";
import * as recoveryCodes from "../../store/recovery-codes";
import * as signInRules from "../../store/sign-in-rules";
import type { Transaction } from "../../store/db";
import { ensure } from "../errors";
import type { Operator } from "../model/history";
import { ENROLMENT_GRACE_MS, LIFT_MAX_HOURS, type PasskeyRule } from "../model/passkey-rule";
import type { Person, Role } from "../model/person";
import { liftedUntil, passkeyRule } from "./acting";
import { recordEvent } from "./history";
import { passkeysClearedEvent, ruleLiftedEvent } from "../notices/passkey-notices";
import { BY_OPERATOR, queueNotice, recipientOf, type SecurityEvent } from "../notices/security-notices";
import { sessionsThrough } from "./sessions-through";

/** The rule in force, and whose word it is: the operator's (with who set it and when), or the deployment's setting. */
export interface RuleInForce {
  rule: PasskeyRule;
  source: "operator" | "deployment";
  setBy: string | null;
  setAt: Date | null;
}

export async function ruleInForce(deps: Pick<Deps, "store" | "config">): Promise<RuleInForce> {
  const [stored, rule] = await Promise.all([signInRules.readPasskeyRule(deps.store), passkeyRule(deps)]);
  return {
    rule,
    source: stored.roles === null ? "deployment" : "operator",
    setBy: stored.setBy,
    setAt: stored.setAt,
  };
}

/**
 * Names the roles the rule holds (none: off), or with null hands it back to the deployment's
 * PASSKEY_ROLES. Counts at once: every administrators' request and action reads it.
 */
export async function setPasskeyRoles(
  deps: Pick<Deps, "store" | "config" | "transaction" | "clock">,
  roles: Role[] | null,
  by: Operator,
): Promise<RuleInForce> {
  await deps.transaction(async (tx) => {
    signInRules.setRoles(deps.store, tx, roles, { by: by.name, at: deps.clock.now() });
  });
  return ruleInForce(deps);
}

type BreakGlassDeps = Pick<
  Deps,
  "store" | "config" | "transaction" | "clock" | "random" | "mailQueue" | "log" | "personCache"
>;

/** The administrators told of a break-glass besides its person: every other approved one, read in its transaction. */
const OTHERS_TOLD = 100;

/**
 * Tells the person and every other approved administrator (each their own notice, none sharing a
 * `To:`), decided in `tx` from the state before the change.
 */
async function tellAll(
  deps: BreakGlassDeps,
  tx: Transaction,
  person: Person,
  event: (about: string | null) => SecurityEvent,
): Promise<() => void> {
  const admins = await people.approvedAdminList(deps.store, tx, OTHERS_TOLD + 1);
  const about = person.emails[0] ?? (person.name || person.id);
  return () => {
    queueNotice(deps, tx, recipientOf(person), event(null));
    for (const admin of admins) if (admin.id !== person.id) queueNotice(deps, tx, recipientOf(admin), event(about));
  };
}

/**
 * The break-glass: lifts the passkey rule for one person for `minutes` (at most LIFT_MAX_HOURS),
 * for a person who cannot sign in with a passkey and has no recovery code left. Written to their
 * history and told to them and to every other administrator, in one transaction; every act they
 * make meanwhile is recorded as made under the lift. It ends by itself, to the second.
 */
export async function liftPasskeyRule(
  deps: BreakGlassDeps,
  personId: string,
  minutes: number,
  by: Operator,
): Promise<{ person: Person; until: Date }> {
  ensure(
    Number.isInteger(minutes) && minutes >= 1 && minutes <= LIFT_MAX_HOURS * 60,
    "invalid_person_change",
    `minutes is a whole number from 1 to ${LIFT_MAX_HOURS * 60}`,
  );
  const done = await deps.transaction(async (tx) => {
    const person = await people.findById(deps.store, personId, tx);
    ensure(person, "person_not_found");
    const now = deps.clock.now();
    const until = new Date(now.getTime() + minutes * 60_000);
    const tell = await tellAll(deps, tx, person, (about) => ruleLiftedEvent(until, BY_OPERATOR, about));
    signInRules.setLift(deps.store, tx, person.id, { until, at: now, by: by.name });
    recordEvent(deps, tx, {
      personId: person.id,
      by,
      via: "cli",
      event: "passkey-rule-lifted",
      changes: { passkeyRule: { from: null, to: until.toISOString() } },
    });
    tell();
    return { person, until };
  });
  return done;
}

/** Ends a lift before its time: the rule holds the person again at once. */
export async function restorePasskeyRule(deps: BreakGlassDeps, personId: string, by: Operator): Promise<boolean> {
  const ended = await deps.transaction(async (tx) => {
    const [person, rule] = await Promise.all([people.findById(deps.store, personId, tx), passkeyRule(deps, tx)]);
    ensure(person, "person_not_found");
    const until = liftedUntil(rule, person.id, deps.clock.now());
    if (until === null) return false;
    signInRules.setLift(deps.store, tx, person.id, null);
    recordEvent(deps, tx, {
      personId: person.id,
      by,
      via: "cli",
      event: "passkey-rule-restored",
      changes: { passkeyRule: { from: until.toISOString(), to: null } },
    });
    return true;
  });
  return ended;
}

/**
 * The other break-glass: every passkey and recovery code of the person removed (a lost device and
 * lost codes, or a device in someone else's hands) with every session they opened, and their
 * enrolment begun again, so that for ENROLMENT_GRACE_DAYS a sign-in with an email code may add a
 * first passkey. Written to their history and told to them and to every other administrator, in
 * one transaction.
 */
export async function clearPasskeysAndCodes(
  deps: BreakGlassDeps,
  personId: string,
  by: Operator,
): Promise<{ person: Person; passkeys: number; codes: number; sessions: number; enrolBy: Date }> {
  const done = await deps.transaction(async (tx) => {
    const person = await people.findById(deps.store, personId, tx);
    ensure(person, "person_not_found");
    const [held, set] = await Promise.all([
      passkeys.listByPerson(deps.store, person.id, tx),
      recoveryCodes.findByPerson(deps.store, person.id, tx),
    ]);
    const now = deps.clock.now();
    const enrolBy = new Date(now.getTime() + ENROLMENT_GRACE_MS);
    const tell = await tellAll(deps, tx, person, (about) =>
      passkeysClearedEvent(held.length, enrolBy, BY_OPERATOR, about),
    );
    // Whoever holds the device, or a code, is signed out with them.
    const through = await sessionsThrough(deps, tx, person, {
      passkeyIds: held.map((p) => p.id),
      codesMadeAt: set?.madeAt ?? null,
    });
    for (const passkey of held) passkeys.remove(deps.store, tx, passkey.id);
    if (set !== null) recoveryCodes.remove(deps.store, tx, person.id);
    through.end();
    people.setEnrolmentFrom(deps.store, tx, person.id, now);
    const codes = set?.codes.filter((c) => c.usedAt === null).length ?? 0;
    recordEvent(deps, tx, {
      personId: person.id,
      by,
      via: "cli",
      event: "passkeys-cleared",
      changes: {
        passkeys: { from: held.map((p) => p.name), to: null },
        recoveryCodes: { from: String(codes), to: null },
      },
    });
    tell();
    return { person, passkeys: held.length, codes, enrolBy, sessions: through.ending.length };
  });
  deps.personCache.evict(personId);
  return done;
}
