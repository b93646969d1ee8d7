/**
 * The pages' WebAuthn helpers (@simplewebauthn/browser), in a chunk of their own that a page
 * fetches only when a passkey is wanted, and only in a browser that can use one.
 */
type Library = typeof import("@simplewebauthn/browser");

let library: Promise<Library> | null = null;

/** Whether this browser has WebAuthn at all; without it no passkey control is shown. Loads nothing. */
export function passkeysSupported(): boolean {
  return typeof window.PublicKeyCredential === "function";
}

/** Whether the browser can offer passkeys in a field's autofill (conditional mediation). Loads nothing. */
export async function autofillSupported(): Promise<boolean> {
  if (!passkeysSupported()) return false;
  try {
    return (await PublicKeyCredential.isConditionalMediationAvailable?.()) === true;
  } catch {
    return false;
  }
}

/** The helpers, fetched once. */
export function webauthn(): Promise<Library> {
  library ??= import("@simplewebauthn/browser");
  return library;
}

/**
 * Why a ceremony ended without a credential, as the person should hear it: `cancelled` (they
 * closed the prompt, or it timed out: the browser does not say which), `superseded` (another
 * ceremony on the page took over: nothing to say), `duplicate` (this authenticator already holds
 * one of the person's passkeys), or `failed`.
 */
export function ceremonyEnd(err: unknown): "cancelled" | "superseded" | "duplicate" | "failed" {
  const { name, code } = (err ?? {}) as { name?: unknown; code?: unknown };
  if (code === "ERROR_CEREMONY_ABORTED" || name === "AbortError") return "superseded";
  if (code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED" || name === "InvalidStateError") return "duplicate";
  if (name === "NotAllowedError") return "cancelled";
  return "failed";
}
