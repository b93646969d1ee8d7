/**
 * The send ledger (`sends/<id>`, one record per send let through) read back: the sends a budget's
 * key holds, the busiest minute over a span (what the service's budget bounds), and a wait until
 * the service's minute holds nothing, so that a scenario starts with that budget whole.
 */
import { service } from "../lib/functions.ts";
import type { Context } from "./context.ts";

const { budgetId } = service<any>("core/pepper");
const { systemClock } = service<any>("clock");

const MINUTE = 60_000;

/** A budget's key as the ledger holds it (a keyed hash under the first CODE_PEPPER key). */
export const budgetKey = (ctx: Context, scope: string, subject: string): string =>
  budgetId(ctx.svc.deps.pepper[0], scope, subject);

export interface Sent {
  /** The service's clock when the send was recorded (ms), as the windows count it. */
  at: number;
  used: number;
}

/** Sends recorded after `since` (all of them, or those of one budget's key), oldest first. */
export async function ledger(ctx: Context, since: Date, of?: { scope: string; key: string }): Promise<Sent[]> {
  let query = ctx.svc.store.collection("sends").where("at", ">", since);
  if (of !== undefined) query = query.where(of.scope, "==", of.key);
  const snap = await query.get();
  return snap.docs
    .map((d: any) => ({ at: d.get("at").toMillis() as number, used: Number(d.get("used") ?? 0) }))
    .sort((a: Sent, b: Sent) => a.at - b.at);
}

/** The most of `times` (ms) inside any minute, as the budgets count one: (t − 60 s, t]. */
export function busiestMinute(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let lo = 0, hi = 0; hi < sorted.length; hi++) {
    while ((sorted[lo] as number) <= (sorted[hi] as number) - MINUTE) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** The key of the service's own budget, which every send of this service counts against. */
export const serviceKey = (ctx: Context): { scope: string; key: string } => ({
  scope: "service",
  key: budgetKey(ctx, "service", "all"),
});

/** Waits until this service's newest send has left its minute; resolves to how long that took (ms). */
export async function freshMinute(ctx: Context): Promise<number> {
  const { scope, key } = serviceKey(ctx);
  const newestFirst = ctx.svc.store.collection("sends").where(scope, "==", key).orderBy("at", "desc").limit(1);
  const newest = (await newestFirst.get()).docs[0]?.get("at")?.toMillis() as number | undefined;
  const wait = newest === undefined ? 0 : Math.max(0, newest + MINUTE + 50 - systemClock.now().getTime());
  await new Promise((resolve) => setTimeout(resolve, wait));
  return wait;
}

/** New documents in `collection` while `work` ran (a count before and after). */
export async function added<T>(ctx: Context, collection: string, work: () => Promise<T>): Promise<[T, number]> {
  const count = async () => (await ctx.svc.store.collection(collection).count().get()).data().count as number;
  const before = await count();
  const result = await work();
  return [result, (await count()) - before];
}
