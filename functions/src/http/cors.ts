import type { NextFunction, Request, RequestHandler, Response } from "express";
import { AppError } from "../core/errors";

const METHODS = "GET, POST, PATCH, DELETE, OPTIONS";
const HEADERS = "Content-Type, Authorization, x-api-key";
const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/**
 * A provider answering a bridge by form_post posts from its own site. The POST only passes the
 * answer on to the GET callback, which the browser's own state cookie must then match.
 */
const PROVIDER_POSTS = /^\/auth\/bridge\/[^/]+\/callback$/;

/**
 * Paths any origin may call, without credentials: the OIDC provider and its discovery documents,
 * and the MCP server's protected resource metadata, a public document of the same kind (RFC 9728)
 * that an agent's page on any origin reads to find where to sign in.
 */
export function isOpenPath(path: string): boolean {
  return (
    path.startsWith("/auth/oidc/") ||
    path === "/auth/oidc" ||
    path === "/.well-known/openid-configuration" ||
    path === "/.well-known/oauth-authorization-server" ||
    path.startsWith("/.well-known/oauth-protected-resource/")
  );
}

/**
 * The authorise endpoint is a page the browser navigates to (a link or a form post from the
 * relying party), never a resource a script reads: it gets no CORS at all (RFC 9700 §2.6), so
 * no page can read where it would have redirected.
 */
const NAVIGATION_ONLY = new Set(["/auth/oidc/authorize"]);

/**
 * A person's own account (their name, their copy of their data, its deletion), their sessions and
 * their choice of notices, and the administrators' invitations, apps' review, audit trail and
 * view of the service's health: ours, not the contract's, and used only by the identity host's own
 * pages. Only that origin is answered with credentials, and only it may change them: a script
 * injected into an app host could otherwise read a person's data or delete their account, or,
 * riding an administrator's cookie, read every invitation's address and invite anyone it likes,
 * approved ahead with the projects and role it names, let in an app waiting for review, or read
 * who did what to whom.
 */
const ID_HOST_ONLY =
  /^\/auth\/(account(\/|$)|sessions(\/|$)|session\/notices$|invitations(\/|$)|clients\/|audit$|health$)/;

/**
 * Whether a request comes from a page we do not serve: an `Origin` outside the allowlist, or, from
 * a browser that sent no `Origin`, Fetch Metadata saying it crossed sites. A sibling host under the
 * parent domain that is not one of the seven origins counts as foreign: `same-site` is no proof of
 * being ours, and the session cookie is sent to every such host. Refuses a state-changing request
 * here; keeps a refusal off the audit trail in a person's name (http/gate).
 */
export function fromForeignPage(req: Request, allowed: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) return !allowed.has(origin);
  const site = req.headers["sec-fetch-site"];
  return site === "cross-site" || site === "same-site";
}

/**
 * The contract's cross-origin rules, plus one more: a state-changing request from a browser
 * origin outside the allowlist is refused before any handler runs. Without it, a foreign page
 * could post an ID token of its own to /auth/verify (login CSRF), end a session by posting to
 * /auth/logout (logout CSRF), or drive another cookie-carrying POST, because CORS only hides the
 * response; it does not stop the request.
 */
export function corsPolicy(allowedOrigins: readonly string[], idOrigin?: string): RequestHandler {
  const everyOrigin = new Set(allowedOrigins);
  const idHostOnly = idOrigin === undefined ? everyOrigin : new Set([idOrigin]);
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    const open = isOpenPath(req.path);
    const allowed = ID_HOST_ONLY.test(req.path) ? idHostOnly : everyOrigin;
    res.vary("Origin");
    if (origin !== undefined && !NAVIGATION_ONLY.has(req.path)) {
      if (allowed.has(origin) && !open) {
        res.setHeader("Access-Control-Allow-Origin", origin);
        res.setHeader("Access-Control-Allow-Credentials", "true");
      } else if (open) {
        res.setHeader("Access-Control-Allow-Origin", "*");
      }
    }
    if (req.method === "OPTIONS") {
      if (res.getHeader("Access-Control-Allow-Origin") !== undefined) {
        res.setHeader("Access-Control-Allow-Methods", METHODS);
        res.setHeader("Access-Control-Allow-Headers", HEADERS);
        res.setHeader("Access-Control-Max-Age", "600");
      }
      res.status(204).end();
      return;
    }
    if (UNSAFE.has(req.method) && !open && !PROVIDER_POSTS.test(req.path) && fromForeignPage(req, allowed)) {
      throw new AppError("origin_not_allowed");
    }
    next();
  };
}
