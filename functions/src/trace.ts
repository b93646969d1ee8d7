/**
 * The trace a piece of work belongs to: one id from the request that started it to everything it
 * caused, mail included. A request takes the id its front sent (Cloud Run's
 * `X-Cloud-Trace-Context`, else a W3C `traceparent`), or a new one; the outbox keeps it on each
 * entry the request queued, and the drain works on that entry under it again (core/outbox). Every
 * log line written meanwhile carries it (logger.ts), as Cloud Logging's trace field, so the
 * request's lines, its entry's and its mail's read together.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";

const current = new AsyncLocalStorage<string>();

/** A trace id: 32 lower-case hex digits, not all zeros (W3C Trace Context §3.2.2.3). */
const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;

/** The trace id a request's headers name, if they name a well-formed one. */
export function tracedBy(headers: Record<string, string | string[] | undefined>): string | null {
  const cloud = headers["x-cloud-trace-context"];
  const fromCloud = typeof cloud === "string" ? cloud.split("/")[0]?.toLowerCase() : undefined;
  if (fromCloud !== undefined && TRACE_ID.test(fromCloud)) return fromCloud;
  const parent = headers.traceparent;
  const fromParent =
    typeof parent === "string" ? /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(parent)?.[1] : undefined;
  return fromParent !== undefined && TRACE_ID.test(fromParent) ? fromParent : null;
}

/** A new trace id, for work no request named one for. */
export const newTraceId = (): string => randomBytes(16).toString("hex");

/** Runs `work` as part of trace `traceId` (outside any trace for null). */
export function inTrace<T>(traceId: string | null, work: () => T): T {
  return traceId === null ? current.exit(work) : current.run(traceId, work);
}

/** The trace the running work belongs to; null outside any. */
export const currentTrace = (): string | null => current.getStore() ?? null;

/** Whether `value` is a trace id this module would carry (a stored one read back). */
export const isTraceId = (value: unknown): value is string => typeof value === "string" && TRACE_ID.test(value);
