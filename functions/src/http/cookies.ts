import type { CookieOptions, Request, Response } from "express";

export const SESSION_COOKIE = "__session";

function attributes(parentDomain: string): CookieOptions {
  return { domain: parentDomain, path: "/", httpOnly: true, secure: true, sameSite: "lax" };
}

/** The cookie lives exactly as long as the token inside it; nothing renews it. */
export function setSessionCookie(
  res: Response,
  parentDomain: string,
  session: { token: string; issuedAt: Date; expiresAt: Date },
): void {
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

/** Every value sent under `name`, in the order the browser sent them (longest path first). */
function readCookies(req: Request, name: string): string[] {
  const header = req.headers.cookie;
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      // A token or state is written unescaped: decoding is only for a value that has escapes.
      if (value !== "") values.push(value.includes("%") ? decodeURIComponent(value) : value);
    } catch {
      // not a value we wrote
    }
  }
  return values;
}

/**
 * The session cookie the request carries: none, one, or several. Several is refused wherever a
 * session is read: any sibling subdomain can set a `__session` of its own on the parent domain
 * ("cookie tossing"), and which of two the server would read first is the browser's ordering,
 * not the person's choice. The bridge's state value (path /auth/bridge) and a passkey sign-in's
 * binding (its own path) are not sessions.
 */
export type SessionCookie = { value: string | null; several: boolean; all: string[] };

export function readSessionCookie(req: Request): SessionCookie {
  const all = readCookies(req, SESSION_COOKIE).filter(
    (v) => !v.startsWith(BRIDGE_PREFIX) && !v.startsWith(PASSKEY_PREFIX) && !v.startsWith(BROWSER_PREFIX),
  );
  return { value: all.length === 1 ? (all[0] as string) : null, several: all.length > 1, all };
}

/**
 * The bridge's state cookie. Firebase Hosting passes only a cookie named `__session` on to a
 * function, and only the first one, so the state rides in a `__session` of its own, scoped to
 * `/auth/bridge`: browsers send the longer path first, and no other path ever sees it.
 */
const BRIDGE_PATH = "/auth/bridge";
const BRIDGE_PREFIX = "bridge.";

function bridgeAttributes(parentDomain: string): CookieOptions {
  return { ...attributes(parentDomain), path: BRIDGE_PATH };
}

/**
 * Sign-ins this browser has started and not finished, newest first: a second tab starting one
 * must not strand the first. Each state is used once on the server whatever the cookie says.
 */
export const BRIDGE_STATES_KEPT = 3;

export function setBridgeStateCookie(res: Response, parentDomain: string, states: string[], lifetimeMs: number): void {
  res.cookie(SESSION_COOKIE, `${BRIDGE_PREFIX}${states.slice(0, BRIDGE_STATES_KEPT).join(".")}`, {
    ...bridgeAttributes(parentDomain),
    maxAge: lifetimeMs,
  });
}

export function clearBridgeStateCookie(res: Response, parentDomain: string): void {
  res.clearCookie(SESSION_COOKIE, bridgeAttributes(parentDomain));
}

/** The pending states in this browser's state cookie (states are base64url, so `.` separates them). */
export function readBridgeStates(req: Request): string[] {
  const value = readCookies(req, SESSION_COOKIE).find((v) => v.startsWith(BRIDGE_PREFIX));
  if (value === undefined) return [];
  return value
    .slice(BRIDGE_PREFIX.length)
    .split(".")
    .filter((s) => s !== "")
    .slice(0, BRIDGE_STATES_KEPT);
}

/**
 * A passkey sign-in's binding: a random value only this browser holds (HttpOnly: not even the
 * page's script reads it), whose digest each sign-in challenge is stored with, so a challenge and
 * the assertion over it are worth nothing in another browser. Named `__session` for the same
 * reason as the bridge's state, and scoped to the passkey sign-in's own path, which the caller names.
 */
const PASSKEY_PREFIX = "passkey.";
/** What a binding looks like (32 random bytes, base64url): anything else is not one of ours. */
const BINDING = /^[A-Za-z0-9_-]{43}$/;

export function setPasskeyBindingCookie(
  res: Response,
  parentDomain: string,
  path: string,
  binding: string,
  lifetimeMs: number,
): void {
  res.cookie(SESSION_COOKIE, `${PASSKEY_PREFIX}${binding}`, { ...attributes(parentDomain), path, maxAge: lifetimeMs });
}

export function clearPasskeyBindingCookie(res: Response, parentDomain: string, path: string): void {
  res.clearCookie(SESSION_COOKIE, { ...attributes(parentDomain), path });
}

/** The bindings this browser sent (one, unless a sibling host planted another). */
export function readPasskeyBindings(req: Request): string[] {
  return readCookies(req, SESSION_COOKIE)
    .filter((v) => v.startsWith(PASSKEY_PREFIX))
    .map((v) => v.slice(PASSKEY_PREFIX.length))
    .filter((v) => BINDING.test(v));
}

/**
 * A browser's identifier, as the identity host's page keeps it (32 random bytes, base64url) and
 * sends it in POST /auth/verify's body: the person's record remembers its digest, never the
 * value (core/notices/security-notices), to tell a sign-in from a browser not seen before. Verify
 * sets no cookie for it: one answer, one `__session`, the session.
 *
 * Browsers that signed in before kept it in a cookie, `__session=browser.<id>` on the parent
 * domain for the path /auth/verify alone (named `__session` as the bridge's state is: Hosting
 * passes no other cookie to a function). Nothing sets it any more; it is still read, so those
 * browsers are not told of as new, until it expires (400 days from the last sign-in that set it).
 */
export const BROWSER_ID = BINDING;
const BROWSER_PREFIX = "browser.";

/** This browser's identifier; null when it has none, or sent more than one (then it is treated as new). */
export function readBrowserId(req: Request): string | null {
  const ids = readCookies(req, SESSION_COOKIE)
    .filter((v) => v.startsWith(BROWSER_PREFIX))
    .map((v) => v.slice(BROWSER_PREFIX.length))
    .filter((v) => BINDING.test(v));
  return ids.length === 1 ? (ids[0] as string) : null;
}
