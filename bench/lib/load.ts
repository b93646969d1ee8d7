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
  const result = await autocannon({ url: target.url, method: target.method ?? "GET", headers: target.headers ?? {}, connections, duration: seconds, pipelining: 1 });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.timeouts, non2xx: result.non2xx, requests: result.requests.total };
}
