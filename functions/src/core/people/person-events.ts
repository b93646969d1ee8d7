/**
 * Each step of a person's life, as it is written: one function a step, which tells the apps
 * (core/events/publish) and writes the person's history in the transaction of the step itself, so
 * no step goes without its event or its entry, and no event or entry without its step.
 *
 * - they arrive (`publishAndRecordArrival`): `person.access_requested`, or `person.approved`;
 * - they change (`publishAndRecord`): the event the change is, if any app hears of it;
 * - their sessions are ended by someone else (`publishAndRecordSessionsEnded`);
 * - they are erased (`publishAndRecordErasure`), and what is left of it begun.
 */
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { Actor, Via } from "../model/history";
import type { Person } from "../model/person";
import { changesBetween, recordEvent } from "./history";
import { causeOf, changeEventType } from "../events/catalogue";
import { publishEvent } from "../events/publish";
import { beginErasure } from "./erasure-job";

type LifeDeps = Pick<Deps, "store" | "clock" | "random">;

/** Who took the step, and through what, as the person's history records them. */
interface Recorded {
  by: Actor;
  via: Via;
}

/** The next of a person's sequence numbers, which the caller stores on the person in the same transaction. */
export const nextSeq = (person: Pick<Person, "eventSeq">): number => (person.eventSeq ?? 0) + 1;

/**
 * The event of a change from `before` to `after` (core/events/catalogue), published in `tx`:
 * returns `after` with its next sequence number, which the caller writes in the same
 * transaction, or `after` as it is when no app hears of the change (a note alone).
 */
function publishChange(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  before: Person,
  after: Person,
  actor: Actor,
): Person {
  const changes = changesBetween(before, after);
  const type = changeEventType(changes);
  if (type === null) return after;
  const seq = nextSeq(before);
  publishEvent(deps, tx, { type, person: after, seq, by: causeOf(actor), changes });
  return { ...after, eventSeq: seq };
}

/**
 * A change from `before` to `after` as every change to a person is made, in `tx`: told to the
 * apps (publishChange) and written to their history, by `actor` through `via`. Returns `after`
 * as the caller writes it (with its next sequence number when the apps hear of it).
 */
export function publishAndRecord(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  before: Person,
  after: Person,
  actor: Actor,
  via: Via,
): Person {
  const written = publishChange(deps, tx, before, after, actor);
  recordEvent(deps, tx, {
    personId: before.id,
    by: actor,
    via,
    event: "changed",
    changes: changesBetween(before, written),
  });
  return written;
}

/**
 * A person just made, with `eventSeq: FIRST_SEQ` (a request for access or a first sign-in: they
 * wait for review; an invited address, or the operator's administrator: approved), in `tx`: the
 * apps hear of them, and their history's first entry says who or what made them, and the rule of
 * their address's domain that let them in or made its suggestion (`rule`), if one did.
 */
export function publishAndRecordArrival(
  deps: LifeDeps,
  tx: Transaction,
  person: Person,
  { by, via }: Recorded,
  rule: string | null = null,
): void {
  const changes = changesBetween(null, person);
  publishEvent(deps, tx, {
    type: person.status === "approved" ? "person.approved" : "person.access_requested",
    person,
    seq: FIRST_SEQ,
    by: causeOf(by),
    changes,
  });
  recordEvent(deps, tx, {
    personId: person.id,
    by,
    via,
    event: "created",
    changes: rule === null ? changes : { ...changes, rule: { from: null, to: rule } },
  });
}

/**
 * The person's sessions `sessionIds` ended by someone else, in `tx`: the apps hear how many, and
 * the person's history which. Returns the person's next sequence number, for the caller to store
 * on them in the same transaction.
 */
export function publishAndRecordSessionsEnded(
  deps: LifeDeps,
  tx: Transaction,
  person: Person,
  { by, via }: Recorded,
  sessionIds: string[],
): number {
  const seq = nextSeq(person);
  publishEvent(deps, tx, {
    type: "person.sessions_ended",
    person,
    seq,
    by: causeOf(by),
    sessions: sessionIds.length,
  });
  recordEvent(deps, tx, {
    personId: person.id,
    by,
    via,
    event: "sessions-ended",
    changes: { sessions: { from: sessionIds, to: null } },
  });
  return seq;
}

/**
 * The person erased, in `tx`, whose document the caller removes: the apps hear of it with the ids
 * they know the person by (`person.uids`) and nothing else, the history keeps that they were, and
 * what is left of the erasure is begun (core/people/erasure-job): their provider accounts
 * `accounts` to delete, the records that name them to sweep.
 */
export function publishAndRecordErasure(
  deps: LifeDeps,
  tx: Transaction,
  person: Person,
  { by, via }: Recorded,
  accounts: string[],
): void {
  publishEvent(deps, tx, { type: "person.erased", person, seq: nextSeq(person), by: causeOf(by) });
  recordEvent(deps, tx, { personId: person.id, by, via, event: "erased", changes: {} });
  beginErasure(deps, tx, person.id, accounts);
}

export const FIRST_SEQ = 1;
