import type { Request } from "express";

/**
 * The host a browser addressed: Firebase Hosting (and its emulator) hands a rewritten request to
 * the function with the site's host in `X-Forwarded-Host`; called directly, it is `Host`. Only
 * ever compared against the configured hosts, so a forged value can pick among those and no other.
 */
export function requestHost(req: Request): string | undefined {
  const forwarded = req.headers["x-forwarded-host"];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
  return first !== undefined && first !== "" ? first : req.headers.host;
}
