/**
 * The service's health over a window, for its administrators (GET /auth/health, the identity
 * host's `/health`, `npm run operator -- status --since`): sign-ins by way in and codes by
 * outcome per hour (24 hours) or per day (7 days), and, as they stand now, the people waiting for
 * review, the outbox per lane, deliveries given up per app and unfinished erasures.
 *
 * Computed from what the service already keeps, with no write to tell: sessions (opened when,
 * how), the outbox's entries (kept a week past their last chance), the review queue and the
 * erasures; and the refusals of code requests and sign-ins, which nothing else keeps, from the
 * counts each instance writes apart from the requests (core/status/health-counts). Each read is
 * capped (READ_CAP), newest first: past it the report says `partial`, its counts are lower
 * bounds, and what is left out is the window's oldest part, never its last hours.
 */
import { DAY, HOUR } from "../../clock";
import type { Deps } from "../deps";
import * as outbox from "../../store/outbox";
import * as sessions from "../../store/sessions";
import { unfinishedErasures } from "../../store/personal-data";
import * as healthCounts from "../../store/health-counts";
import { countName } from "./health-counts";
import type { CountedSeries } from "../ports";
import { reviewQueue } from "../people/find-people";
import { AMR } from "../sessions/amr";
import { secondsSince } from "./health";
import { RECOVERY_METHOD } from "../model/passkey-rule";
import type { OutboxLane } from "../model/outbox";
import type { HealthReport, ReportWindow, Way } from "../model/health-report";

export const REPORT_WINDOWS = {
  "24h": { span: DAY, bucket: HOUR },
  "7d": { span: 7 * DAY, bucket: DAY },
} as const;
export type { HealthReport, ReportWindow, Way };

/** At most this many documents are read for each series. */
export const READ_CAP = 5000;

const WAYS: readonly Way[] = ["passkey", "code", "provider", "password", "recovery code", "other"];
const LANES: readonly OutboxLane[] = ["mail", "apps", "bulk"];

/** How a sign-in began, from its session's methods (RFC 8176, core/sessions/amr). */
export function wayOf(amr: readonly string[]): Way {
  if (amr.includes(AMR.hardwareKey) || amr.includes(AMR.softwareKey)) return "passkey";
  if (amr.includes(RECOVERY_METHOD)) return "recovery code";
  if (amr.includes(AMR.otp)) return "code";
  if (amr.includes(AMR.federated)) return "provider";
  if (amr.includes(AMR.password)) return "password";
  return "other";
}

/** The window's buckets: it ends at the end of the current hour (or day, UTC), so each bucket is whole. */
export function windowOf(window: ReportWindow, now: Date): { from: Date; to: Date; starts: Date[] } {
  const { span, bucket } = REPORT_WINDOWS[window];
  const to = new Date(Math.ceil((now.getTime() + 1) / bucket) * bucket);
  const from = new Date(to.getTime() - span);
  const starts = Array.from({ length: span / bucket }, (_, i) => new Date(from.getTime() + i * bucket));
  return { from, to, starts };
}

/** The bucket of `size` from `from` that `at` falls in, of `buckets`; null outside them. */
function bucketOf(at: Date, from: Date, size: number, buckets: number): number | null {
  const i = Math.floor((at.getTime() - from.getTime()) / size);
  return i >= 0 && i < buckets ? i : null;
}

/** Counts `items` into buckets of `size` from `from` (those outside are left out). */
function counted<T>(items: readonly T[], at: (item: T) => Date, from: Date, size: number, buckets: number): number[] {
  const counts = new Array<number>(buckets).fill(0);
  for (const item of items) {
    const i = bucketOf(at(item), from, size, buckets);
    if (i !== null) counts[i] = (counts[i] ?? 0) + 1;
  }
  return counts;
}

/** One series of counted refusals, per reason, into the window's buckets: most first, only reasons with any. */
function refusedIn(
  hours: ReadonlyArray<{ hour: Date; counts: Record<string, number> }>,
  series: CountedSeries,
  from: Date,
  size: number,
  n: number,
): Array<{ reason: string; counts: number[] }> {
  const prefix = countName(series, "");
  const byReason = new Map<string, number[]>();
  for (const { hour, counts } of hours) {
    const i = bucketOf(hour, from, size, n);
    if (i === null) continue;
    for (const [name, count] of Object.entries(counts)) {
      if (!name.startsWith(prefix)) continue;
      const reason = name.slice(prefix.length);
      const buckets = byReason.get(reason) ?? new Array<number>(n).fill(0);
      buckets[i] = (buckets[i] ?? 0) + count;
      byReason.set(reason, buckets);
    }
  }
  const total = (c: number[]) => c.reduce((a, b) => a + b, 0);
  return [...byReason]
    .map(([reason, counts]) => ({ reason, counts }))
    .filter((r) => total(r.counts) > 0)
    .sort((a, b) => total(b.counts) - total(a.counts) || a.reason.localeCompare(b.reason));
}

export async function healthReport(deps: Pick<Deps, "store" | "clock">, window: ReportWindow): Promise<HealthReport> {
  const now = deps.clock.now();
  const { from, to, starts } = windowOf(window, now);
  const size = REPORT_WINDOWS[window].bucket;
  const n = starts.length;
  const [opened, codes, deliveries, queue, lanes, erasures, hours] = await Promise.all([
    sessions.openedSince(deps.store, from, READ_CAP),
    outbox.queuedSince(deps.store, "code", from, READ_CAP),
    outbox.queuedSince(deps.store, "delivery", from, READ_CAP),
    reviewQueue(deps, 1, null),
    Promise.all(LANES.map(async (lane) => ({ lane, ...(await outbox.laneBacklog(deps.store, lane)) }))),
    unfinishedErasures(deps.store),
    healthCounts.since(deps.store, from, READ_CAP),
  ]);
  const signIns = WAYS.map((way) => ({
    way,
    counts: counted(
      opened.filter((s) => wayOf(s.amr) === way),
      (s) => s.openedAt,
      from,
      size,
      n,
    ),
  })).filter((series) => series.counts.some((c) => c > 0));
  const codesIn = (state: string) =>
    counted(
      codes.filter((c) => c.state === state),
      (c) => c.createdAt,
      from,
      size,
      n,
    );
  const givenUp = new Map<string, number>();
  for (const d of deliveries)
    if (d.state === "failed" && d.about !== null) givenUp.set(d.about, (givenUp.get(d.about) ?? 0) + 1);
  const oldestPerson = queue.people[0];
  return {
    window,
    from: from.toISOString(),
    to: to.toISOString(),
    buckets: starts.map((s) => s.toISOString()),
    signIns,
    codes: { sent: codesIn("sent"), givenUp: codesIn("failed"), notNeeded: codesIn("none") },
    refused: { codes: refusedIn(hours, "codes", from, size, n), signIns: refusedIn(hours, "signIns", from, size, n) },
    deliveriesGivenUp: [...givenUp]
      .map(([app, count]) => ({ app, count }))
      .sort((a, b) => b.count - a.count || a.app.localeCompare(b.app)),
    waiting: {
      people: queue.waiting,
      oldestSeconds: oldestPerson === undefined ? null : secondsSince(oldestPerson.createdAt, now),
    },
    outbox: lanes.map((l) => ({ lane: l.lane, pending: l.pending, oldestSeconds: secondsSince(l.oldest, now) })),
    erasures: {
      unfinished: erasures.length,
      oldestSeconds: secondsSince(erasures[0]?.startedAt ?? null, now),
    },
    partial: [opened, codes, deliveries, hours].some((read) => read.length >= READ_CAP),
  };
}
