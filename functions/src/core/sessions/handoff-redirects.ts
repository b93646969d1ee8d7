/**
 * Where a hand-off may send a person's exchange code: the redirect URIs of native apps and of
 * sites on other domains, as RFC 8252 (OAuth 2.0 for Native Apps) allows them, and nothing else.
 */

const LOOPBACK_HOSTS = ["127.0.0.1", "[::1]"];
/** A private-use scheme is a reverse domain name the app owns (RFC 8252 §7.1): it has a dot. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/;

function parse(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

/**
 * A URI an operator may register: https anywhere, http on a loopback IP literal (§7.3; `localhost`
 * can be resolved elsewhere, §8.3), or a private-use scheme. No fragment, no user or password.
 */
export function isRedirectUriForm(uri: string): boolean {
  const url = parse(uri);
  if (url === null || uri.length > 512 || uri.includes("#") || url.username !== "" || url.password !== "") return false;
  const scheme = url.protocol.slice(0, -1);
  if (scheme === "https") return url.hostname !== "";
  if (scheme === "http") return LOOPBACK_HOSTS.includes(url.hostname);
  return PRIVATE_USE_SCHEME.test(scheme);
}

/** The part of a loopback URI after its host and port, or null for any other URI. */
function loopbackRest(uri: string): { host: string; port: string; rest: string } | null {
  const match = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?(\/[^#]*)?$/.exec(uri);
  return match ? { host: match[1] as string, port: match[2] ?? "", rest: match[3] ?? "" } : null;
}

/**
 * Exact string match, no normalisation, with the one exception RFC 8252 §7.3 makes: a loopback
 * URI registered without a port matches the same URI on any port, because a native app listens
 * on whatever port the system gives it.
 */
export function redirectMatches(registered: string, presented: string): boolean {
  if (!isRedirectUriForm(presented)) return false;
  if (registered === presented) return true;
  const reg = loopbackRest(registered);
  const got = loopbackRest(presented);
  return (
    reg !== null && got !== null && reg.port === "" && got.port !== "" && reg.host === got.host && reg.rest === got.rest
  );
}
