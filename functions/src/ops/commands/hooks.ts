/** `hooks …`: the apps' subscriptions to events, through core/events/hooks. */
import {
  addHook,
  DEFAULT_SECRET_OVERLAP_MS,
  findHook,
  hookDeliveries,
  listHooks,
  redeliver,
  removeHook,
  resealHooks,
  rotateHookSecret,
  setHookEnabled,
  unknownHook,
} from "../../core/events/hooks";
import type { Hook } from "../../core/model/hook";
import { parsePepper } from "../../core/pepper";
import type { OutboxEntryOf, OutboxState } from "../../core/model/outbox";
import { many, one, parseDuration, type Command } from "../cli";
import type { Context } from "../context";
import { table } from "../output";
import { Refusal } from "../refusals";
import { currentValue } from "../secret-values";

function view(h: Hook) {
  return {
    app: h.app,
    url: h.url,
    events: h.events.length === 0 ? ["*"] : h.events,
    disabled: h.disabled,
    // Never the secrets: when each was made and until when it signs.
    secrets: h.secrets.map((s) => ({
      createdAt: s.createdAt.toISOString(),
      expiresAt: s.expiresAt?.toISOString() ?? null,
    })),
    failures: h.failures,
    pausedUntil: h.pausedUntil?.toISOString() ?? null,
    lastError: h.lastError,
    lastSuccessAt: h.lastSuccessAt?.toISOString() ?? null,
    createdAt: h.createdAt.toISOString(),
  };
}

const state = (h: Hook, now: Date) =>
  h.disabled ? "disabled" : h.pausedUntil !== null && h.pausedUntil > now ? "paused" : "enabled";

function describe(h: Hook, now: Date): string {
  const v = view(h);
  return [
    `app: ${v.app}`,
    `url: ${v.url}`,
    `events: ${v.events.join(", ")}`,
    `status: ${state(h, now)}${v.failures > 0 ? ` (${v.failures} failed in a row, last: ${v.lastError})` : ""}`,
    ...v.secrets.map((s) => `secret: made ${s.createdAt}${s.expiresAt ? `, signs until ${s.expiresAt}` : ""}`),
    `last delivered: ${v.lastSuccessAt ?? "never"}`,
    `created: ${v.createdAt}`,
  ].join("\n");
}

/**
 * A delivery's states, each by the one name `hooks deliveries` shows (its outbox entry's state
 * beside it), and what it means; docs/operating.md lists them from here.
 */
export const DELIVERY_STATES = {
  sent: { shown: "delivered", means: "the app took it (a `2xx`)" },
  pending: { shown: "pending", means: "not taken yet: tried again after the backoff" },
  failed: { shown: "dead", means: "given up (its attempts or its day spent); `hooks redeliver` sends it again" },
} as const satisfies Partial<Record<OutboxState, { shown: string; means: string }>>;

const shownState = (state: OutboxState): string =>
  state in DELIVERY_STATES ? DELIVERY_STATES[state as keyof typeof DELIVERY_STATES].shown : state;

function deliveryView(d: OutboxEntryOf<"delivery">) {
  return {
    deliveryId: d.id,
    eventId: d.event?.id ?? null,
    type: d.event?.type ?? null,
    personId: d.event?.personId ?? null,
    state: shownState(d.state),
    attempts: d.attempts,
    lastError: d.lastError,
    createdAt: d.createdAt.toISOString(),
    deliveredAt: d.sentAt?.toISOString() ?? null,
    nextAttemptAt: d.state === "pending" ? d.nextAttemptAt.toISOString() : null,
  };
}

const secretNote =
  "The secret is shown this once; it is stored sealed. The app verifies each delivery's webhook-signature with it (Standard Webhooks).";

function shown(ctx: Context, hook: Hook, secret?: string): void {
  const now = ctx.deps().clock.now();
  if (secret === undefined) ctx.print(describe(hook, now), view(hook));
  else ctx.print(`${describe(hook, now)}\nsecret: ${secret}`, { hook: view(hook), secret });
}

const backend = true;

export const hookCommands: Command[] = [
  {
    name: "hooks add",
    audited: true,
    summary: "subscribe an app to events (every one unless --event names some); prints its secret once",
    usage: "hooks add <app> <https url> [--event <type>...]",
    options: { event: { type: "string", multiple: true } },
    positionals: [2, 2],
    backend,
    async run(ctx, [app, url], values) {
      const { hook, secret } = await addHook(ctx.deps(), {
        app: app as string,
        url: url as string,
        events: many(values, "event"),
      });
      shown(ctx, hook, secret);
      ctx.note(secretNote);
    },
  },
  {
    name: "hooks list",
    summary: "every subscription, with its health (never a secret)",
    usage: "hooks list",
    positionals: [0, 0],
    backend,
    async run(ctx) {
      const all = await listHooks(ctx.deps());
      const now = ctx.deps().clock.now();
      const columns = [
        { header: "APP", value: (h: Hook) => h.app },
        { header: "STATUS", value: (h: Hook) => state(h, now) },
        { header: "EVENTS", value: (h: Hook) => (h.events.length === 0 ? "*" : String(h.events.length)) },
        { header: "LAST DELIVERED", value: (h: Hook) => h.lastSuccessAt?.toISOString() ?? "never" },
        { header: "URL", value: (h: Hook) => h.url },
      ];
      ctx.print(table(all, columns, "(no subscriptions)"), all.map(view));
    },
  },
  {
    name: "hooks show",
    summary: "one subscription: its events, health and secrets' dates (never the secrets)",
    usage: "hooks show <app>",
    positionals: [1, 1],
    backend,
    async run(ctx, [app]) {
      const hook = await findHook(ctx.deps(), app as string);
      if (hook === null) throw unknownHook(app as string);
      shown(ctx, hook);
    },
  },
  {
    name: "hooks rotate-secret",
    audited: true,
    summary: "a new secret, printed once; the old ones keep signing for the overlap (default 24h)",
    usage: "hooks rotate-secret <app> [--overlap <duration, e.g. 24h, 0s: asks first>] [--yes]",
    options: { overlap: { type: "string" } },
    positionals: [1, 1],
    backend,
    async run(ctx, [app], values) {
      const overlap = one(values, "overlap");
      const overlapMs = overlap === undefined ? DEFAULT_SECRET_OVERLAP_MS : parseDuration(overlap);
      if (overlapMs === 0) await ctx.confirm(`Stop signing ${app as string}'s deliveries with its current secret now?`);
      const { hook, secret } = await rotateHookSecret(ctx.deps(), app as string, overlapMs);
      shown(ctx, hook, secret);
      ctx.note(
        `${secretNote} Both sign each delivery until ${new Date(ctx.deps().clock.now().getTime() + overlapMs).toISOString()}.`,
      );
    },
  },
  {
    name: "hooks disable",
    audited: true,
    summary: "deliver nothing to an app (its events meanwhile are not kept for it)",
    usage: "hooks disable <app>",
    positionals: [1, 1],
    backend,
    async run(ctx, [app]) {
      shown(ctx, await setHookEnabled(ctx.deps(), app as string, false));
    },
  },
  {
    name: "hooks enable",
    audited: true,
    summary: "deliver to an app again, its health afresh",
    usage: "hooks enable <app>",
    positionals: [1, 1],
    backend,
    async run(ctx, [app]) {
      shown(ctx, await setHookEnabled(ctx.deps(), app as string, true));
    },
  },
  {
    name: "hooks remove",
    audited: true,
    summary: "end an app's subscription (asks first)",
    usage: "hooks remove <app> [--yes]",
    positionals: [1, 1],
    backend,
    async run(ctx, [app]) {
      await ctx.confirm(
        `Remove ${app as string}'s subscription? Its secret stops signing, and nothing more is delivered.`,
      );
      await removeHook(ctx.deps(), app as string);
      ctx.print(`removed ${app as string}`, { removed: app });
    },
  },
  {
    name: "hooks deliveries",
    summary: `an app's latest deliveries: each event, its state (${Object.values(DELIVERY_STATES)
      .map((s) => s.shown)
      .join(", ")}) and its last failure`,
    usage: "hooks deliveries <app> [--limit <n>]",
    options: { limit: { type: "string" } },
    positionals: [1, 1],
    backend,
    async run(ctx, [app], values) {
      const limit = Math.min(500, Math.max(1, Number(one(values, "limit") ?? 50) || 50));
      if ((await findHook(ctx.deps(), app as string)) === null) throw unknownHook(app as string);
      const list = (await hookDeliveries(ctx.deps(), app as string, limit)).map(deliveryView);
      const columns = [
        { header: "EVENT", value: (d: ReturnType<typeof deliveryView>) => d.eventId ?? "?" },
        { header: "TYPE", value: (d: ReturnType<typeof deliveryView>) => d.type ?? "?" },
        { header: "STATE", value: (d: ReturnType<typeof deliveryView>) => d.state },
        { header: "ATTEMPTS", value: (d: ReturnType<typeof deliveryView>) => String(d.attempts) },
        { header: "LAST ERROR", value: (d: ReturnType<typeof deliveryView>) => d.lastError ?? "" },
        { header: "QUEUED", value: (d: ReturnType<typeof deliveryView>) => d.createdAt },
      ];
      ctx.print(table(list, columns, "(no deliveries)"), list);
    },
  },
  {
    name: "hooks redeliver",
    audited: true,
    summary: "send an event again, to one app or to every app subscribed to it (the same webhook-id)",
    usage: "hooks redeliver <event id> [--app <app>]",
    options: { app: { type: "string" } },
    positionals: [1, 1],
    backend,
    async run(ctx, [eventId], values) {
      const apps = await redeliver(ctx.deps(), eventId as string, one(values, "app") ?? null);
      ctx.print(apps.length === 0 ? "no app is subscribed to it" : `queued for ${apps.join(", ")}`, { queued: apps });
    },
  },
  {
    name: "hooks reseal",
    audited: true,
    summary: "seal every subscription's secrets under the first CODE_PEPPER key: before retiring an older one",
    usage: "hooks reseal [--from-file <the CODE_PEPPER in place>]",
    // The ring the functions now hold: the local stack's own, or (a real project, whose secrets
    // the CLI never reads) the value the operator set, from the file they set it from.
    options: { "from-file": { type: "string" } },
    positionals: [0, 0],
    backend,
    async run(ctx, _args, values) {
      const pepper = parsePepper(currentValue(ctx, "CODE_PEPPER", one(values, "from-file")));
      const { resealed, unopened } = await resealHooks({ ...ctx.deps(), pepper });
      if (unopened.length > 0)
        throw new Refusal(
          `resealed ${resealed}; the secrets of ${unopened.join(", ")} are sealed under a key this CODE_PEPPER does not hold, and are left as they were: give the value in place`,
        );
      ctx.print(`resealed ${resealed} secret${resealed === 1 ? "" : "s"}`, { resealed });
    },
  },
];
