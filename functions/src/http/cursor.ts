/** Pages of a list, a cursor at a time: opaque to the caller, and good for the list that gave it alone. */
import { ensure } from "../core/errors";

/**
 * A page's cursor, opaque to the caller: where the page ended, and in which order, so a cursor
 * from one list is never read as another's.
 */
export function cursorOf(next: string | null, list: string): string | null {
  return next === null ? null : Buffer.from(JSON.stringify({ k: next, o: list })).toString("base64url");
}

export function readCursor(cursor: string | undefined, list: string): string | null {
  if (cursor === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = null;
  }
  const { k, o } = (typeof parsed === "object" && parsed !== null ? parsed : {}) as { k?: unknown; o?: unknown };
  ensure(typeof k === "string" && o === list, "invalid_people_query", "cursor is not one this list gave");
  return k;
}
