import type { CookieOptions, Request, Response } from "express";

export const SESSION_COOKIE = "__session";

function attributes(parentDomain: string): CookieOptions {
  return { domain: parentDomain, path: "/", httpOnly: true, secure: true, sameSite: "lax" };
}

/** The cookie lives exactly as long as the token inside it; nothing renews it. */
export function setSessionCookie(res: Response, parentDomain: string, session: { token: string; issuedAt: Date; expiresAt: Date }): void {
  res.cookie(SESSION_COOKIE, session.token, {
    ...attributes(parentDomain),
    expires: session.expiresAt,
    maxAge: session.expiresAt.getTime() - session.issuedAt.getTime(),
  });
}

/** Clearing must repeat Domain and Path, or the browser keeps the cookie it was given. */
export function clearSessionCookie(res: Response, parentDomain: string): void {
  res.clearCookie(SESSION_COOKIE, attributes(parentDomain));
}

/** Reads `__session` without a cookie-parsing middleware: it is the only cookie we read. */
export function readCookie(req: Request, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return value === "" ? null : decodeURIComponent(value);
      } catch {
        return null;
      }
    }
  }
  return null;
}
