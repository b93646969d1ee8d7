/**
 * The conventional way: firebase-admin's `verifySessionCookie`, with the provider's public keys
 * already in its cache (as they are after the first request in production). Cookies are signed
 * here with a key of ours, published to that cache as an X.509 certificate.
 */
import { createPrivateKey } from "node:crypto";
import { requireFromFunctions } from "./functions.ts";
import { certifiedKey } from "./keys.ts";

interface AdminAuth {
  verifySessionCookie(cookie: string, checkRevoked?: boolean): Promise<{ uid: string }>;
}

export const PROJECT = "bench-project";
const KID = "bench-provider-key";

export async function conventionalVerifier(): Promise<{
  auth: AdminAuth;
  mint: (uid: string, nowSeconds: number) => Promise<string>;
}> {
  // Outside emulator mode: firebase-admin checks signatures only when no emulator is configured.
  delete process.env.FIREBASE_AUTH_EMULATOR_HOST;
  const { initializeApp } = requireFromFunctions("firebase-admin/app");
  const { getAuth } = requireFromFunctions("firebase-admin/auth");
  const { SignJWT } = requireFromFunctions("jose");
  const app = initializeApp({ projectId: PROJECT }, `conventional-${process.pid}`);
  const auth = getAuth(app);
  const { privateKeyPem, certPem } = certifiedKey();
  const fetcher = auth.sessionCookieVerifier.signatureVerifier.keyFetcher;
  fetcher.publicKeys = { [KID]: certPem };
  fetcher.publicKeysExpireAt = Number.MAX_SAFE_INTEGER;
  const key = createPrivateKey(privateKeyPem);
  const mint = (uid: string, now: number) =>
    new SignJWT({ auth_time: now, firebase: { sign_in_provider: "password", identities: {} } })
      .setProtectedHeader({ alg: "RS256", kid: KID })
      .setIssuer(`https://session.firebase.google.com/${PROJECT}`)
      .setAudience(PROJECT)
      .setSubject(uid)
      .setIssuedAt(now)
      .setExpirationTime(now + 14 * 24 * 3600)
      .sign(key);
  return { auth, mint };
}
