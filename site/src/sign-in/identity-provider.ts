import { siteConfig } from "../shared/site-config";

export type Exchanged = { kind: "ok"; idToken: string } | { kind: "expired" } | { kind: "unreachable" };

/**
 * Turns a custom token into an ID token at the identity provider, the one call its client SDK
 * would make (`accounts:signInWithCustomToken`), without the SDK: the page needs the ID token
 * once, for POST /auth/verify, and keeps nothing. Its refresh token is dropped unread, so no
 * long-lived credential ever rests in this browser; the session is the service's cookie.
 */
export async function idTokenFor(customToken: string): Promise<Exchanged> {
  let res: Response;
  try {
    res = await fetch(
      `${siteConfig.identityToolkit}/accounts:signInWithCustomToken?key=${encodeURIComponent(siteConfig.apiKey)}`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: customToken, returnSecureToken: true }),
        // The origin only: enough for an API key restricted to this site, and no path or query.
        referrerPolicy: "strict-origin",
        credentials: "omit",
      },
    );
  } catch {
    return { kind: "unreachable" };
  }
  const body = (await res.json().catch(() => ({}))) as { idToken?: unknown };
  if (res.ok && typeof body.idToken === "string") return { kind: "ok", idToken: body.idToken };
  // A token the provider will not take (expired, already past its hour, malformed) needs a new sign-in.
  return res.status >= 500 ? { kind: "unreachable" } : { kind: "expired" };
}
