/**
 * What the service refused, counted for the health report (core/status/report): a request for an
 * email code refused (by which budget or limit), and a sign-in refused (by why). Nothing else the
 * service keeps says how often these happen, so they are counted as they happen, and never on
 * the path the request waits on: each instance adds its counts up in memory and writes them to a
 * document of its own for the hour (store/health-counts), one write at a time, the counts made
 * meanwhile going in the next. No document is written by two requests at once, nor by two
 * instances; a flood of refusals costs an instance one write in flight, not one per refusal.
 *
 * The bound: what an instance counted since its last write is lost if it stops first, and a write
 * that fails is logged and its counts dropped, so the report's refusals are at most what happened.
 */
import { DAY, HOUR } from "../../clock";
import { errorText } from "../../logger";
import type { Deps } from "../deps";
import type { CountedSeries, HealthCounts } from "../ports";
import * as store from "../../store/health-counts";

/** How long an hour's counts are kept: past the report's longest window (7 days). */
export const COUNTS_KEPT_MS = 8 * DAY;

/** The field of a document that holds `reason`'s count in `series`. */
export const countName = (series: CountedSeries, reason: string): string => `${series}:${reason}`;

type CountDeps = Pick<Deps, "store" | "clock" | "random" | "log">;

/** This instance's counter; `deps` is read when it counts (the deps are built around it). */
export function healthCounts(deps: () => CountDeps): HealthCounts {
  let instance: string | null = null;
  /** Counts not yet written, by the hour's start (ms), then by name. */
  const pending = new Map<number, Map<string, number>>();
  let writing: Promise<void> | null = null;

  async function write(d: CountDeps): Promise<void> {
    instance ??= d.random.id();
    for (let next = pending.entries().next(); !next.done; next = pending.entries().next()) {
      const [hour, counts] = next.value;
      pending.delete(hour);
      const at = new Date(hour);
      try {
        await store.add(d.store, `${at.toISOString()}~${instance}`, at, new Date(hour + COUNTS_KEPT_MS), counts);
      } catch (err) {
        const dropped = [...counts.values()].reduce((a, b) => a + b, 0);
        d.log.warn("health counts not written", { hour: at.toISOString(), dropped, error: errorText(err) });
      }
    }
    writing = null;
  }

  return {
    count(series, reason) {
      const d = deps();
      const hour = Math.floor(d.clock.now().getTime() / HOUR) * HOUR;
      const counts = pending.get(hour) ?? new Map<string, number>();
      pending.set(hour, counts);
      const name = countName(series, reason);
      counts.set(name, (counts.get(name) ?? 0) + 1);
      writing ??= write(d);
    },
    written: () => writing ?? Promise.resolve(),
  };
}
