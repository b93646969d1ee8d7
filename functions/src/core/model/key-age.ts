/**
 * How old the keys in use are, and when each is due for rotation. `keys rotate-session-key` and
 * `keys rotate-code-pepper` name a key by the day it was made (`session-20261129-a1b2c3`); the key
 * that signs new sessions and tokens (SESSION_KEYS' first) and the one that hashes new codes
 * (CODE_PEPPER's first) are each due KEY_ROTATE_AFTER_DAYS after that day, and said to be near it
 * from KEY_WARN_DAYS before. A key named otherwise (set by hand) has no known age and is not
 * judged. No I/O.
 */

/** A key in use is rotated within a year of being made (NIST SP 800-57's cryptoperiods run 1 to 3 years). */
export const KEY_ROTATE_AFTER_DAYS = 365;
/** How long before it is due a key is said to be near retirement: time for a rotation's steps. */
export const KEY_WARN_DAYS = 30;

const DAY_MS = 24 * 3600 * 1000;
const MADE_ON = /-(\d{4})(\d{2})(\d{2})-[0-9a-f]+$/;

/** The day a key was made, from its kid; null for a kid that does not say. */
export function keyMadeOn(kid: string): Date | null {
  const m = MADE_ON.exec(kid);
  if (m === null) return null;
  const day = new Date(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`);
  return Number.isNaN(day.getTime()) ? null : day;
}

export interface KeyDue {
  /** The secret it is in. */
  secret: "SESSION_KEYS" | "CODE_PEPPER";
  kid: string;
  madeOn: string;
  dueOn: string;
  /** Whole days until it is due; 0 or less once it is. */
  daysLeft: number;
}

/** The key in use of `secret`, if it is near its rotation or past it; null otherwise (or of unknown age). */
export function keyDue(secret: KeyDue["secret"], kid: string | null, now: Date): KeyDue | null {
  const made = kid === null ? null : keyMadeOn(kid);
  if (made === null || kid === null) return null;
  const due = new Date(made.getTime() + KEY_ROTATE_AFTER_DAYS * DAY_MS);
  const daysLeft = Math.ceil((due.getTime() - now.getTime()) / DAY_MS);
  if (daysLeft > KEY_WARN_DAYS) return null;
  return { secret, kid, madeOn: made.toISOString().slice(0, 10), dueOn: due.toISOString().slice(0, 10), daysLeft };
}

/** The kid of SESSION_KEYS' first key (the one that signs), read from its JSON; null if it has none. */
export function signingKid(sessionKeys: string): string | null {
  try {
    const first = (JSON.parse(sessionKeys) as Array<{ kid?: unknown }>)[0];
    return typeof first?.kid === "string" ? first.kid : null;
  } catch {
    return null;
  }
}
