import { siteConfig } from "../shared/site-config";

/**
 * Where a sign-in may send the browser afterwards: the bridge start's rule, applied here to the
 * `redirect` this page was given. An https address on one of the service's own origins, on its
 * default port, with no user or password; anything else could hand a fresh session to a page
 * someone else chose. Returns the address to go to, or null when it is not allowed.
 */
export function allowedRedirect(raw: string | null): string | null {
  if (raw === null || raw === "") return `${siteConfig.idUrl}/account`;
  if (raw.length > 2048) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  const ok =
    url.protocol === "https:" &&
    url.username === "" &&
    url.password === "" &&
    siteConfig.allowedOrigins.includes(url.origin);
  return ok ? url.toString() : null;
}

/** A project name as the service takes it; `account` (the identity host's own) by default. */
export function projectFrom(raw: string | null): string {
  return raw !== null && /^[A-Za-z0-9_.-]{1,100}$/.test(raw) ? raw : "account";
}
