import type { ErrorRequestHandler, Response } from "express";
import { AppError, describeError, type ErrorCode } from "../core/errors";
import type { Logger } from "../logger";

/** How one endpoint family renders a refusal: JSON, OAuth JSON or an HTML page. */
export type Presenter = (res: Response, status: number, code: ErrorCode, message: string, reason: string | undefined) => void;

export const jsonErrors: Presenter = (res, status, code, message, reason) => {
  const fields = describeError(code).fields ?? {};
  res.status(status).json(reason === undefined ? { ...fields, error: message } : { ...fields, reason, error: message });
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A page of its own for a browser that lands on a refusal (a bridge, the authorise endpoint): what
 * went wrong and a way back to the start. No script; on the identity host it takes that site's
 * stylesheet (`/page.css`), elsewhere it is plain.
 */
export const htmlErrors: Presenter = (res, status, _code, message) => {
  const safe = escapeHtml(message);
  res
    .status(status)
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${safe}</title><link rel="stylesheet" href="/page.css"></head>` +
        `<body><main id="main"><h1>${safe}</h1><p>You can start again from the sign-in page.</p><p><a class="button primary" href="/">Back to sign in</a></p><p class="small">Error ${status}</p></main></body></html>`,
    );
};

/**
 * RFC 6749 §5.2: `{ error, error_description }`, never cached. Refusals that are not the
 * provider's own (a body too large, a path that does not exist) get the nearest OAuth code.
 */
export const oauthErrors: Presenter = (res, status, code, message) => {
  const error = describeError(code).oauth ?? (status >= 500 ? (status === 503 ? "temporarily_unavailable" : "server_error") : "invalid_request");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Pragma", "no-cache");
  if (status === 401) res.setHeader("WWW-Authenticate", error === "invalid_token" ? `Bearer error="invalid_token"` : `Basic realm="token"`);
  res.status(status).json({ error, error_description: message });
};

/** Turns whatever a handler threw into one answer; unknown errors are logged once, never shown. */
export function errorHandler(present: Presenter, log: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    // Already answered 503 by the deadline: what the handler did afterwards has nowhere to go.
    if (res.locals.timedOut === true) return;
    if (res.headersSent) return next(err);
    const appError = err instanceof AppError ? err : fromExpress(err);
    if (!appError) log.error("unhandled error", { path: req.path, method: req.method, error: err instanceof Error ? err.stack : String(err) });
    const code: ErrorCode = appError?.code ?? "internal";
    // A limit says when it lifts (RFC 9110 §10.2.3), so a client can tell the person how long to wait.
    if (appError?.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(appError.retryAfterSeconds));
    const row = describeError(code);
    present(res, row.status, code, appError?.detail ?? row.message, row.reason);
  };
}

/** Errors raised by express itself (e.g. a URI it cannot decode) carry a 4xx status. */
function fromExpress(err: unknown): AppError | null {
  const status = typeof err === "object" && err !== null && "status" in err ? Number((err as { status: unknown }).status) : 0;
  if (status === 400) return new AppError("malformed_request");
  if (status === 413) return new AppError("body_too_large");
  if (status === 415) return new AppError("unsupported_media_type");
  return null;
}
