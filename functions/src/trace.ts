/**
 * The trace a piece of work belongs to: one id from the request that started it to everything it
 * caused, mail included. Each request is given an id of the service's own, new and random (never
 * one a client chose, which could be made to frame another's), which the answer names
 * (`X-Trace-Id`); the outbox keeps it on each entry the request queued, and the drain works on
 * that entry under it again (core/outbox). Every log line written meanwhile carries it
 * (`traceId`, logger.ts). The trace the platform's front gave the request (Cloud Run's
 * `X-Cloud-Trace-Context`, else a W3C `traceparent`), where it is well formed, is carried beside
 * it for Cloud Logging alone, which groups the request's lines with its request log by it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomFillSync } from "node:crypto";

/** The running work's trace: the service's own id, and the front's, where a request had one. */
export interface Trace {
  id: string;
  front: string | null;
}

const current = new AsyncLocalStorage<Trace>();

/** A trace id: 32 lower-case hex digits, not all zeros (W3C Trace Context §3.2.2.3). */
const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;

/** The trace id a request's headers name, if they name a well-formed one: the front's, for grouping only. */
export function tracedBy(headers: Record<string, string | string[] | undefined>): string | null {
  const cloud = headers["x-cloud-trace-context"];
  const fromCloud = typeof cloud === "string" ? cloud.split("/")[0]?.toLowerCase() : undefined;
  if (fromCloud !== undefined && TRACE_ID.test(fromCloud)) return fromCloud;
  const parent = headers.traceparent;
  const fromParent =
    typeof parent === "string" ? /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(parent)?.[1] : undefined;
  return fromParent !== undefined && TRACE_ID.test(fromParent) ? fromParent : null;
}

/**
 * Ids are cut from a pool of random bytes filled 256 ids at a time, as node's own randomUUID
 * does: one call into the system's generator per request was the largest single cost of a gated
 * GET after the socket's write (bench §2's layers).
 */
const ID_BYTES = 16;
const POOLED = 256;
const pool = Buffer.alloc(ID_BYTES * POOLED);
let taken = POOLED;

/** A new trace id of the service's own. */
export function newTraceId(): string {
  if (taken === POOLED) {
    randomFillSync(pool);
    taken = 0;
  }
  const start = ID_BYTES * taken++;
  return pool.toString("hex", start, start + ID_BYTES);
}

/** The trace of a request with these headers: a new id, and the front's where it named one. */
export const requestTrace = (headers: Record<string, string | string[] | undefined>): Trace => ({
  id: newTraceId(),
  front: tracedBy(headers),
});

/** Runs `work` as part of `trace` (an id alone: work resumed from a stored one), or outside any for null. */
export function inTrace<T>(trace: Trace | string | null, work: () => T): T {
  if (trace === null) return current.exit(work);
  return current.run(typeof trace === "string" ? { id: trace, front: null } : trace, work);
}

/** The id of the trace the running work belongs to; null outside any. */
export const currentTrace = (): string | null => current.getStore()?.id ?? null;

/** The running trace, as the logger writes it. */
export const runningTrace = (): Trace | null => current.getStore() ?? null;

/** Whether `value` is a trace id this module would carry (a stored one read back). */
export const isTraceId = (value: unknown): value is string => typeof value === "string" && TRACE_ID.test(value);
