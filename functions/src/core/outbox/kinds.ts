/**
 * What the queue makes of each kind of entry (core/model/outbox `OutboxKinds`): the lane it waits
 * in, and what the log calls it. One row a kind, or this does not compile.
 */
import type { OutboxKind, OutboxLane } from "../model/outbox";

/**
 * What an entry is, as the log names it: `mail` to a person, a `delivery` to an app (an event, its
 * fan-out, a logout token), or a `job` the outbox runs (nothing is sent).
 */
export type Nature = "mail" | "delivery" | "job";

export const KINDS = {
  code: { lane: "mail", is: "mail" },
  "lock-notice": { lane: "mail", is: "mail" },
  digest: { lane: "mail", is: "mail" },
  approval: { lane: "mail", is: "mail" },
  rejection: { lane: "mail", is: "mail" },
  "client-review": { lane: "mail", is: "mail" },
  "security-notice": { lane: "mail", is: "mail" },
  invitation: { lane: "bulk", is: "mail" },
  "account-deletion": { lane: "mail", is: "job" },
  erasure: { lane: "mail", is: "job" },
  event: { lane: "apps", is: "delivery" },
  delivery: { lane: "apps", is: "delivery" },
  "backchannel-logout": { lane: "apps", is: "delivery" },
} as const satisfies { [K in OutboxKind]: { lane: OutboxLane; is: Nature } };

/** The kinds that are `nature`, in the order above. */
export function kindsThatAre(nature: Nature): OutboxKind[] {
  return (Object.keys(KINDS) as OutboxKind[]).filter((kind) => KINDS[kind].is === nature);
}
