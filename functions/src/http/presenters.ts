import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { AppError, type ErrorCode } from "../core/errors";
import { isUnavailable } from "../core/failures";
import { escapeHtml } from "../core/text";
import { errorText, type Logger } from "../logger";
import { rowFor } from "../core/errors";
import type { CountedSeries, HealthCounts } from "../core/ports";

/**
 * How one endpoint family answers a refusal: JSON, JSON with the email-code verify's `valid`,
 * OAuth JSON, or an HTML page. `detail` overrides the row's message (a field named, say).
 */
export type Presenter = (res: Response, code: ErrorCode, detail?: string) => void;

function jsonBody(code: ErrorCode, detail: string | undefined): Record<string, unknown> {
  const row = rowFor(code);
  const message = detail ?? row.message;
  return row.reason === undefined
    ? { ...row.fields, error: message }
    : { ...row.fields, reason: row.reason, error: message };
}

export const jsonErrors: Presenter = (res, code, detail) => {
  res.status(rowFor(code).status).json(jsonBody(code, detail));
};

/** A code check's refusals (POST /auth/otp/verify): JSON, each `400` with `valid: false`, the contract's body. */
export const checkErrors: Presenter = (res, code, detail) => {
  const { status } = rowFor(code);
  const body = jsonBody(code, detail);
  res.status(status).json(status === 400 ? { valid: false, ...body } : body);
};

/**
 * Gives a route a presenter of its own, for a route whose refusals take another shape than its
 * group's (the OpenID Connect authorise page among OAuth endpoints, a code check's `valid`). The
 * group's presenter is given when the group is registered (runtime/serve, http/app); a route names
 * its own where it is declared. Never chosen from the path when a refusal is presented.
 */
export function presentWith(presenter: Presenter): RequestHandler {
  return (_req, res, next) => {
    res.locals.presenter = presenter;
    next();
  };
}

/**
 * Marks a route whose refusals the health report counts (core/status/health-counts): each `4xx`
 * the error handler answers there is counted in `series`, by the refusal's reason. In memory: the
 * answer waits on no write, and says nothing of whether anything was counted.
 */
export function refusalsCounted(counts: HealthCounts, series: CountedSeries): RequestHandler {
  return (_req, res, next) => {
    res.locals.countRefusal = (reason: string) => counts.count(series, reason);
    next();
  };
}

/** The presenter of this response: its route's own (presentWith), else its group's. */
export function presenterFor(group: Presenter): Presenter {
  return (res, code, detail) => ((res.locals.presenter as Presenter | undefined) ?? group)(res, code, detail);
}

/**
 * A page of its own for a browser that lands on a refusal (a bridge, the authorise endpoint): what
 * went wrong and a way back to the start. No script; on the identity host it takes that site's
 * stylesheet (`/page.css`), elsewhere it is plain.
 */
export const htmlErrors: Presenter = (res, code, detail) => {
  const { status, message } = rowFor(code);
  const safe = escapeHtml(detail ?? message);
  res
    .status(status)
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${safe}</title><link rel="stylesheet" href="/page.css"></head>` +
        `<body><main id="main"><h1>${safe}</h1><p>You can start again from the sign-in page.</p><p><a class="button primary" href="/">Back to sign in</a></p><p class="small">Error ${status}</p></main></body></html>`,
    );
};

/** A refusal as OAuth names it: `error` and `error_description` (RFC 6749 §4.1.2.1, §5.2). */
export function oauthFields(code: ErrorCode, detail?: string): { error: string; error_description: string } {
  const { status, message, oauth } = rowFor(code);
  const error =
    oauth ?? (status >= 500 ? (status === 503 ? "temporarily_unavailable" : "server_error") : "invalid_request");
  return { error, error_description: detail ?? message };
}

/**
 * RFC 6749 §5.2: `{ error, error_description }`, never cached. Refusals that are not the
 * provider's own (a body too large, a path that does not exist) get the nearest OAuth code.
 */
export const oauthErrors: Presenter = (res, code, detail) => {
  const { status } = rowFor(code);
  const { error, error_description } = oauthFields(code, detail);
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Pragma", "no-cache");
  if (status === 401)
    res.setHeader(
      "WWW-Authenticate",
      error === "invalid_token" ? `Bearer error="invalid_token"` : `Basic realm="token"`,
    );
  res.status(status).json({ error, error_description });
};

/**
 * Seconds a 503 asks the caller to wait before trying again, when its cause gave no figure of its
 * own: long enough for a frozen or restarting backend to come back, short enough for a person.
 */
export const RETRY_AFTER_UNAVAILABLE_SECONDS = 5;

/**
 * Every 503 says when to try again (RFC 9110 §10.2.3, the contract's "retry with backoff"): the
 * cause's own figure when it gave one, else the default above. Applied once, around each group's
 * presenter (http/app), so no path to a 503, the request deadline included, can leave it out.
 */
export function withRetryAfter(present: Presenter): Presenter {
  return (res, code, detail) => {
    if (rowFor(code).status === 503 && !res.hasHeader("Retry-After"))
      res.setHeader("Retry-After", String(RETRY_AFTER_UNAVAILABLE_SECONDS));
    present(res, code, detail);
  };
}

/** Turns whatever a handler threw into one answer; unknown errors are logged once, never shown. */
export function errorHandler(present: Presenter, log: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    // Already answered 503 by the deadline: what the handler did afterwards has nowhere to go.
    if (res.locals.timedOut === true) return;
    if (res.headersSent) return next(err);
    let appError = err instanceof AppError ? err : fromExpress(err);
    if (!appError && isUnavailable(err)) {
      // A backend that could not answer, or contention that outlasted the retries: try again shortly.
      log.warn("a backend could not answer", { path: req.path, method: req.method, error: errorText(err) });
      appError = new AppError("service_unavailable");
      appError.retryAfterSeconds = 1;
    }
    if (!appError)
      log.error("unhandled error", {
        path: req.path,
        method: req.method,
        error: err instanceof Error ? err.stack : errorText(err),
      });
    const countRefusal = res.locals.countRefusal as ((reason: string) => void) | undefined;
    if (countRefusal !== undefined && appError !== null) {
      const row = rowFor(appError.code);
      if (row.status < 500) countRefusal(row.reason ?? appError.code);
    }
    // A limit says when it lifts (RFC 9110 §10.2.3), so a client can tell the person how long to wait.
    if (appError?.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(appError.retryAfterSeconds));
    present(res, appError?.code ?? "internal", appError?.detail);
  };
}

/** Errors raised by express itself (e.g. a URI it cannot decode) carry a 4xx status. */
function fromExpress(err: unknown): AppError | null {
  const status =
    typeof err === "object" && err !== null && "status" in err ? Number((err as { status: unknown }).status) : 0;
  if (status === 400) return new AppError("malformed_request");
  if (status === 413) return new AppError("body_too_large");
  if (status === 415) return new AppError("unsupported_media_type");
  return null;
}

/** What a bearer challenge names (RFC 6750 §3, RFC 9728 §5.1), set by a route for its refusals. */
export interface BearerChallenge {
  /** The resource's protected resource metadata document (RFC 9728). */
  resourceMetadata: string;
  /** For `insufficient_scope`: the scopes the request needs. */
  scope?: string;
}

/** Sets the challenge `mcpErrors` puts in this response's 401s and scope refusals. */
export function challengeWith(res: Response, challenge: BearerChallenge): void {
  res.locals.bearerChallenge = challenge;
}

/** JSON-RPC's error codes (JSON-RPC 2.0 §5.1) for the refusals that reach no MCP method. */
function jsonRpcCode(code: ErrorCode, status: number): number {
  if (code === "malformed_json") return -32700;
  if (status >= 500) return -32603;
  if (status === 400 || status === 413 || status === 415) return -32600;
  return -32000;
}

/**
 * The MCP server's refusals (routes/mcp): a JSON-RPC error, the body an MCP client reads, with the
 * contract's status; `reason` (a gate's `pending`) as the error's `data`. A 401, and a 403 of a
 * scope the token lacks, carry the `WWW-Authenticate: Bearer` challenge the MCP authorization
 * spec asks for, naming the resource's metadata document, from which a client finds the issuer
 * to sign in with; a token refused says `error="invalid_token"`, one without a scope
 * `error="insufficient_scope"` and the scopes needed. Never cached.
 */
export const mcpErrors: Presenter = (res, code, detail) => {
  const { status, message, oauth, reason } = rowFor(code);
  const challenge = res.locals.bearerChallenge as BearerChallenge | undefined;
  if (challenge !== undefined && (status === 401 || oauth === "insufficient_scope")) {
    const params = [
      ...(oauth === undefined ? [] : [`error="${oauth}"`]),
      ...(oauth === "insufficient_scope" && challenge.scope !== undefined ? [`scope="${challenge.scope}"`] : []),
      `resource_metadata="${challenge.resourceMetadata}"`,
    ];
    res.setHeader("WWW-Authenticate", `Bearer ${params.join(", ")}`);
  }
  res.setHeader("Cache-Control", "no-store");
  const error = {
    code: jsonRpcCode(code, status),
    message: detail ?? message,
    ...(reason ? { data: { reason } } : {}),
  };
  res.status(status).json({ jsonrpc: "2.0", error, id: null });
};
