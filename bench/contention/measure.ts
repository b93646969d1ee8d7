/**
 * Requests to the service as a client sends them, and what is made of their answers: statuses
 * named by their reason, latency percentiles, throughput, and when the first 503 came.
 */

/** A client gives up after this long: longer than the service's own 8 s deadline. */
const GIVE_UP_MS = 30_000;

export interface Answer {
  status: number;
  /** The refusal's reason (or its message), "" for a success; `(no answer)` when none came. */
  reason: string;
  retryAfter: string | null;
  /** ms since the run's clock started, and how long the answer took. */
  start: number;
  ms: number;
  body: any;
  setCookie: string[];
}

const t0 = performance.now();
export const now = (): number => performance.now() - t0;

export async function call(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const start = now();
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  try {
    const res = await fetch(base + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(GIVE_UP_MS),
    });
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    const reason = res.ok ? "" : String(body?.reason ?? body?.error ?? text).slice(0, 60);
    const setCookie = res.headers.getSetCookie();
    return {
      status: res.status,
      reason,
      retryAfter: res.headers.get("retry-after"),
      start,
      ms: now() - start,
      body,
      setCookie,
    };
  } catch (err) {
    const reason = `(no answer: ${err instanceof Error ? err.name : "error"})`;
    return { status: 0, reason, retryAfter: null, start, ms: now() - start, body: null, setCookie: [] };
  }
}

/**
 * An answer's name in the tallies. A 503 says which kind it is by its Retry-After: 1 s for
 * contention that outlasted the transaction's retries (or a backend that could not answer), 5 s
 * for the request's 8 s deadline.
 */
export function label(a: Answer): string {
  if (a.status === 503 && a.reason === "Service unavailable")
    return a.retryAfter === "1" ? "503 contention" : "503 deadline";
  return a.reason === "" ? String(a.status) : `${a.status} ${a.reason}`;
}

export function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[label(a)] = (counts[label(a)] ?? 0) + 1;
  return counts;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Requests answered per second, from the first sent to the last answered. */
export function throughput(answers: Answer[]): number {
  const first = Math.min(...answers.map((a) => a.start));
  const last = Math.max(...answers.map((a) => a.start + a.ms));
  return answers.length / Math.max(0.001, (last - first) / 1000);
}

/**
 * The rate the burst had reached when its first 503 was answered: requests sent from the burst's
 * start until then, per second; null when no 503 came.
 */
export function firstUnavailable(answers: Answer[]): { rate: number; sent: number } | null {
  const first = [...answers].filter((a) => a.status === 503).sort((a, b) => a.start + a.ms - (b.start + b.ms))[0];
  if (first === undefined) return null;
  const t = first.start + first.ms;
  const start = Math.min(...answers.map((a) => a.start));
  const sent = answers.filter((a) => a.start <= t).length;
  return { rate: sent / Math.max(0.001, (t - start) / 1000), sent };
}

/** All at once: `count` requests started in the same tick. */
export function race(count: number, send: (i: number) => Promise<Answer>): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => send(i)));
}

/**
 * `count` requests, `width` in flight at a time (each starts when one is answered); none starts
 * after `stopAt` (ms on the run's clock), so the answers may be fewer than `count`.
 */
export async function burst(
  count: number,
  width: number,
  send: (i: number) => Promise<Answer>,
  stopAt = Infinity,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count && now() < stopAt; i = next++) answers[i] = await send(i);
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
  return answers.filter((a) => a !== undefined);
}

/** Resolves once `done()` holds, checked every 100 ms; false when `ms` passed first. */
export async function until(done: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (;;) {
    if (await done()) return true;
    if (performance.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}
