import { createHmac, timingSafeEqual } from "node:crypto";
import type { Deps } from "../deps";
import * as people from "../../store/people";
import { withDeadline } from "../deadline";
import { canonicalEmail } from "../email-address";
import { AppError, ensure } from "../errors";
import { errorText } from "../../logger";
import { type Person } from "../model/person";

/**
 * The identity provider's claims callback: before it issues an ID token for an account, the
 * provider asks which of this service's claims to put in it, and signs the request.
 *
 * `Idp-Signature: t=<unix seconds>,v1=<hex>` where v1 = HMAC-SHA256(secret, `${t}.${raw body}`).
 * The body is signed exactly as sent, before anything parses it. Several `v1` may be sent (a
 * provider rolling its secret signs with both); several secrets may be configured, comma-separated
 * (ours rolling): any pair that matches passes. The timestamp bounds how long a captured request
 * can be replayed; the answer is a read, so a replay inside the window changes nothing.
 */
export const SIGNATURE_TOLERANCE_S = 300;
/** The provider's callback has its own deadline; a lookup that takes longer answers no claims. */
export const CLAIMS_LOOKUP_DEADLINE_MS = 3000;
/** The provider refuses custom claims larger than this (serialised JSON). */
export const CLAIMS_MAX_BYTES = 1000;

const HEADER_PART = /^(t|v1)=([^,]*)$/;
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

export function signatureSecrets(configured: string): Buffer[] {
  return configured
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map((s) => Buffer.from(s, "utf8"));
}

/** Throws unless `header` signs `body` with one of `secrets`, within the tolerance of `now`. */
export function verifyIdpSignature(secrets: Buffer[], header: string | undefined, body: Buffer, now: Date): void {
  ensure(secrets.length > 0, "idp_not_configured");
  ensure(header !== undefined && header.length <= 1024, "idp_signature_missing");
  let timestamp: string | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(",").map((p) => p.trim())) {
    if (part === "") continue;
    const match = HEADER_PART.exec(part);
    // Unknown schemes (a future v2) are skipped, as the format allows; broken parts are not.
    if (!match) {
      ensure(/^[a-z0-9]+=/.test(part), "idp_signature_missing");
      continue;
    }
    const [, key, value] = match as unknown as [string, string, string];
    if (key === "t") {
      ensure(timestamp === null && /^\d{1,12}$/.test(value), "idp_signature_missing");
      timestamp = value;
    } else if (HEX_SHA256.test(value)) {
      signatures.push(Buffer.from(value, "hex"));
    }
  }
  ensure(timestamp !== null && signatures.length > 0, "idp_signature_missing");
  const age = Math.floor(now.getTime() / 1000) - Number(timestamp);
  ensure(Math.abs(age) <= SIGNATURE_TOLERANCE_S, "idp_signature_stale");
  let matched = false;
  for (const secret of secrets) {
    const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
    // Every pair is compared, in constant time, whatever matched first.
    for (const signature of signatures) matched = timingSafeEqual(expected, signature) || matched;
  }
  ensure(matched, "idp_signature_invalid");
}

export interface ClaimsRequest {
  uid: string;
  email?: string | undefined;
  emailVerified?: boolean | undefined;
}

/**
 * The claims for the account the provider is signing in: read fresh (a sign-in is when a changed
 * status or role must take effect), by the account's uid, else by its address if the provider
 * has verified it. No person, or no answer in time: no claims, and the sign-in goes on without.
 */
export async function claimsFor(
  deps: Pick<Deps, "store" | "log">,
  namespace: string,
  request: ClaimsRequest,
): Promise<Record<string, unknown>> {
  let person: Person | null;
  try {
    person = await withDeadline(lookUp(deps, request), CLAIMS_LOOKUP_DEADLINE_MS);
  } catch (error) {
    if (error instanceof AppError) throw error;
    deps.log.warn("claims lookup failed", { error: errorText(error) });
    return {};
  }
  if (person === null) return {};
  const prefix = `urn:${namespace}:`;
  const claims: Record<string, unknown> = {
    [`${prefix}personId`]: person.id,
    [`${prefix}status`]: person.status,
    [`${prefix}role`]: person.role,
    [`${prefix}projects`]: person.projects,
  };
  // A long project list would make the provider refuse every claim; it is the one left out.
  if (Buffer.byteLength(JSON.stringify(claims)) > CLAIMS_MAX_BYTES) delete claims[`${prefix}projects`];
  return claims;
}

async function lookUp(deps: Pick<Deps, "store">, request: ClaimsRequest): Promise<Person | null> {
  const byUid = await people.findByUid(deps.store, request.uid);
  const email = request.emailVerified === true ? canonicalEmail(request.email) : null;
  if (byUid !== null || email === null) return byUid;
  return people.findByEmail(deps.store, email);
}
