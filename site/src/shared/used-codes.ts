/**
 * The addresses whose code this browser used in the last minute (a request for access confirmed,
 * a sign-in, or one refused as pending): a send to one of them inside the minute is refused as
 * "just sent", and the code that was just sent is used up, so the page must not ask for it. Kept
 * in the browser alone: the service's answer says nothing of whether a code was used, which would
 * tell anyone asking about an address that its owner is signing in.
 */
const KEY = "identity:used-codes";
const MINUTE_MS = 60_000;

type Used = Record<string, number>;

function read(storage: Pick<Storage, "getItem">): Used {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(KEY) ?? "{}");
    return typeof parsed === "object" && parsed !== null ? (parsed as Used) : {};
  } catch {
    return {};
  }
}

const canonical = (email: string) => email.trim().toLowerCase();

/** Notes that the code sent to `email` was used now. */
export function noteCodeUsed(
  email: string,
  now = Date.now(),
  storage: Storage | undefined = globalThis.sessionStorage,
): void {
  if (storage === undefined) return;
  const fresh = Object.fromEntries(Object.entries(read(storage)).filter(([, at]) => now - at < MINUTE_MS));
  try {
    storage.setItem(KEY, JSON.stringify({ ...fresh, [canonical(email)]: now }));
  } catch {
    // Storage full or refused: the page falls back to its general words.
  }
}

/** Whether this browser used the code sent to `email` within the last minute. */
export function codeUsedLately(
  email: string,
  now = Date.now(),
  storage: Storage | undefined = globalThis.sessionStorage,
): boolean {
  if (storage === undefined) return false;
  const at = read(storage)[canonical(email)];
  return at !== undefined && now - at < MINUTE_MS;
}
