import { createRequire } from "node:module";
import { join } from "node:path";
import { root } from "./functions.ts";

const autocannon = createRequire(join(root, "package.json"))("autocannon");

export interface LoadResult {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
}

export interface Target {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
}

/** Closed-loop load from this process (pinned by the caller to the other core). */
export async function load(target: Target, seconds: number, connections = 16): Promise<LoadResult> {
  const result = await autocannon({
    url: target.url,
    method: target.method ?? "GET",
    headers: target.headers ?? {},
    connections,
    duration: seconds,
    pipelining: 1,
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests.total,
  };
}

/**
 * Closed-loop load where every request carries a body of its own (a single-use code each):
 * `bodies.length` requests in all, each body sent once.
 */
export async function loadBodies(target: Target & { bodies: string[] }, connections = 16): Promise<LoadResult> {
  let next = 0;
  let first = 0;
  let last = 0;
  const setupRequest = (req: Record<string, unknown>) => {
    if (next === 0) first = performance.now();
    return { ...req, body: target.bodies[next++] };
  };
  const onResponse = () => {
    last = performance.now();
  };
  const request = { method: target.method ?? "POST", headers: target.headers ?? {}, setupRequest, onResponse };
  const result = await autocannon({
    url: target.url,
    connections,
    amount: target.bodies.length,
    pipelining: 1,
    requests: [request],
  });
  // A run of a fixed number of requests ends on autocannon's one-second tick, so its own duration
  // is whole seconds: the rate is timed from the first request sent to the last answer received.
  return {
    rps: result.requests.total / ((last - first) / 1000),
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests.total,
  };
}
