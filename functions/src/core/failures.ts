import { errorText } from "../logger";
import { withDeadline } from "./deadline";
import type { Deps } from "./deps";
import { AppError, type ErrorCode } from "./errors";

/** How a failure of work outside the process is answered and logged. */
export interface Failure {
  /** What the caller hears instead. */
  code: ErrorCode;
  /** The log line: what failed. The error's message is added; never a stack, never a secret. */
  log: string;
  level?: "warn" | "error";
  fields?: Record<string, unknown>;
  /** Gives up after this long, as a failure (the work itself runs on). */
  deadlineMs?: number;
}

/**
 * The one failure translator. Runs work that leaves the process (the identity provider, a
 * provider behind a bridge, Firestore): a refusal of ours passes through as it is; anything else
 * is logged once, by its message only, and answered as `failure.code`.
 */
export async function translateFailure<T>(
  deps: Pick<Deps, "log">,
  failure: Failure,
  work: () => Promise<T>,
): Promise<T> {
  try {
    const running = work();
    return await (failure.deadlineMs === undefined ? running : withDeadline(running, failure.deadlineMs));
  } catch (err) {
    if (err instanceof AppError) throw err;
    deps.log[failure.level ?? "error"](failure.log, { ...failure.fields, error: errorText(err) });
    throw new AppError(failure.code, undefined, err);
  }
}

const grpcStatusOf = (err: unknown): unknown =>
  typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;

/** gRPC's ALREADY_EXISTS: a create() found its document there, made by someone else first. */
export const alreadyExists = (err: unknown): boolean => grpcStatusOf(err) === 6;

/** gRPC's ABORTED: a transaction that lost to others on the same documents more often than Firestore retries. */
export const contended = (err: unknown): boolean => grpcStatusOf(err) === 10;

/** gRPC's DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED (contention outlasting the retries), UNAVAILABLE. */
const RETRYABLE_STATUS = new Set([4, 8, 10, 14]);
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"]);

/**
 * Whether an error says "a backend could not answer" (Firestore, the identity provider, the
 * network between) rather than "this request is wrong": the caller should hear 503 and try
 * again, never 500. Checked on the error and its causes.
 */
export function isUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === "object" && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "number" && RETRYABLE_STATUS.has(code)) return true;
    if (typeof code === "string" && (NETWORK_CODES.has(code) || /^app\/network-|^auth\/internal-error$/.test(code)))
      return true;
    if (e instanceof TypeError && e.message === "fetch failed") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
