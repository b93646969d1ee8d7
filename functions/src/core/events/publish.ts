/**
 * Publishing an event: written to the outbox in the transaction of the change it tells of, so no
 * change goes without its event and no event without its change; the answer's path gains that one
 * write. The `mail` task fans it out to each app's subscription (core/events/delivery) after the
 * commit. What a person's lifecycle publishes, beside what it writes to their history, is
 * core/people/person-events.
 */
import { DAY } from "../../clock";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import { enqueue } from "../outbox/enqueue";
import type { ServiceEvent } from "../model/event";
import { eventOf, type EventFacts } from "./catalogue";

/** Queues the event in `tx`, its id `evt_…`: its commit wakes the drain, which fans it out. */
export function publishEvent(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  facts: Omit<EventFacts, "id" | "at">,
): ServiceEvent {
  const now = deps.clock.now();
  const event = eventOf({ ...facts, id: `evt_${deps.random.token(16)}`, at: now });
  enqueue(deps, tx, {
    id: event.id,
    kind: "event",
    about: event.personId,
    event,
    deliverBy: new Date(now.getTime() + DAY),
  });
  return event;
}
