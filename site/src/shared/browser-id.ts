/**
 * This browser's identifier, as the service tells one browser of a person's from another (a
 * sign-in from a browser not seen before is mailed to them): 32 random bytes, made here once and
 * kept in the identity host's own storage, sent with each POST /auth/verify. The service keeps
 * only its digest, and sets no cookie for it. Where storage is refused (some private windows),
 * none is sent, and the service knows the browser by its name and network instead.
 */
const KEY = "identity.browser";
const SHAPE = /^[A-Za-z0-9_-]{43}$/;

function fresh(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export function browserIdentifier(storage: Pick<Storage, "getItem" | "setItem"> = localStorage): string | null {
  try {
    const kept = storage.getItem(KEY);
    if (kept !== null && SHAPE.test(kept)) return kept;
    const made = fresh();
    storage.setItem(KEY, made);
    return made;
  } catch {
    return null;
  }
}

/** The body of POST /auth/verify from these pages: the sign-in, the project, and this browser. */
export function verifyBody(idToken: string, project: string): { idToken: string; project: string; browser?: string } {
  const browser = browserIdentifier();
  return browser === null ? { idToken, project } : { idToken, project, browser };
}
