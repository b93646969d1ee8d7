import type { Deps } from "./deps";

/**
 * Posts to an app's endpoint (an event delivery, a logout token) and says how it went: null for
 * a 2xx; otherwise the kind of failure only (`status 503`, `timeout`, `unreachable`), never what
 * the app answered. A redirect is not followed: the registered address is the one posted to.
 */
export async function postTo(
  deps: Pick<Deps, "fetch">,
  url: string,
  request: { headers: Record<string, string>; body: string },
  timeoutMs: number,
): Promise<string | null> {
  try {
    const res = await deps.fetch(url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.status >= 200 && res.status < 300 ? null : `status ${res.status}`;
  } catch (err) {
    return err instanceof Error && err.name === "TimeoutError" ? "timeout" : "unreachable";
  }
}
