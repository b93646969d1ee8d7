import { createHash } from "node:crypto";
import { constantTimeEqual } from "./secrets";

/** base64url of a SHA-256 digest: 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export function isS256Challenge(value: string): boolean {
  return S256_CHALLENGE.test(value);
}

export function isCodeVerifier(value: string): boolean {
  return CODE_VERIFIER.test(value);
}

/** RFC 7636 §4.6: the verifier's S256 digest is the challenge, compared in constant time. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  return constantTimeEqual(createHash("sha256").update(verifier, "ascii").digest("base64url"), challenge);
}
