/**
 * The apps' subscriptions to events, kept by the operator (`npm run operator -- hooks …`): each an
 * app's name, an https address, the event types it hears of, and its signing secrets
 * (Standard Webhooks' `whsec_` form), generated here (or given, by the local stack's seed) and
 * shown once, sealed at rest under CODE_PEPPER (core/seal), never listed. A rotation keeps
 * the old secret signing beside the new one for an overlap, so the app can move to the new one
 * without a delivery it cannot verify.
 */
import { HOUR } from "../../clock";
import * as hooks from "../../store/hooks";
import * as outbox from "../../store/outbox";
import type { Deps } from "../deps";
import { AppError, ensure } from "../errors";
import { enqueue } from "../outbox/enqueue";
import { sealValue, unsealValue } from "../seal";
import { EVENT_TYPES, type EventType, type ServiceEvent } from "../model/event";
import type { Hook, HookSecret } from "../model/hook";
import type { OutboxEntryOf } from "../model/outbox";
import type { Transaction } from "../../store/db";
import { pepperRing } from "../pepper";

export const DEFAULT_SECRET_OVERLAP_MS = 24 * HOUR;
/** How long a delivery is tried before it is dead-lettered (`failed`, listed by `hooks deliveries`). */
export const DELIVERY_TRIED_FOR_MS = 24 * HOUR;

type HookDeps = Pick<Deps, "store" | "clock" | "random" | "pepper" | "transaction"> & {
  config: Pick<Deps["config"], "loopbackHooks">;
};

const APP = /^[a-z0-9][a-z0-9-]{0,62}$/;
const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

export const isAppName = (value: string): boolean => APP.test(value);

/** Whether a subscription to `types` (empty: every event) hears of `type`. */
export function subscribed(types: string[], type: EventType): boolean {
  return types.length === 0 || types.includes(type);
}

/**
 * Why `value` cannot take deliveries, or null: an absolute https address with no credentials or
 * fragment; http only to a loopback address, and only on the emulators (`loopbackHooks`).
 */
export function urlProblem(value: string, loopbackHooks: boolean): string | null {
  if (!URL.canParse(value)) return "not an absolute URL";
  const url = new URL(value);
  if (url.username !== "" || url.password !== "" || value.includes("#")) return "no credentials or fragment";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK.includes(url.hostname))
    return loopbackHooks ? null : "http is taken only on loopback, and only on the emulators";
  return "https only";
}

/** Every type in `types` is one of the catalogue's; empty means every event. */
export function checkTypes(types: string[]): EventType[] {
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  ensure(
    unknown.length === 0,
    "hook_invalid",
    `unknown event type: ${unknown.join(", ")} (one of ${EVENT_TYPES.join(", ")})`,
  );
  return [...new Set(types)] as EventType[];
}

/**
 * Why `value` cannot be a subscription's secret, or null: Standard Webhooks' form, `whsec_` and
 * the base64 of a key of 24 to 64 bytes (the spec's bounds), so a given key is no weaker than a
 * generated one. The canonical base64 alone: what the app is given is what signs.
 */
export function secretProblem(value: string): string | null {
  const base64 = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value)?.[1];
  if (base64 === undefined) return "whsec_ and a base64 key (Standard Webhooks)";
  const key = Buffer.from(base64, "base64");
  if (key.toString("base64") !== base64) return "the key is not canonical base64";
  return key.length >= 24 && key.length <= 64 ? null : "the key is 24 to 64 bytes";
}

/** A secret as stored: sealed under the pepper, never in the clear. */
function sealedSecret(deps: Pick<Deps, "random" | "pepper">, value: string, now: Date): HookSecret {
  return { sealed: sealValue(pepperRing(deps), deps.random, value, "hook-secret-v1"), createdAt: now, expiresAt: null };
}

/** A new signing secret: `whsec_` and 32 random bytes, base64 (Standard Webhooks). */
function newSecret(deps: Pick<Deps, "random" | "pepper">, now: Date): { value: string; stored: HookSecret } {
  const value = `whsec_${Buffer.from(deps.random.token(32), "base64url").toString("base64")}`;
  return { value, stored: sealedSecret(deps, value, now) };
}

/** Whether a secret still signs at `now`: the current one, or a rotated one inside its overlap. */
const signsAt = (secret: HookSecret, now: Date): boolean =>
  secret.expiresAt === null || secret.expiresAt.getTime() > now.getTime();

/** The secrets of `hook` that sign a delivery at `now`, newest first; one the pepper no longer opens is left out. */
export function signingSecrets(deps: Pick<Deps, "pepper">, hook: Hook, now: Date): string[] {
  return hook.secrets
    .filter((s) => signsAt(s, now))
    .map((s) => unsealValue(pepperRing(deps), s.sealed, "hook-secret-v1"))
    .filter((v): v is string => typeof v === "string");
}

export function unknownHook(app: string): AppError {
  return new AppError("hook_not_found", `No subscription for the app "${app}"`);
}

/**
 * Subscribes `app`: its secret is returned this once. The secret is made here unless `secret`
 * gives one (the local stack's seed, whose receiver knows it beforehand); either is sealed alike.
 */
export async function addHook(
  deps: HookDeps,
  input: { app: string; url: string; events: string[]; secret?: string },
): Promise<{ hook: Hook; secret: string }> {
  ensure(isAppName(input.app), "hook_invalid", "an app's name is 1-63 of a-z 0-9 -, starting with a letter or digit");
  const problem = urlProblem(input.url, deps.config.loopbackHooks);
  ensure(problem === null, "hook_invalid", `url: ${problem}`);
  const given = input.secret === undefined ? null : secretProblem(input.secret);
  ensure(given === null, "hook_invalid", `secret: ${given}`);
  const now = deps.clock.now();
  const { value, stored } =
    input.secret === undefined
      ? newSecret(deps, now)
      : { value: input.secret, stored: sealedSecret(deps, input.secret, now) };
  const hook: Hook = {
    app: input.app,
    url: input.url,
    events: checkTypes(input.events),
    secrets: [stored],
    disabled: false,
    createdAt: now,
    failures: 0,
    pausedUntil: null,
    lastError: null,
    lastSuccessAt: null,
  };
  try {
    await hooks.create(deps.store, hook);
  } catch (err) {
    if ((err as { code?: unknown }).code === 6) throw new AppError("hook_exists");
    throw err;
  }
  return { hook, secret: value };
}

async function update(deps: HookDeps, app: string, change: (hook: Hook, now: Date) => Hook): Promise<Hook> {
  return deps.transaction(async (tx) => {
    const hook = await hooks.find(deps.store, app, tx);
    if (hook === null) throw unknownHook(app);
    const next = change(hook, deps.clock.now());
    hooks.save(deps.store, tx, next);
    return next;
  });
}

/** A new secret, returned once; the ones before it keep signing for `overlapMs` (0: they stop now). */
export async function rotateHookSecret(
  deps: HookDeps,
  app: string,
  overlapMs: number,
): Promise<{ hook: Hook; secret: string }> {
  let secret = "";
  const hook = await update(deps, app, (h, now) => {
    const fresh = newSecret(deps, now);
    secret = fresh.value;
    const until = new Date(now.getTime() + overlapMs);
    const kept = h.secrets
      .filter((s) => s.expiresAt === null || s.expiresAt.getTime() > now.getTime())
      .map((s) => ({ ...s, expiresAt: s.expiresAt !== null && s.expiresAt < until ? s.expiresAt : until }));
    return { ...h, secrets: [fresh.stored, ...(overlapMs > 0 ? kept : [])] };
  });
  return { hook, secret };
}

/** Disabled, nothing is delivered to it (events meanwhile are not kept for it); enabled, its health starts afresh. */
export function setHookEnabled(deps: HookDeps, app: string, enabled: boolean): Promise<Hook> {
  return update(deps, app, (h) =>
    enabled ? { ...h, disabled: false, failures: 0, pausedUntil: null } : { ...h, disabled: true },
  );
}

export async function removeHook(deps: HookDeps, app: string): Promise<void> {
  await deps.transaction(async (tx) => {
    if ((await hooks.find(deps.store, app, tx)) === null) throw unknownHook(app);
    hooks.remove(deps.store, tx, app);
  });
}

export const listHooks = (deps: Pick<Deps, "store">): Promise<Hook[]> => hooks.list(deps.store);
export const findHook = (deps: Pick<Deps, "store">, app: string): Promise<Hook | null> => hooks.find(deps.store, app);

/**
 * The apps with a signing secret sealed under the CODE_PEPPER key `kid`: once that key leaves the
 * ring their secrets cannot be opened, and their events go unsigned (`keys retire-code-pepper`
 * asks this first). Secrets whose overlap has ended sign nothing, so they do not count.
 */
export async function appsSealedUnder(deps: Pick<Deps, "store" | "clock">, kid: string): Promise<string[]> {
  const now = deps.clock.now();
  return (await hooks.list(deps.store))
    .filter((h) => h.secrets.some((s) => s.sealed.kid === kid && signsAt(s, now)))
    .map((h) => h.app);
}

/**
 * Seals every secret that still signs again under the pepper's first key: before a pepper key is
 * retired. How many were, and the apps with one this ring could not open (left as it was: the
 * ring given is not the one in place, or lacks the key they are sealed under).
 */
export async function resealHooks(deps: HookDeps): Promise<{ resealed: number; unopened: string[] }> {
  const ring = pepperRing(deps);
  let resealed = 0;
  const unopened: string[] = [];
  for (const hook of await hooks.list(deps.store)) {
    // Counted from the attempt that commits: a retried transaction counts afresh.
    let counts = { resealed: 0, unopened: 0 };
    await update(deps, hook.app, (h, now) => {
      counts = { resealed: 0, unopened: 0 };
      const secrets = h.secrets.map((s) => {
        if (s.sealed.kid === ring[0]?.kid || !signsAt(s, now)) return s;
        const value = unsealValue(ring, s.sealed, "hook-secret-v1");
        if (typeof value !== "string") {
          counts.unopened++;
          return s;
        }
        counts.resealed++;
        return { ...s, sealed: sealValue(ring, deps.random, value, "hook-secret-v1") };
      });
      return { ...h, secrets };
    });
    resealed += counts.resealed;
    if (counts.unopened > 0) unopened.push(hook.app);
  }
  return { resealed, unopened };
}

/** The app's latest deliveries, newest first: each event's id and type, its state, attempts and last failure. */
export async function hookDeliveries(
  deps: Pick<Deps, "store">,
  app: string,
  limit = 50,
): Promise<OutboxEntryOf<"delivery">[]> {
  return outbox.ofKindAbout(deps.store, "delivery", app, limit);
}

/** Queues a delivery of `event` to `hook`, in `tx`. */
export function queueDelivery(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  hook: Pick<Hook, "app">,
  event: ServiceEvent,
): void {
  enqueue(deps, tx, {
    kind: "delivery",
    about: hook.app,
    event,
    deliverBy: new Date(deps.clock.now().getTime() + DELIVERY_TRIED_FOR_MS),
  });
}

/**
 * Sends an event again to one app, or to every app subscribed to it (`app` null), whatever became
 * of its earlier deliveries: a new delivery each, with the event's own id, so a receiver that has
 * it already drops it. The operator asks once the app is back: its endpoint's rest ends, so the
 * delivery is tried at once. Returns the apps it was queued for.
 */
export async function redeliver(deps: HookDeps, eventId: string, app: string | null): Promise<string[]> {
  return deps.transaction(async (tx) => {
    const entry = await outbox.findOf(deps.store, "event", eventId, tx);
    if (entry === null)
      throw new AppError("hook_invalid", `no event ${eventId} is kept (events are kept a week past their fan-out)`);
    const event = entry.event;
    const all = await hooks.list(deps.store, tx);
    const chosen =
      app === null
        ? all.filter((h) => !h.disabled && subscribed(h.events, event.type))
        : all.filter((h) => h.app === app);
    if (app !== null && chosen.length === 0) throw unknownHook(app);
    for (const hook of chosen) {
      queueDelivery(deps, tx, hook, event);
      hooks.recordHealth(deps.store, tx, hook.app, { failures: 0, pausedUntil: null });
    }
    return chosen.map((h) => h.app);
  });
}
