/**
 * CODE_PEPPER, the service's one keyed-hash ring, in one place: its keys, its parsing, the ring
 * as a function is given it, and every keyed hash made with it (an email code, the records named
 * after an address, a send budget or a token endpoint's throttle; the mail's sealing key is derived
 * from it in core/seal). Keyed, so a stored record names none of what it is about, and a
 * six-digit code cannot be found by hashing every guess.
 */
import { createHmac } from "node:crypto";
import { constantTimeEqual } from "./secrets";

/** One key of the CODE_PEPPER ring. The kid is stored beside every hash it made. */
export interface PepperKey {
  kid: string;
  secret: string;
}

/**
 * The CODE_PEPPER ring, parsed once per instance (deps.ts). A function that hashes with it and
 * was deployed without the secret fails here, rather than store what a guess could find.
 */
export function pepperRing(deps: { pepper: PepperKey[] | null }): PepperKey[] {
  if (deps.pepper === null) throw new Error("CODE_PEPPER is not available to this function");
  return deps.pepper;
}

const KID = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * CODE_PEPPER is `kid:secret` pairs separated by commas. The first key hashes new codes and
 * names new records; every key still in the ring verifies, so the pepper rotates by putting a
 * new key first and dropping the old one once its codes and records have lapsed (24 hours).
 */
export function parsePepper(raw: string): PepperKey[] {
  const keys = raw
    .split(",")
    .map((pair) => pair.trim())
    .filter((pair) => pair !== "")
    .map((pair) => {
      const colon = pair.indexOf(":");
      return { kid: colon < 0 ? "" : pair.slice(0, colon), secret: colon < 0 ? "" : pair.slice(colon + 1) };
    });
  const valid =
    keys.length > 0 &&
    keys.every((k) => KID.test(k.kid) && k.secret.length >= 16) &&
    new Set(keys.map((k) => k.kid)).size === keys.length;
  if (!valid) throw new Error("CODE_PEPPER must be kid:secret pairs (secrets of at least 16 characters, kids unique)");
  return keys;
}

function hmac(key: PepperKey, ...parts: string[]): string {
  // NUL-separated: purposes and addresses are validated and cannot contain one, and the code comes last.
  return createHmac("sha256", key.secret).update(parts.join("\u0000"), "utf8").digest("hex");
}

/**
 * The document id of an address's code and limits under each key of the ring, first key first.
 * A keyed hash, so the stored records neither name the address nor let anyone test a guess at it.
 */
export function addressIds(ring: PepperKey[], address: string): string[] {
  return ring.map((key) => hmac(key, "email-code-address", address));
}

/**
 * The ids of an address's run of failed recovery-code guesses (core/email-codes/address-failures),
 * one per key of the ring, as addressIds are its email codes': a run of its own, so guesses at
 * recovery codes never lock sign-in by email code.
 */
export function recoveryRunIds(ring: PepperKey[], address: string): string[] {
  return ring.map((key) => hmac(key, "recovery-code-address", address));
}

/** The record id of a send budget (a client, a network, a domain…): keyed, so stored records name none of them. */
export function budgetId(key: PepperKey, scope: string, subject: string): string {
  return hmac(key, `send-budget-${scope}`, subject);
}

/** The token endpoint's throttle record of one client id and caller: keyed, so it names neither. */
export function throttleKeyId(key: PepperKey, clientId: string, caller: string): string {
  return hmac(key, "oidc-client-throttle", clientId, caller);
}

/**
 * The stored ids of a refresh token under each key of the ring, first key first: a new token is
 * stored under the first, and one issued before a rotation is still found under the key it was
 * made with, until that key leaves the ring.
 */
export function refreshTokenIds(ring: PepperKey[], token: string): string[] {
  return ring.map((key) => hmac(key, "oidc-refresh-token", token));
}

/**
 * The `sid` a client is told of a sign-in (its ID tokens', its logout tokens'): one per session of
 * the identity host and client, so no two clients can match their sign-ins up by it, and none
 * learns the session's own id.
 */
export function oidcSid(key: PepperKey, sessionKey: string, clientId: string): string {
  return hmac(key, "oidc-sid", sessionKey, clientId).slice(0, 32);
}

/**
 * What the logout confirmation page carries (core/oidc/logout): bound to the session it would end,
 * so a form made for another browser, or forged by another page, ends nothing. Made with the first
 * key; checked against each key in the ring.
 */
export function logoutConfirmation(key: PepperKey, sessionKey: string): string {
  return hmac(key, "oidc-logout", sessionKey);
}

export function logoutConfirmed(ring: PepperKey[], sessionKey: string, presented: string): boolean {
  let matched = false;
  for (const key of ring) if (constantTimeEqual(logoutConfirmation(key, sessionKey), presented)) matched = true;
  return matched;
}

/**
 * What the page asking a person to let a disconnected app in again carries (core/oidc/disconnects):
 * bound to the session and the app, so a form made for another browser or another app, or forged
 * by another page, lets nothing in. Made with the first key; checked against each key in the ring.
 */
export function reconnectConfirmation(key: PepperKey, sessionKey: string, clientId: string): string {
  return hmac(key, "oidc-reconnect", sessionKey, clientId);
}

export function reconnectConfirmed(
  ring: PepperKey[],
  sessionKey: string,
  clientId: string,
  presented: string,
): boolean {
  let matched = false;
  for (const key of ring)
    if (constantTimeEqual(reconnectConfirmation(key, sessionKey, clientId), presented)) matched = true;
  return matched;
}

/**
 * What the page asking a person to let an app that registered itself in carries (core/oidc/consents):
 * bound to the session, the app, the resource and the very scopes shown, so a form made for another
 * browser, app or request, or forged by another page, lets nothing in. Made with the first key;
 * checked against each key in the ring.
 */
export function consentConfirmation(
  key: PepperKey,
  sessionKey: string,
  asked: { clientId: string; resource: string; scopes: readonly string[] },
): string {
  return hmac(key, "oidc-consent", sessionKey, asked.clientId, asked.resource, [...asked.scopes].sort().join(" "));
}

export function consentConfirmed(
  ring: PepperKey[],
  sessionKey: string,
  asked: { clientId: string; resource: string; scopes: readonly string[] },
  presented: string,
): boolean {
  let matched = false;
  for (const key of ring) if (constantTimeEqual(consentConfirmation(key, sessionKey, asked), presented)) matched = true;
  return matched;
}

/**
 * The stored form of a recovery code: bound to its person, so one person's code matches nothing
 * of another's. Keyed, as an email code's is: a stolen copy of the store cannot be searched.
 */
export function recoveryCodeHash(key: PepperKey, personId: string, code: string): string {
  return hmac(key, "recovery-code", personId, code);
}

/** The stored form of a code: bound to its purpose and address, so it satisfies nothing else. */
export function codeHash(key: PepperKey, purpose: string, address: string, code: string): string {
  return hmac(key, "email-code", purpose, address, code);
}

/** Whether `code` is the one stored as `hash` under key `kid`. A kid no longer in the ring matches nothing. */
export function codeMatches(
  ring: PepperKey[],
  stored: { kid: string; hash: string },
  purpose: string,
  address: string,
  code: string,
): boolean {
  const key = ring.find((k) => k.kid === stored.kid);
  if (!key) return false;
  // Constant-time: a timing observer must not learn how much of a guess was right.
  return constantTimeEqual(codeHash(key, purpose, address, code), stored.hash);
}
