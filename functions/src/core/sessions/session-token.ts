import { createPrivateKey, createPublicKey, sign, verify as verifySignature, type KeyObject } from "node:crypto";
import type { SessionClaims, SessionTokens } from "../ports";

/**
 * The current session format: a JWT signed by the service (RS256, `kid` in the header so keys
 * can rotate). Verifying needs no network and no database: the cheapest check on the hot path.
 */

const TYPE = "session+jwt";
const ALGORITHM = "RS256";
/**
 * The longest a session token may claim to live (the contract's 14 days), and the clock skew
 * allowed on its issue time. Checked on every token, so a key that leaked, or a signing bug,
 * cannot mint a session that outlives the contract.
 */
export const MAX_LIFETIME_SECONDS = 14 * 24 * 3600;
const SKEW_SECONDS = 60;

export interface KeyRing {
  signing: { kid: string; key: KeyObject };
  verifying: Map<string, KeyObject>;
}

/** `json` is the SESSION_KEYS secret: an array of private JWKs with `kid`; the first signs. */
export function parseKeyRing(json: string): KeyRing {
  let jwks: unknown;
  try {
    jwks = JSON.parse(json);
  } catch {
    throw new Error("SESSION_KEYS is not valid JSON");
  }
  if (!Array.isArray(jwks) || jwks.length === 0)
    throw new Error("SESSION_KEYS must be a non-empty array of private JWKs");
  const verifying = new Map<string, KeyObject>();
  let signing: KeyRing["signing"] | undefined;
  for (const jwk of jwks as Array<Record<string, unknown>>) {
    const kid = jwk.kid;
    if (typeof kid !== "string" || kid === "") throw new Error("every SESSION_KEYS entry needs a kid");
    if (jwk.kty !== "RSA") throw new Error("SESSION_KEYS entries must be RSA keys");
    // Imported once per instance: re-parsing key material per request is what makes verify slow.
    const privateKey = createPrivateKey({ key: jwk as never, format: "jwk" });
    verifying.set(kid, createPublicKey(privateKey));
    signing ??= { kid, key: privateKey };
  }
  return { signing: signing as KeyRing["signing"], verifying };
}

/** Tokens that verified recently on this instance; a hit skips the RSA check (expiry still applies). */
const VERIFIED_KEPT = 10_000;

export function sessionTokens(keysJson: string, issuer: string, audience: string): SessionTokens {
  const ring = parseKeyRing(keysJson);
  // Only tokens that passed every check enter, keyed by their full text: a forgery can't hit.
  const verified = new Map<string, SessionClaims>();
  return {
    async issue({ uid, personId, sessionId, authTime, amr }, now, lifetimeMs) {
      const iat = Math.floor(now.getTime() / 1000);
      const exp = iat + Math.floor(lifetimeMs / 1000);
      const claims = {
        pid: personId,
        sid: sessionId,
        sub: uid,
        iss: issuer,
        aud: audience,
        iat,
        exp,
        auth_time: Math.floor(authTime.getTime() / 1000),
        ...(amr.length > 0 ? { amr } : {}),
      };
      const token = await signJwt({ alg: ALGORITHM, kid: ring.signing.kid, typ: TYPE }, claims, ring.signing.key);
      return { token, issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000) };
    },
    signIdToken(claims) {
      return signJwt({ alg: ALGORITHM, kid: ring.signing.kid, typ: "JWT" }, claims, ring.signing.key);
    },
    signLogoutToken(claims) {
      return signJwt({ alg: ALGORITHM, kid: ring.signing.kid, typ: "logout+jwt" }, claims, ring.signing.key);
    },
    signAccessToken(claims) {
      return signJwt({ alg: ALGORITHM, kid: ring.signing.kid, typ: ACCESS_TOKEN_TYPE }, claims, ring.signing.key);
    },
    readAccessToken(token, now) {
      return verifyAccessToken(ring, token, now);
    },
    publicJwks() {
      const keys = [...ring.verifying].map(([kid, key]) => {
        const { n, e, kty } = key.export({ format: "jwk" });
        return { kty, n, e, kid, alg: ALGORITHM, use: "sig" };
      });
      return { keys };
    },
    async verify(token, now) {
      const hit = verified.get(token);
      if (hit) return now.getTime() < hit.expiresAt.getTime() ? hit : null;
      const claims = verifySessionToken(ring, token, now, issuer, audience);
      if (claims) {
        if (verified.size >= VERIFIED_KEPT) verified.delete(verified.keys().next().value as string);
        verified.set(token, claims);
      }
      return claims;
    },
  };
}

/**
 * A compact JWS, RS256, signed on libuv's thread pool: an RSA-2048 signature is about half a
 * millisecond of CPU that the event loop does not wait out, so requests around it keep moving.
 */
function signJwt(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): Promise<string> {
  const input = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  return new Promise((resolve, reject) => {
    sign("sha256", Buffer.from(input), key, (error, signature) =>
      error ? reject(error) : resolve(`${input}.${signature.toString("base64url")}`),
    );
  });
}

/**
 * Verification is the hot path of every session request, so it is done here directly on the
 * compact form with node:crypto: one synchronous RSA verify over the bytes as received, then the
 * claims. (jose's general-purpose jwtVerify costs about three times as much per call.) The
 * tests check with jose that tokens signed here are standard JWTs.
 */
export function verifySessionToken(
  ring: KeyRing,
  token: string,
  now: Date,
  issuer: string,
  audience: string,
): SessionClaims | null {
  const first = token.indexOf(".");
  const second = token.indexOf(".", first + 1);
  if (first <= 0 || second <= first + 1 || second === token.length - 1 || token.indexOf(".", second + 1) !== -1)
    return null;
  const headerSegment = token.slice(0, first);
  const known = headerCache(ring);
  const key = known.get(headerSegment) ?? keyForHeader(ring, headerSegment);
  if (!key) return null;
  const signature = Buffer.from(token.slice(second + 1), "base64url");
  // The signature covers the header and payload exactly as sent, so no re-encoding can differ.
  if (!verifySignature("sha256", Buffer.from(token.slice(0, second), "latin1"), key, signature)) return null;
  // Only headers we signed are remembered, so the cache holds one entry per key of the ring.
  if (!known.has(headerSegment)) known.set(headerSegment, key);
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(Buffer.from(token.slice(first + 1, second), "base64url").toString("utf8")) as Record<
      string,
      unknown
    >;
  } catch {
    return null;
  }
  const { sub, pid, sid, iss, aud, iat, exp, auth_time: authTime, amr } = payload;
  if (typeof sub !== "string" || typeof pid !== "string" || iss !== issuer || aud !== audience) return null;
  if (typeof iat !== "number" || typeof exp !== "number") return null;
  const nowSeconds = now.getTime() / 1000;
  // Expired at exactly `exp`; a token "issued" in the future is not ours to trust either, nor one
  // that claims a longer life than any session is given.
  if (nowSeconds >= exp || iat > nowSeconds + SKEW_SECONDS || exp - iat > MAX_LIFETIME_SECONDS) return null;
  // A token without `auth_time` (issued before it was recorded) counts from its own issue.
  const authenticatedAt = typeof authTime === "number" ? authTime : iat;
  return {
    uid: sub,
    personId: pid,
    sessionId: typeof sid === "string" && sid !== "" ? sid : null,
    authTime: new Date(authenticatedAt * 1000),
    amr: Array.isArray(amr) ? amr.filter((m): m is string => typeof m === "string") : [],
    issuedAt: new Date(iat * 1000),
    expiresAt: new Date(exp * 1000),
  };
}

/** An access token for a resource (RFC 9068 §2.1): its own `typ`, so it passes for no other kind. */
const ACCESS_TOKEN_TYPE = "at+jwt";

/**
 * The `jti`, `aud` and `iss` of an access token this ring signed, not expired; null for anything
 * else. Off the hot path (introspection, revocation, userinfo), so plainly done.
 */
function verifyAccessToken(ring: KeyRing, token: string, now: Date): { jti: string; aud: string; iss: string } | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const [headerSegment, payloadSegment, signatureSegment] = parts as [string, string, string];
  let header: Record<string, unknown>;
  let payload: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(headerSegment, "base64url").toString("utf8")) as Record<string, unknown>;
    payload = JSON.parse(Buffer.from(payloadSegment, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (header.alg !== ALGORITHM || header.typ !== ACCESS_TOKEN_TYPE || typeof header.kid !== "string") return null;
  const key = ring.verifying.get(header.kid);
  if (key === undefined) return null;
  const signed = Buffer.from(`${headerSegment}.${payloadSegment}`, "latin1");
  if (!verifySignature("sha256", signed, key, Buffer.from(signatureSegment, "base64url"))) return null;
  const { jti, aud, iss, exp } = payload;
  if (typeof jti !== "string" || typeof aud !== "string" || typeof iss !== "string" || typeof exp !== "number")
    return null;
  return now.getTime() / 1000 < exp ? { jti, aud, iss } : null;
}

/** Header segments of tokens that verified, by their exact text: one per key in practice. */
const knownHeaders = new WeakMap<KeyRing, Map<string, KeyObject>>();

function headerCache(ring: KeyRing): Map<string, KeyObject> {
  let known = knownHeaders.get(ring);
  if (!known) knownHeaders.set(ring, (known = new Map()));
  return known;
}

function keyForHeader(ring: KeyRing, segment: string): KeyObject | null {
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(segment, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
  // Only our algorithm and type: "none", HS256-with-the-public-key and ID tokens all stop here.
  if (header.alg !== ALGORITHM || header.typ !== TYPE || typeof header.kid !== "string") return null;
  // An unknown kid is not ours: ID tokens and provider session cookies carry Google's kids.
  return ring.verifying.get(header.kid) ?? null;
}
