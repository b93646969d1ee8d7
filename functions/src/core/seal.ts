import { createCipheriv, createDecipheriv, hkdfSync } from "node:crypto";
import type { Random } from "../random";
import type { MailMessage } from "./ports";
import type { PepperKey } from "./pepper";
import type { Sealed } from "./model/sealed";

/**
 * Mail waiting in the outbox is sealed: AES-256-GCM under a key derived (HKDF-SHA-256) from the
 * first CODE_PEPPER key, named by its kid. A code mail carries the code, and the store keeps no
 * secret in a form it could be read back from; the key lives only in the secret. Any key still in
 * the ring opens what it sealed, so the pepper's rotation (24 hours of overlap) outlasts every
 * waiting mail.
 */
/** What a sealed value is for: each its own key, so one can never be opened as the other. */
export type SealPurpose = "outbox-seal-v1" | "hook-secret-v1";

function keyFor(key: PepperKey, purpose: SealPurpose): Buffer {
  return Buffer.from(hkdfSync("sha256", key.secret, "outbox", purpose, 32));
}

/** `value` as JSON, sealed under the ring's first key for `purpose`. */
export function sealValue(
  ring: PepperKey[],
  random: Pick<Random, "token">,
  value: unknown,
  purpose: SealPurpose,
): Sealed {
  const key = ring[0] as PepperKey;
  // 96 random bits per message: GCM's nonce, never reused under one key in practice.
  const iv = Buffer.from(random.token(12), "base64url");
  const cipher = createCipheriv("aes-256-gcm", keyFor(key, purpose), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
  return {
    kid: key.kid,
    iv: iv.toString("base64url"),
    data: data.toString("base64url"),
    tag: cipher.getAuthTag().toString("base64url"),
  };
}

/** The value, or null when no key of the ring sealed it for `purpose`, or it was altered. */
export function unsealValue(ring: PepperKey[], sealed: Sealed, purpose: SealPurpose): unknown {
  const key = ring.find((k) => k.kid === sealed.kid);
  if (!key) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyFor(key, purpose), Buffer.from(sealed.iv, "base64url"));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64url"));
    const text = Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64url")), decipher.final()]);
    return JSON.parse(text.toString("utf8")) as unknown;
  } catch {
    return null;
  }
}

export function seal(ring: PepperKey[], random: Pick<Random, "token">, message: MailMessage): Sealed {
  return sealValue(ring, random, message, "outbox-seal-v1");
}

/** The message, or null when no key of the ring sealed it, or it was altered. */
export function unseal(ring: PepperKey[], sealed: Sealed): MailMessage | null {
  return unsealValue(ring, sealed, "outbox-seal-v1") as MailMessage | null;
}
