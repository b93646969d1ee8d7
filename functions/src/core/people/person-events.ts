/**
 * What a change to a person tells the apps (core/events/publish), written in the transaction of
 * the change beside their history, so no change goes without its event and no event without its
 * change.
 */
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import type { Actor, Via } from "../model/history";
import type { Person } from "../model/person";
import { changesBetween, recordEvent } from "./history";
import { causeOf, changeEventType } from "../events/catalogue";
import { publishEvent } from "../events/publish";

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
 * wait for review; the operator's first administrator: approved), published in `tx`.
 */
export function publishCreated(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  person: Person,
  actor: Actor,
): void {
  publishEvent(deps, tx, {
    type: person.status === "approved" ? "person.approved" : "person.access_requested",
    person,
    seq: FIRST_SEQ,
    by: causeOf(actor),
    changes: changesBetween(null, person),
  });
}

export const FIRST_SEQ = 1;
