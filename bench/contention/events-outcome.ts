/**
 * What the events scenario (11, ./events.ts) found, summed up as a Result: the deliveries each app
 * that answers received against the events published, the outbox's states, and the checks, each
 * marked as a bug where the contract is broken (an event lost or twice at one app, a signature that
 * does not verify, a drain that failed) or as a figure (how much the app that is down cost).
 */
import { check, type Result } from "./context.ts";
import { percentile } from "./measure.ts";
import type { Arrived } from "./receivers.ts";

/** The outbox states of `entries`, counted as `<prefix> <state>`. */
export function states(prefix: string, entries: any[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of entries)
    counts[`${prefix} ${e?.state ?? "missing"}`] = (counts[`${prefix} ${e?.state ?? "missing"}`] ?? 0) + 1;
  return counts;
}

/** What the run found, summed up and checked. */
export function outcome(run: {
  /** Events published; each app that answers should have every one. */
  events: number;
  apps: Arrived[];
  errors: string[];
  drainMs: number;
  wallMs: number;
  statuses: Record<string, number>;
  transactions: Result["transactions"];
  lost: number;
  entries: Array<readonly [string, number]>;
  facts: Record<string, number>;
}): Result {
  const { events, apps, errors, drainMs, facts } = run;
  const sum = (f: (a: Arrived) => number) => apps.reduce((total, a) => total + f(a), 0);
  const received = sum((a) => a.received);
  const duplicates = sum((a) => a.duplicates);
  const bad = sum((a) => a.badSignatures);
  const expected = apps.length * events;
  const latency = apps.flatMap((a) => a.latency);
  const p99 = percentile(latency, 99);
  const wrongCount = run.entries.filter(([, n]) => n !== events).map(([app, n]) => `${app} ${n}`);
  const perApp = (f: (a: Arrived) => number) => apps.map((a) => `${a.app} ${f(a)}`).join(", ");
  const seconds = Math.round(drainMs / 1000);
  return {
    id: "11",
    title: `${events.toLocaleString("en")} events to ${apps.length + 1} apps, one of them down`,
    requests: events,
    statuses: run.statuses,
    successes: received,
    expected: `${expected.toLocaleString("en")}, each once`,
    exact: received === expected && duplicates === 0 && bad === 0,
    p50: percentile(latency, 50),
    p99,
    rate: received / (drainMs / 1000),
    transactions: run.transactions,
    checks: [
      // Missing because the five minutes ran out is a figure; marked sent and never received, or given up, is lost.
      check(
        "every event reached each app that answers",
        received === expected,
        `${received} of ${expected} in ${seconds} s` +
          (run.lost > 0 ? `, ${run.lost} marked sent or given up and never received` : ""),
        run.lost > 0,
      ),
      check("one delivery of each event per app", wrongCount.length === 0, wrongCount.join(", ") || "yes"),
      // Every answer was a 204 and none was lost on the way, so nothing had cause to come twice.
      check(
        "no event twice at one app",
        duplicates === 0,
        perApp((a) => a.duplicates),
      ),
      check("every signature verifies", bad === 0, `${bad} did not`),
      check(
        "nothing came that was not published",
        sum((a) => a.strangers) === 0,
        perApp((a) => a.strangers),
      ),
      check("drains that failed", errors.length === 0, errors.length === 0 ? "none" : `${errors.length}: ${errors[0]}`),
      check(
        "the down app held nobody back (each delivery to the others went at its first try)",
        facts.retried === 0,
        `${facts.retried} tried again; p99 from publishing to arrival ${Math.round(p99).toLocaleString("en")} ms, ` +
          `over a drain of ${seconds} s`,
        false,
      ),
      check(
        `requests to the down app far fewer than its ${events} events`,
        (facts.downRequests ?? 0) * 20 <= events,
        `${facts.downRequests} requests, its deliveries handled ${facts.downTries} times`,
        false,
      ),
      check(
        "nothing of it left pending for the scenarios after it",
        facts.leftPending === 0,
        `${facts.leftPending} still pending`,
        false,
      ),
    ],
    wallMs: run.wallMs,
    facts: {
      ...facts,
      events,
      drainS: drainMs / 1000,
      received,
      duplicates,
      badSignatures: bad,
      ...Object.fromEntries(
        apps.flatMap((a) => [
          [`${a.app} received`, a.received],
          [`${a.app} duplicates`, a.duplicates],
          [`${a.app} p50`, a.p50],
          [`${a.app} p99`, a.p99],
        ]),
      ),
    },
  };
}
