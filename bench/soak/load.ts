/**
 * Virtual users: each owns a disjoint slice of the fixture (so the sends, codes and guesses at an
 * address form one sequence the invariants can follow) and runs weighted scenarios back to back
 * with a short think time, until told to stop. The runner can pause them (no new scenario starts)
 * to re-seed Firestore after its restart or to read a consistent stored state.
 */
import type { FixturePerson } from "./fixture.ts";
import type { LoadContext } from "./context.ts";
import { scenarios, type User } from "./scenarios.ts";

export class Control {
  stopped = false;
  inFlight = 0;
  private gate: Promise<void> | null = null;
  private release: () => void = () => {};

  pause(): void {
    this.gate ??= new Promise<void>((resolve) => (this.release = resolve));
  }
  resume(): void {
    this.gate = null;
    this.release();
  }
  waitOpen(): Promise<void> {
    return this.gate ?? Promise.resolve();
  }
  /** Waits until no scenario is running, at most `ms`; false when some still are. */
  async drained(ms: number): Promise<boolean> {
    const deadline = performance.now() + ms;
    while (this.inFlight > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return this.inFlight === 0;
  }
}

export const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function skip(ctx: LoadContext, err: unknown): void {
  const what = (err instanceof Error ? err.message : String(err)).replace(/[0-9a-f]{8,}|\d+/gi, "#").slice(0, 120);
  ctx.skipped.set(what, (ctx.skipped.get(what) ?? 0) + 1);
}

async function runUser(ctx: LoadContext, control: Control, user: User): Promise<void> {
  const total = scenarios.reduce((sum, s) => sum + s.weight, 0);
  while (!control.stopped) {
    await control.waitOpen();
    if (control.stopped) break;
    let roll = Math.random() * total;
    const scenario = scenarios.find((s) => (roll -= s.weight) < 0) ?? scenarios[0];
    control.inFlight++;
    try {
      await scenario?.run(ctx, user);
    } catch (err) {
      skip(ctx, err);
    } finally {
      control.inFlight--;
    }
    await pause(20 + Math.random() * 130);
  }
}

/** Starts `users` virtual users over `people`; resolves when every one has stopped. */
export function startLoad(ctx: LoadContext, control: Control, people: FixturePerson[], users: number): Promise<void> {
  const all = Array.from({ length: users }, (_, index): User => ({
    index,
    // Each virtual user sends from a network (a /24) of its own, as people behind Hosting do.
    network: `198.${18 + Math.floor(index / 256)}.${index % 256}.1`,
    own: people.filter((_, i) => i % users === index),
    tokens: new Map(),
    cookies: new Map(),
    lastSent: new Map(),
    made: 0,
    bridgeAccounts: [],
  }));
  return Promise.all(all.map((u) => runUser(ctx, control, u))).then(() => undefined);
}
