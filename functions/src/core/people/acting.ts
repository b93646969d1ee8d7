/**
 * Who acts on a person, and what they must show. Every change, copy, erasure, ending of sessions
 * and removal of passkeys is made by one of three: an administrator through the API, signed in
 * when and from which browser; an operator on the command line, who holds the project's own
 * credentials; or the person themself at their account page. The rules every such action keeps
 * live here, once: a recent sign-in where one is asked (step-up), a person acting on their own
 * account only, the service keeping an administrator who can approve people, a name as plain
 * text, and how the person's history and notices name whoever acted.
 */
import { ensure, type ErrorCode } from "../errors";
import * as people from "../../store/people";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { Actor, Operator, Via } from "../model/history";
import { NAME_MAX, type Person } from "../model/person";
import { STEP_UP_MS } from "../model/step-up";
import { characters, cleanText } from "../text";
import { BY_OPERATOR, byAdmin } from "./security-notices";

export { STEP_UP_MS };

/**
 * Who acts: an administrator, an operator, or the person. `from` is the browser acted from, as
 * the person's notice names it; the person is told of an act of their own (a passkey removed)
 * only where it is given.
 */
export type Acting =
  | { admin: Person; signedInAt: Date; from: string }
  | { operator: Operator }
  | { self: Person; signedInAt: Date; from?: string };

/** Someone other than the person: who ends their sessions or removes their passkeys. */
export type ActingOnOthers = Exclude<Acting, { self: Person }>;

/** An approved admin is who can approve anyone, at the endpoints and on the command line alike. */
export const approvedAdmin = (p: Person) => p.role === "admin" && p.status === "approved";

/** An administrator as a person's history records them. */
export function adminActor(admin: Person): Actor {
  return { kind: "admin", personId: admin.id, email: admin.emails[0] ?? null };
}

/** Who acted and through what, as the person's history records it. */
export function recordedAs(by: Acting): { by: Actor; via: Via } {
  if ("self" in by) return { by: { kind: "person" }, via: "account" };
  if ("admin" in by) return { by: adminActor(by.admin), via: "api" };
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

/** Step-up: whoever acts at a page (an administrator, the person) signed in within STEP_UP_MS; an operator needs none. */
export function ensureStepUp(deps: Pick<Deps, "clock">, by: Acting, detail?: string): void {
  if ("operator" in by) return;
  ensureRecentSignIn(deps, by.signedInAt, "step_up_required", detail);
}

/** A person acting for themself acts on their own account only; an administrator or operator on anyone's. */
export function ensureOwnAccount(by: Acting, personId: string): void {
  if ("self" in by) ensure(by.self.id === personId, "forbidden", "You may act on your own account only");
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
