import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Hash for high-entropy bearer secrets (exchange codes, API keys, client secrets of 256 bits):
 * stored instead of the secret, and used as the lookup key, so the secret never rests anywhere.
 * Low-entropy secrets (six-digit codes) need a keyed hash instead (see email codes).
 */
export function sha256(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Compares two secrets or digests without leaking where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  if (left.length !== right.length) {
    // Still do the work, so the length difference is all a timing observer learns.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
