import type { Request } from "express";
import { AppError, type ErrorCode } from "../core/errors";

/**
 * HTTP Basic credentials (RFC 7617) as OAuth clients send them: `Basic base64(urlencode(id) ":"
 * urlencode(secret))` (RFC 6749 §2.3.1). null when the request carries none; `malformed` when it
 * carries something that is not a pair, or whose parts do not decode.
 */
export function basicCredentials(req: Request, malformed: ErrorCode): { id: string; secret: string } | null {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(req.headers.authorization ?? "");
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) throw new AppError(malformed);
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " ")),
    };
  } catch {
    throw new AppError(malformed);
  }
}
