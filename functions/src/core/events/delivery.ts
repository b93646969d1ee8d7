/**
 * Delivering events, as the `mail` task drains the outbox: an `event` entry is fanned out, in one
 * transaction, into a `delivery` entry for each enabled subscription that hears of its type; each
 * delivery is posted to its app on its own, signed as Standard Webhooks sign (`webhook-id`: the
 * event's id, the same on every retry and redelivery; `webhook-timestamp`; `webhook-signature`,
 * one `v1,` signature per secret in force), and ends at the app's 2xx. Otherwise it is retried
 * with the outbox's backoff (jittered, up to 4 hours apart) for DELIVERY_TRIED_FOR_MS, then kept
 * as `failed`, the dead letter `hooks deliveries` lists and `hooks redeliver` sends again.
 *
 * Each endpoint has its own health: a failure pauses it (30 s, doubling with each failure in a row,
 * up to an hour), and while it is paused its deliveries are not tried: each waits for the pause's
 * end, without a request and without counting it as an attempt, so an app that is down or slow
 * costs the drain one request per pause, never a wait per event, holds up no other app's events,
 * and gets its deliveries for the whole time they are tried for. The first delivery after a pause
 * tries it again; a 2xx ends the pause. Delivery is at least once: an answer lost on the way means the event comes
 * again, under the same `webhook-id`.
 */
import { postTo } from "../post-to";
import { Webhook } from "standardwebhooks";
import { HOUR, SECOND } from "../../clock";
import * as hooks from "../../store/hooks";
import type { Deps } from "../deps";
import { changeWhileClaimed, DELIVERED, NotDelivered, type Handlers } from "../outbox/handlers";
import { logOutbox } from "../outbox/log";
import type { Hook } from "../model/hook";
import type { OutboxEntry } from "../model/outbox";
import { queueDelivery, signingSecrets, subscribed } from "./hooks";

/** How long an app has to answer a delivery. */
export const DELIVERY_TIMEOUT_MS = 5 * SECOND;
const FIRST_PAUSE_MS = 30 * SECOND;
const LONGEST_PAUSE_MS = HOUR;

type DeliveryDeps = Pick<Deps, "store" | "clock" | "random" | "pepper" | "transaction" | "fetch" | "log">;

/** How long an endpoint rests after `failures` failures in a row. */
export const pauseAfter = (failures: number): number =>
  Math.min(FIRST_PAUSE_MS * 2 ** Math.max(0, failures - 1), LONGEST_PAUSE_MS);

/** Marks the entry done (with `work` in the same transaction), if this drain's claim still holds it. */
async function done(
  deps: DeliveryDeps,
  entry: OutboxEntry,
  claim: string,
  work?: Parameters<typeof changeWhileClaimed>[4],
): Promise<void> {
  await changeWhileClaimed(deps, entry.id, claim, { state: "sent", sentAt: deps.clock.now(), claim: null }, work);
}

/** How stale the `lastSuccessAt` an operator reads may grow while an endpoint keeps answering. */
const SUCCESS_NOTED_EVERY_MS = 60 * SECOND;

/**
 * What the app's answer (or its silence) says of its endpoint, recorded on the subscription. A
 * success that changes nothing (no failures to clear, the last success noted within the minute)
 * writes nothing: a thousand events to one app are not a thousand transactions on its document.
 */
async function recordAnswer(deps: DeliveryDeps, seen: Hook, failure: string | null): Promise<void> {
  const now = deps.clock.now();
  if (
    failure === null &&
    seen.failures === 0 &&
    seen.pausedUntil === null &&
    seen.lastSuccessAt !== null &&
    now.getTime() - seen.lastSuccessAt.getTime() < SUCCESS_NOTED_EVERY_MS
  )
    return;
  await deps.transaction(async (tx) => {
    const hook = await hooks.find(deps.store, seen.app, tx);
    if (hook === null) return;
    const failures = hook.failures + 1;
    hooks.recordHealth(
      deps.store,
      tx,
      seen.app,
      failure === null
        ? { failures: 0, pausedUntil: null, lastSuccessAt: now }
        : { failures, pausedUntil: new Date(now.getTime() + pauseAfter(failures)), lastError: failure },
    );
  });
}

/** Posts the event to the app; null when it took it (2xx), else the kind of failure. */
async function post(deps: DeliveryDeps, hook: Hook, body: string, id: string): Promise<string | null> {
  const now = deps.clock.now();
  const secrets = signingSecrets(deps, hook, now);
  if (secrets.length === 0) return "no secret";
  const signature = secrets.map((secret) => new Webhook(secret).sign(id, now, body)).join(" ");
  const headers = {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": signature,
  };
  return postTo(deps, hook.url, { headers, body }, DELIVERY_TIMEOUT_MS);
}

export function eventHandlers(deps: DeliveryDeps): Pick<Handlers, "event" | "delivery"> {
  return {
    /** Fanned out to each subscription in one transaction with its own settling. */
    async event(entry, claim) {
      const event = entry.event;
      // The subscriptions as read now, outside the transaction: fan-outs running side by side lock
      // none of them against the deliveries recording their endpoints' health. One removed or
      // disabled meanwhile gets a delivery that finds it so, and is dropped.
      const all = await hooks.list(deps.store);
      await done(deps, entry, claim, async (tx) => {
        for (const hook of all.filter((h) => !h.disabled && subscribed(h.events, event.type)))
          queueDelivery(deps, tx, hook, event);
      });
      return DELIVERED;
    },
    async delivery(entry, claim) {
      const event = entry.event;
      const hook = await hooks.find(deps.store, entry.about);
      // Removed or disabled since: nothing to deliver.
      if (hook === null || hook.disabled) return null;
      const now = deps.clock.now();
      // Not tried while the app rests: due again when its pause ends, the wait not counted as a try.
      if (hook.pausedUntil !== null && hook.pausedUntil.getTime() > now.getTime())
        throw new NotDelivered("paused", hook.pausedUntil);
      const failure = await post(deps, hook, JSON.stringify(event), event.id);
      await recordAnswer(deps, hook, failure);
      if (failure !== null) throw new NotDelivered(failure);
      await done(deps, entry, claim);
      logOutbox(deps.log, "eventDelivered", {
        outboxId: entry.id,
        app: hook.app,
        type: event.type,
        attempt: entry.attempts,
      });
      return DELIVERED;
    },
  };
}
