import express, { type Express, type NextFunction, type Request, type Response, type Router } from "express";
import { budgetUntil, type Budget } from "../core/deadline";
import { AppError } from "../core/errors";
import type { Logger } from "../logger";
import { inTrace, requestTrace } from "../trace";
import { corsPolicy } from "./cors";
import { errorHandler, presenterFor, withRetryAfter, type Presenter } from "./presenters";

export interface AppOptions {
  presenter: Presenter;
  allowedOrigins: readonly string[];
  /** The identity host's origin: the only one a person's own account answers (http/cors). */
  idOrigin?: string;
  log: Logger;
  /** How long a request may take before it is answered 503 (see requestDeadline). */
  deadlineMs?: number;
}

/**
 * When a dependency stops answering, its client retries for up to a minute. No caller should
 * wait that long: past the deadline the request is answered 503 (retry with backoff) in the
 * family's shape, and whatever the handler does later is not sent. Below the 10 s a browser
 * or a load balancer is commonly given, and above the gate's own 4 s lookup deadline.
 */
export const REQUEST_DEADLINE_MS = 8000;

/**
 * Time kept back from a request's deadline for sending the answer (see requestBudget). A second:
 * on a loaded machine the timer that ends a step fires late, and the answer's own path (an error
 * page, after a failure is logged) can then still lose to the deadline's 503 by a few hundred ms.
 */
export const ANSWER_MARGIN_MS = 1000;

function requestDeadline(ms: number, present: Presenter) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    res.locals.deadlineAt = performance.now() + ms;
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      res.locals.timedOut = true;
      present(res, "service_unavailable");
    }, ms);
    res.once("close", () => clearTimeout(timer));
    next();
  };
}

/**
 * What is left of this request's deadline, less a margin for sending the answer: for a handler
 * whose work takes several steps outside the process (a bridge callback), so that it answers with
 * its own page, never the deadline's 503, however slow one of them is.
 */
export function requestBudget(res: Response): Budget {
  // Every app sets it (requestDeadline); a response from elsewhere gets the default deadline from now.
  const deadlineAt =
    typeof res.locals.deadlineAt === "number" ? res.locals.deadlineAt : performance.now() + REQUEST_DEADLINE_MS;
  return budgetUntil(deadlineAt - ANSWER_MARGIN_MS, () => performance.now());
}

/**
 * Answers depend on who asks, so no cache may keep them unless a route says otherwise.
 * `private` also matters to Hosting: it drops Set-Cookie from any response not marked private.
 */
function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader("Cache-Control", "private, no-store");
  next();
}

/**
 * Each request runs in a trace of its own (trace.ts), a new id the answer names (`X-Trace-Id`), so
 * whoever reports a problem can give it: every line logged for the request, and for the mail it
 * caused, carries it.
 */
function traced(req: Request, res: Response, next: NextFunction): void {
  const trace = requestTrace(req.headers);
  res.setHeader("X-Trace-Id", trace.id);
  inTrace(trace, next);
}

/** Builds every endpoint group's express app the same way; tests build the same app. */
export function createApp(routes: Router, options: AppOptions): Express {
  const present = withRetryAfter(presenterFor(options.presenter));
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.use(traced);
  app.use(noStore);
  app.use(requestDeadline(options.deadlineMs ?? REQUEST_DEADLINE_MS, present));
  app.use(corsPolicy(options.allowedOrigins, options.idOrigin));
  app.use(routes);
  app.use(() => {
    throw new AppError("not_found");
  });
  app.use(errorHandler(present, options.log));
  return app;
}
