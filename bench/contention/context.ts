/**
 * What every scenario is given (the service in this process, the inbox, the administrator's
 * session) and what it gives back: its answers summed up and the checks of the stored state
 * after it, each marked as a bug where the contract is broken (a 500, a double success, a lost
 * write, a limit exceeded).
 */
import { service } from "../lib/functions.ts";
import type { Inbox } from "./inbox.ts";
import { call, firstUnavailable, percentile, tally, throughput, until, type Answer } from "./measure.ts";
import type { Service, TransactionCounts } from "./service.ts";

const { addressIds } = service<any>("core/pepper");

export interface Context {
  svc: Service;
  inbox: Inbox;
  /** The Cookie header of an approved administrator's session. */
  adminCookie: string;
}

export interface Check {
  what: string;
  ok: boolean;
  /** Broken contract rather than a figure short of its goal. */
  bug: boolean;
  detail: string;
}

export interface Result {
  id: string;
  title: string;
  requests: number;
  statuses: Record<string, number>;
  successes: number;
  expected: string;
  exact: boolean;
  p50: number;
  p99: number;
  /** Requests (or mails) per second. */
  rate: number;
  /** Bursts only: the rate reached when the first 503 was answered, null for none. */
  first503?: { rate: number; sent: number } | null;
  transactions: Omit<TransactionCounts, "running">;
  checks: Check[];
  /** From the first request to the stored state settled. */
  wallMs: number;
  /** Figures the scenario's paragraph under the table reads (scale-report.ts). */
  facts?: Record<string, number>;
}

/** One emulator's run of every scenario. */
export interface Phase {
  /** "official" or "stand-in". */
  name: string;
  results: Result[];
  logged: Record<string, number>;
}

export const check = (what: string, ok: boolean, detail: string, bug = true): Check => ({ what, ok, bug, detail });

/** Every scenario's answers are checked for 500s and for no answer at all. */
export function answeredChecks(answers: Answer[]): Check[] {
  const errors = answers.filter((a) => a.status >= 500 && a.status !== 503).length;
  const none = answers.filter((a) => a.status === 0).length;
  return [
    check("no 500", errors === 0, errors === 0 ? "none" : `${errors} answers of 500 or above (not 503)`),
    check("every request answered", none === 0, none === 0 ? "all" : `${none} without an answer within 30 s`),
  ];
}

/** The answers of one scenario, summed up, with the transactions it caused (counted from `before`). */
export function summary(
  head: Pick<Result, "id" | "title" | "expected">,
  answers: Answer[],
  successes: number,
  exact: boolean,
  before: TransactionCounts,
  after: TransactionCounts,
  checks: Check[],
  wallMs: number,
): Result {
  const ms = answers.map((a) => a.ms);
  return {
    ...head,
    requests: answers.length,
    statuses: tally(answers),
    successes,
    exact,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    rate: throughput(answers),
    transactions: {
      runs: after.runs - before.runs,
      attempts: after.attempts - before.attempts,
      failed: after.failed - before.failed,
    },
    checks: [...answeredChecks(answers), ...checks],
    wallMs,
  };
}

export const snapshot = (svc: Service): TransactionCounts => ({ ...svc.counts });

/**
 * Waits (up to 2 min) until no transaction is in flight and no mail task is running or due:
 * requests answered 503 at their deadline go on in the background, and so does the mail they queued.
 */
export function settle(svc: Service): Promise<boolean> {
  return until(() => svc.counts.running === 0 && !svc.mailTasks.busy(), 120_000);
}

/** POST /auth/otp/send from the client at `ip` (X-Forwarded-For, as the CDN passes it on). */
export function send(ctx: Context, email: string, ip: string, purpose?: string): Promise<Answer> {
  const body = purpose === undefined ? { email } : { email, purpose };
  return call(ctx.svc.base, "POST", "/auth/otp/send", { body, headers: { "x-forwarded-for": ip } });
}

/** The document id of an address's code and limits (a keyed hash of it). */
export const addressId = (ctx: Context, address: string): string => addressIds(ctx.svc.deps.pepper, address)[0];

/** Stored documents of `collection`, by id, null where absent. */
export async function docs(
  ctx: Context,
  collection: string,
  ids: string[],
): Promise<Array<Record<string, any> | null>> {
  const { store } = ctx.svc;
  if (ids.length === 0) return [];
  const snaps = await store.getAll(...ids.map((id) => store.collection(collection).doc(id)));
  return snaps.map((s: any) => (s.exists ? (s.data() as Record<string, any>) : null));
}

export const count = (answers: Answer[], status: number): number => answers.filter((a) => a.status === status).length;

export { firstUnavailable };
