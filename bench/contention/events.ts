/**
 * Scenario 11: a thousand events to four apps, one of them down. Four apps subscribe to every
 * event (core/events/hooks' addHook): three answer 204 at receivers in this process
 * (./receivers.ts), which check each delivery's signature and note its `webhook-id` and when it
 * came; the fourth is subscribed at a port where nothing listens. A thousand events are published
 * as the rules publish them (core/events/publish's publishEvent, fifty to a transaction), then
 * 4 workers each run the `mail` task's work (mailRound) until every event has reached the three
 * apps that answer, or five minutes pass; a mail queued just after the events, and one queued as
 * their first delivery arrives, show how long the mail behind them waits. Every event must reach
 * each app that answers once, signed; the app that is down must cost the drain a request per pause,
 * not one per event, and hold up neither the others' deliveries nor the mail.
 *
 * The subscriptions are removed at the end, and what is still pending of the scenario (the down
 * app's deliveries) is settled as the drain settles a delivery whose subscription is gone (`none`),
 * as of when each falls due, so nothing of it is left for the service's own drain after it.
 */
import { service } from "../lib/functions.ts";
import { freePort } from "../lib/procs.ts";
import { settle, snapshot, type Context, type Result } from "./context.ts";
import { outcome, states } from "./events-outcome.ts";
import { now, until } from "./measure.ts";
import { arrived, closeReceiver, startReceiver, type Receiver } from "./receivers.ts";

const { addHook, findHook, removeHook } = service<any>("core/events/hooks");
const { publishEvent } = service<any>("core/events/publish");
const { run: mailRound, handlers } = service<any>("tasks/mail");
const { deliverRead } = service<any>("core/outbox/drain");
const { enqueueMail } = service<any>("core/outbox/enqueue");
const outbox = service<any>("store/outbox");

const EVENTS = 1000;
const PER_TRANSACTION = 50;
const WORKERS = 4;
const UP = ["app-a", "app-b", "app-c"];
const DOWN = "app-d";
/** The workers stop once every event has reached the apps that answer, or after this long. */
const MAX_MS = 5 * 60_000;
/** With nothing due, a worker waits this long before its next round (what is left falls due later). */
const IDLE_MS = 250;

type Fetch = (input: string, init: unknown) => Promise<unknown>;

/** A thousand events, fifty to a transaction: each event's id, with when its transaction committed. */
async function publish(deps: any): Promise<Map<string, number>> {
  const published = new Map<string, number>();
  for (let first = 0; first < EVENTS; first += PER_TRANSACTION) {
    const ids: string[] = await deps.transaction(async (tx: unknown) =>
      Array.from({ length: Math.min(PER_TRANSACTION, EVENTS - first) }, (_, k) => {
        const i = first + k;
        const event = publishEvent(deps, tx, {
          type: "person.profile_changed",
          person: { id: `bench-person-${i}`, uids: [`uid-${i}`] },
          seq: 1,
          by: "administrator",
          changes: { name: { from: `Bench Person ${i}`, to: `Bench Person ${i} Renamed` } },
        });
        return event.id as string;
      }),
    );
    const at = now();
    for (const id of ids) published.set(id, at);
  }
  return published;
}

/** A mail queued among the events, and when its transaction committed. */
interface Probe {
  id: string;
  queuedAt: Date;
}

/** Queues a mail as a code is queued: its wait is what the events do to the mail queued behind them. */
async function queueMail(deps: any, to: string): Promise<Probe> {
  const id: string = await deps.transaction(async (tx: unknown) => {
    const message = { to, subject: "Bench mail", text: "Mail\n", html: "<p>Mail</p>" };
    const deliverBy = new Date(deps.clock.now().getTime() + 10 * 60_000);
    return enqueueMail(deps, tx, message, { kind: "code", deliverBy }) as string;
  });
  return { id, queuedAt: deps.clock.now() };
}

/** Seconds from queueing to sending; NaN while it is not sent. */
async function waited(store: any, probe: Probe): Promise<number> {
  const entry = await outbox.findById(store, probe.id);
  return entry?.sentAt instanceof Date ? (entry.sentAt.getTime() - probe.queuedAt.getTime()) / 1000 : NaN;
}

/** 4 workers, each running the `mail` task's work until `done()` or the time is up; the errors they met. */
async function drain(workerDeps: any, done: () => Promise<boolean>): Promise<string[]> {
  const errors: string[] = [];
  const t = now();
  const worker = async () => {
    while (!(await done()) && now() - t < MAX_MS) {
      try {
        await mailRound(workerDeps, { digest: false });
      } catch (err) {
        errors.push(err instanceof Error ? err.message.slice(0, 80) : String(err));
      }
      // A round's report counts a delivery as nothing sent (its renderer settles it): what is due is asked instead.
      if ((await outbox.due(workerDeps.store, workerDeps.clock.now(), 1)).length === 0)
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  return errors;
}

/**
 * Settles what is still pending once the subscriptions are gone, each entry as the drain will when
 * it falls due (a delivery finds no subscription: `none`), but now: the scenarios after this one
 * measure the service's own drain, which would otherwise meet them for hours. Each is read afresh,
 * and read again while it is pending (another drain's claim came between). Returns how many were
 * settled, and how many are pending still.
 */
async function dropLeftovers(deps: any, ids: string[]): Promise<{ dropped: number; left: number }> {
  let left = ids;
  for (let pass = 0; pass < 3 && left.length > 0; pass++) {
    const reads = await Promise.all(left.map((id) => outbox.read(deps.store, id)));
    const pending = reads.filter((r) => r?.entry.state === "pending");
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < pending.length; i = next++) {
        const at = new Date(Math.max(pending[i].entry.nextAttemptAt.getTime(), deps.clock.now().getTime()));
        await deliverRead(deps, pending[i], at, handlers);
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    left = pending.map((r) => r.entry.id);
  }
  const still = (await Promise.all(left.map((id) => outbox.findById(deps.store, id)))).filter(
    (e) => e?.state === "pending",
  ).length;
  return { dropped: ids.length - still, left: still };
}

/** Counts each request by the app it goes to, then sends it on. */
const counting =
  (urls: Map<string, string>, counts: Record<string, number>, send: Fetch): Fetch =>
  (input, init) => {
    const app = urls.get(String(input)) ?? "other";
    counts[app] = (counts[app] ?? 0) + 1;
    return send(input, init);
  };

export async function eventsToApps(ctx: Context): Promise<Result> {
  const { deps, store } = ctx.svc;
  await settle(ctx.svc);
  const receivers: Receiver[] = await Promise.all(UP.map(startReceiver));
  const downUrl = `http://127.0.0.1:${await freePort()}/events`;
  const urls = new Map<string, string>([...receivers.map((r) => [r.url, r.app] as const), [downUrl, DOWN]]);
  const subscribed: string[] = [];
  const own: { fetch: Fetch; mailQueue: unknown } = { fetch: deps.fetch, mailQueue: deps.mailQueue };
  try {
    for (const r of receivers) {
      r.secret = (await addHook(deps, { app: r.app, url: r.url, events: [] })).secret;
      subscribed.push(r.app);
    }
    await addHook(deps, { app: DOWN, url: downUrl, events: [] });
    subscribed.push(DOWN);

    // The workers' wakes are theirs to make: what the scenario queues wakes nobody (a commit that
    // queues wakes the drain of `deps.mailQueue`).
    deps.mailQueue = { wake: async () => {} };
    const before = snapshot(ctx.svc);
    const t0 = now();
    const published = await publish(deps);
    const publishedAt = now();
    // One mail behind the events, and one behind their deliveries: queued as the first of them arrives.
    const behindEvents = await queueMail(deps, "behind-events@events.example");
    let behindDeliveries: Probe | null = null;
    const arriving = until(() => receivers.some((r) => r.arrivals.length > 0), MAX_MS).then(async () => {
      behindDeliveries = await queueMail(deps, "behind-deliveries@events.example");
    });
    // Each worker goes on until the apps that answer have it all. The service's own mail task may
    // still run a round, for a wake for later that an earlier drain asked for, but asks for no
    // other meanwhile. Every drain's requests are counted by app as they leave (nothing arrives of
    // the down app's): the workers', and any of that round.
    const requests: Record<string, number> = {};
    const byWorkers: Record<string, number> = {};
    deps.fetch = counting(urls, requests, own.fetch);
    const workerDeps = { ...deps, fetch: counting(urls, byWorkers, deps.fetch) };
    const ofApp = (app: string): Promise<any[]> => outbox.ofKindAbout(store, "delivery", app, 2 * EVENTS);
    const t = now();
    const delivered = async () =>
      receivers.every((r) => r.ids.size >= EVENTS) &&
      behindDeliveries !== null &&
      Number.isFinite(await waited(store, behindDeliveries));
    const errors = await drain(workerDeps, delivered);
    await arriving;
    const drainMs = now() - t;
    const after = snapshot(ctx.svc);
    // How often the down app's deliveries were taken up while the workers ran; then the service's
    // own mail task, if it was woken, goes on until nothing is due, before the outbox is read.
    const downTries = (await ofApp(DOWN)).reduce((sum: number, e: any) => sum + e.attempts, 0);
    await settle(ctx.svc);

    const deliveries = new Map<string, any[]>(
      await Promise.all([...UP, DOWN].map(async (a) => [a, await ofApp(a)] as const)),
    );
    const events = await Promise.all([...published.keys()].map((id) => outbox.findById(store, id)));
    const downHook = await findHook(deps, DOWN);
    const apps = receivers.map((r) => arrived(r, published));
    const statuses = Object.assign(
      states("event", events),
      ...[...deliveries].map(([app, list]) => states(app, list)),
      errors.length ? { "drain failed": errors.length } : {},
    ) as Record<string, number>;

    await Promise.all(subscribed.splice(0).map((app) => removeHook(deps, app)));
    const pending = [...events, ...[...deliveries.values()].flat()].filter((e) => e?.state === "pending");
    const ids = pending.map((e) => e.id);
    const { dropped, left } = await dropLeftovers(workerDeps, ids);

    const down = deliveries.get(DOWN) ?? [];
    const up = UP.flatMap((app) => deliveries.get(app) ?? []);
    return outcome({
      events: EVENTS,
      apps,
      errors,
      drainMs,
      wallMs: now() - t0,
      statuses,
      transactions: {
        runs: after.runs - before.runs,
        attempts: after.attempts - before.attempts,
        failed: after.failed - before.failed,
      },
      // Marked sent at an app that answers but never received there, or given up: lost.
      lost:
        up.filter((e) => e.state === "failed").length +
        receivers.reduce(
          (sum, r) =>
            sum + (deliveries.get(r.app) ?? []).filter((e) => e.state === "sent" && !r.ids.has(e.event?.id)).length,
          0,
        ),
      entries: [...deliveries].map(([app, list]) => [app, list.length] as const),
      facts: {
        publishS: (publishedAt - t0) / 1000,
        firstArrivalS: (Math.min(...receivers.flatMap((r) => r.arrivals.map((a) => a.at))) - publishedAt) / 1000,
        behindEventsS: await waited(store, behindEvents),
        behindDeliveriesS: behindDeliveries === null ? NaN : await waited(store, behindDeliveries),
        retried: up.filter((e) => e.attempts > 1).length,
        downRequests: requests[DOWN] ?? 0,
        downFailures: downHook?.failures ?? NaN,
        downTries,
        downPending: down.filter((e) => e.state === "pending").length,
        dropped,
        leftPending: left,
        ownDrain: Object.entries(requests).reduce((sum, [app, n]) => sum + n - (byWorkers[app] ?? 0), 0),
        ...Object.fromEntries(UP.map((app) => [`${app} requests`, requests[app] ?? 0])),
      },
    });
  } finally {
    Object.assign(deps, own);
    await Promise.all(subscribed.map((app) => removeHook(deps, app).catch(() => undefined)));
    await Promise.all(receivers.map(closeReceiver));
  }
}
