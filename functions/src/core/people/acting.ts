/**
 * Who acts on a person, and what they must show. Every change, copy, erasure, ending of sessions
 * and removal of passkeys is made by one of three: an administrator through the API, signed in
 * when, how and from which browser; an operator on the command line, who holds the project's own
 * credentials; or the person themself at their account page. The rules every such action keeps
 * live here, once: the passkey rule (an administrator acts as one only from a passkey sign-in),
 * a recent sign-in where one is asked (step-up, a passkey's under the rule), a person acting on
 * their own account only, and changing of it only their name and addresses, the service keeping
 * an administrator who can approve people, a name as plain text, and how the person's history and
 * notices name whoever acted.
 */
import { ensure, type ErrorCode } from "../errors";
import * as people from "../../store/people";
import * as signInRules from "../../store/sign-in-rules";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { Actor, Operator, Via } from "../model/history";
import { NAME_MAX, type Person } from "../model/person";
import { PAST_STEP_UP, STEP_UP_MS } from "../model/step-up";
import { byPasskey, ENROLMENT_GRACE_MS, RECOVERY_METHOD, type PasskeyRule } from "../model/passkey-rule";
import { characters, cleanText } from "../text";
import { BY_OPERATOR, byAdmin } from "../notices/security-notices";

export { STEP_UP_MS };

/**
 * How an administrator's sign-in stands under the passkey rule, once the rule is read: the rule
 * does not name their role (`unruled`), they signed in with a passkey (`passkey`), or the
 * operator lifted the rule for them for now (`lifted`, the break-glass).
 */
export type Standing = "unruled" | "passkey" | "lifted";

/**
 * An administrator acting through the API: signed in when, by which methods (RFC 8176, the
 * session's `amr`), from which browser; `standing` once ensureAdminActs has read the rule in the
 * action's transaction.
 */
export type AdminActing = { admin: Person; signedInAt: Date; amr: string[]; from: string; standing?: Standing };

/**
 * Who acts: an administrator, an operator, or the person. `from` is the browser acted from, as
 * the person's notice names it; the person is told of an act of their own (a passkey removed)
 * only where it is given. A person's `amr`, where known, is how their session began.
 */
export type Acting =
  AdminActing | { operator: Operator } | { self: Person; signedInAt: Date; amr?: string[]; from?: string };

/** Someone other than the person: who ends their sessions or removes their passkeys. */
export type ActingOnOthers = Exclude<Acting, { self: Person }>;

/** An approved admin is who can approve anyone, at the endpoints and on the command line alike. */
export const approvedAdmin = (p: Person) => p.role === "admin" && p.status === "approved";

/**
 * An administrator as a person's history records them: who, and how the session they acted from
 * began (its methods, and whether the rule was lifted for them), so an act under the break-glass
 * is told apart from one made from a passkey sign-in.
 */
export function adminActor(by: AdminActing): Actor {
  const admin = by.admin;
  return {
    kind: "admin",
    personId: admin.id,
    email: admin.emails[0] ?? null,
    amr: by.amr,
    ...(by.standing === "lifted" ? { lifted: true } : {}),
  };
}

/** Who acted and through what, as the person's history records it. */
export function recordedAs(by: Acting): { by: Actor; via: Via } {
  if ("self" in by) return { by: { kind: "person" }, via: "account" };
  if ("admin" in by) return { by: adminActor(by), via: "api" };
  return { by: by.operator, via: "cli" };
}

/** Who did it, as the person's notice says; null for an act of their own that they are not told of. */
export function toldAs(by: Acting): string | null {
  if ("self" in by) return by.from ?? null;
  return "operator" in by ? BY_OPERATOR : byAdmin(by.from);
}

/**
 * A sign-in at `signedInAt` must be within STEP_UP_MS; otherwise `refusal` (by default the
 * API's `step_up_required`, 403). Also what opening a session and adding a passkey ask of the
 * sign-in they come from.
 */
export function ensureRecentSignIn(
  deps: Pick<Deps, "clock">,
  signedInAt: Date,
  refusal: ErrorCode = "step_up_required",
  detail?: string,
): void {
  ensure(deps.clock.now().getTime() - signedInAt.getTime() <= STEP_UP_MS, refusal, detail);
}

/** What a stale passkey sign-in is told where the rule asks for one. */
const PASSKEY_AGAIN = `Confirm it's you with your passkey: your sign-in is ${PAST_STEP_UP} old`;

/**
 * Step-up: whoever acts at a page (an administrator, the person) signed in within STEP_UP_MS; an
 * operator needs none. Where the passkey rule holds an administrator, the fresh sign-in must be a
 * passkey's (`passkey_required`): an email code a look-alike page relays in real time is fresh
 * too, and confirms nothing. Asked of an administrator only after ensureAdminActs.
 */
export function ensureStepUp(deps: Pick<Deps, "clock">, by: Acting, detail?: string): void {
  if ("operator" in by) return;
  if ("admin" in by) {
    if (by.standing === undefined)
      throw new Error("an administrator's step-up is judged after the passkey rule (ensureAdminActs)");
    if (by.standing === "passkey") return ensureRecentSignIn(deps, by.signedInAt, "passkey_required", PASSKEY_AGAIN);
  }
  ensureRecentSignIn(deps, by.signedInAt, "step_up_required", detail);
}

/**
 * The passkey rule in force: the roles the operator named (`passkey-rule set`, kept in
 * Firestore) or else the deployment's PASSKEY_ROLES, and the operator's lifts. Read in `tx`
 * where an action decides, so a change of it and the action are serialised.
 */
export async function passkeyRule(deps: Pick<Deps, "store" | "config">, tx?: Transaction): Promise<PasskeyRule> {
  const stored = await signInRules.readPasskeyRule(deps.store, tx);
  return { roles: stored.roles ?? deps.config.passkeyRoles, lifts: stored.lifts };
}

/** Whether the rule names the person's role: they act in it only from a passkey sign-in. */
export function ruledBy(rule: PasskeyRule, person: Pick<Person, "role">): boolean {
  return rule.roles.includes(person.role);
}

/** Whether the operator has lifted the rule for the person, now: until when, or null. */
export function liftedUntil(rule: PasskeyRule, personId: string, now: Date): Date | null {
  const lift = rule.lifts[personId];
  return lift !== undefined && now.getTime() < lift.until.getTime() ? lift.until : null;
}

/**
 * The passkey rule's one decision: how a person's sign-in, begun by `amr`, stands for acting in
 * their role now; null when the rule holds them and the sign-in is not a passkey's (the person
 * keeps a member's powers, and an administrator's act is refused with `passkey_required`).
 */
export function standingOf(
  rule: PasskeyRule,
  person: Pick<Person, "id" | "role">,
  amr: readonly string[],
  now: Date,
): Standing | null {
  if (!ruledBy(rule, person)) return "unruled";
  if (byPasskey(amr)) return "passkey";
  return liftedUntil(rule, person.id, now) === null ? null : "lifted";
}

/**
 * Until when a person the rule holds, and who holds no passkey, may add one after signing in
 * another way (an email code, a bridge): ENROLMENT_GRACE_MS from their promotion, from the
 * operator clearing their passkeys, or else from when they were made; null once that is over.
 */
export function enrolmentEnds(person: Pick<Person, "enrolmentFrom" | "createdAt">, now: Date): Date | null {
  const ends = new Date((person.enrolmentFrom ?? person.createdAt).getTime() + ENROLMENT_GRACE_MS);
  return now.getTime() < ends.getTime() ? ends : null;
}

/**
 * Whether a session begun by `amr` may change the person's own passkeys: anyone the rule does not
 * hold; under the rule, a passkey sign-in, a recovery code's (its one power beyond a member's:
 * the lost device's passkey removed, a new one added), or any while the operator has lifted it.
 * Otherwise an email code a look-alike page relays could strip an administrator of their
 * passkeys, or plant the attacker's and with it the power the rule keeps from email codes.
 */
export function mayChangePasskeys(
  rule: PasskeyRule,
  person: Pick<Person, "id" | "role">,
  amr: readonly string[],
  now: Date,
): boolean {
  return standingOf(rule, person, amr, now) !== null || amr.includes(RECOVERY_METHOD);
}

/**
 * Whether a person may add a passkey from a session begun by `amr` (besides its being recent,
 * which registration asks of everyone): whenever they may change their passkeys, and, holding
 * none yet, after any sign-in within their enrolment's grace.
 */
export function mayAddPasskey(
  rule: PasskeyRule,
  person: Pick<Person, "id" | "role" | "enrolmentFrom" | "createdAt">,
  amr: readonly string[],
  held: number,
  now: Date,
): boolean {
  if (mayChangePasskeys(rule, person, amr, now)) return true;
  return held === 0 && enrolmentEnds(person, now) !== null;
}

/**
 * The gate's half of the rule, for every administrators' route (http/gate, with the admin need):
 * the administrator the request's session speaks for acts as one only from a passkey sign-in.
 * Read outside any transaction; each action that changes anything decides again in its own
 * (ensureAdminActs), so a read between the two changes nothing that counts.
 */
export async function ensureAdminSignIn(
  deps: Pick<Deps, "store" | "config" | "clock">,
  admin: Person,
  amr: readonly string[],
): Promise<Standing> {
  const standing = standingOf(await passkeyRule(deps), admin, amr, deps.clock.now());
  ensure(standing, "passkey_required");
  return standing;
}

/**
 * The rule inside the action's transaction, before anything is written: the administrator, read
 * again in `tx`, is still an approved one, and their sign-in stands under the rule as read in
 * `tx` (a lift that ended, or a rule turned on, since the request's gate counts). Returns who
 * acts with their standing, for the step-up and the history; an operator or the person as given.
 */
export async function ensureAdminActs<A extends Acting>(
  deps: Pick<Deps, "store" | "config" | "clock">,
  tx: Transaction,
  by: A,
): Promise<A> {
  if (!("admin" in by)) return by;
  const [rule, actor] = await Promise.all([passkeyRule(deps, tx), people.findById(deps.store, by.admin.id, tx)]);
  ensure(actor !== null && approvedAdmin(actor), "forbidden");
  const standing = standingOf(rule, actor, by.amr, deps.clock.now());
  ensure(standing, "passkey_required");
  return { ...by, admin: actor, standing };
}

/** The person acting for themself, at their account page. */
export type SelfActing = Extract<Acting, { self: Person }>;

/** What a person the rule holds is told when their own change to a way in is asked of a passkey sign-in. */
const OWN_WAYS_IN =
  "Your ways in are an administrator's: change them from a sign-in with your passkey (an emailed code can be relayed by a look-alike page)";

/**
 * A person's own change to a way into their account (an address added, made the one mail goes
 * to, or removed; a provider's account unlinked; the notices of new browsers turned off), judged
 * on the rule as read: where the passkey rule holds them it is a privileged act, asked of a
 * passkey sign-in (or the operator's lift), as their acts on others are. Otherwise an email code a
 * look-alike page relays could add the attacker's address, make it the one mail goes to, and so
 * send the notices that are the rule's safeguard to the attacker. In the enrolment's days an
 * email code may add the first passkey (mayAddPasskey), and nothing else of their ways in. The
 * step-up is then a passkey's; under a lift, or where the rule does not hold them, any fresh
 * sign-in's.
 */
export function judgeOwnWaysIn(
  deps: Pick<Deps, "clock">,
  rule: PasskeyRule,
  person: Pick<Person, "id" | "role">,
  by: Pick<SelfActing, "amr" | "signedInAt">,
): void {
  const standing = standingOf(rule, person, by.amr ?? [], deps.clock.now());
  ensure(standing, "passkey_required", OWN_WAYS_IN);
  if (standing === "passkey") return ensureRecentSignIn(deps, by.signedInAt, "passkey_required", PASSKEY_AGAIN);
  ensureRecentSignIn(deps, by.signedInAt);
}

/**
 * judgeOwnWaysIn with the rule read now: in `tx`, on the person as `tx` read them, where the
 * action decides (a promotion meanwhile counts); before it, on the gate's copy, so that nothing
 * is sent or spent for a change that would be refused.
 */
export async function ensureOwnWaysIn(
  deps: Pick<Deps, "store" | "config" | "clock">,
  by: SelfActing,
  tx?: Transaction,
  person: Pick<Person, "id" | "role"> = by.self,
): Promise<void> {
  judgeOwnWaysIn(deps, await passkeyRule(deps, tx), person, by);
}

/** A person acting for themself acts on their own account only; an administrator or operator on anyone's. */
export function ensureOwnAccount(by: Acting, personId: string): void {
  if ("self" in by) ensure(by.self.id === personId, "forbidden", "You may act on your own account only");
}

/**
 * What a person may change of themselves, from their own session, as a change from `before` to
 * `after` (`changed`, the fields it changes). Status, role, access, numbers and accounts are an
 * administrator's to change: a person's own session may rename them, and reorder or remove their
 * own addresses, keeping one (mail and a way in go there). It adds an address only with the proof
 * that it is theirs: `proven`, the addresses the code mailed to each has proved.
 */
export function ensureOwnChange(before: Person, after: Person, changed: string[], proven: readonly string[]): void {
  ensure(
    changed.every((field) => field === "name" || field === "emails"),
    "forbidden",
    "You may change your own name and addresses only",
  );
  const unproven = after.emails.filter((e) => !before.emails.includes(e) && !proven.includes(e));
  ensure(unproven.length === 0, "forbidden", "An address is added to your account with the code mailed to it");
  ensure(after.emails.length > 0 || before.emails.length === 0, "last_address");
}

/**
 * Read in the transaction that changes or erases `before`: the last approved administrator stays
 * one (409 `last_admin`). Of two administrators demoting or erasing each other at once, the second
 * sees the first's change and is refused, so the service always keeps someone who can approve people.
 */
export async function ensureKeepsAnAdmin(
  deps: Pick<Deps, "store">,
  tx: Transaction,
  before: Person,
  after: Person | null,
): Promise<void> {
  if (!approvedAdmin(before) || (after !== null && approvedAdmin(after))) return;
  ensure((await people.approvedAdminList(deps.store, tx, 2)).length >= 2, "last_admin");
}

export { NAME_MAX };

/** A person's name as kept, whoever gives it: plain text (core/text), at most NAME_MAX characters. */
export function personName(raw: string): string {
  const name = cleanText(raw);
  ensure(characters(name) <= NAME_MAX, "invalid_person_change", `name is at most ${NAME_MAX} characters`);
  return name;
}
