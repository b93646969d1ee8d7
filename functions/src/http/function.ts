/* eslint-disable @typescript-eslint/no-require-imports -- deferred loading is the point of this module */
import type { HttpsFunction, HttpsOptions } from "firebase-functions/v2/https";
import type { TaskQueueFunction } from "firebase-functions/v2/tasks";
import type { Deps } from "../core/deps";
import { consoleLogger } from "../logger";
import { serve, type Group, type Handler } from "./serve";

/**
 * What every group runs with. One region for all, beside Hosting's default for rewrites; a whole
 * vCPU, which the platform requires for more than one request at a time per instance; CORS is the
 * apps' own (http/cors). Why each value: docs/deploying.md.
 */
export const COMMON_OPTIONS = { region: "us-central1", cpu: 1, cors: false } as const satisfies HttpsOptions;

/** What each group decides for itself, every field required so none is left to a platform default. */
export type GroupOptions = Required<
  Pick<HttpsOptions, "memory" | "timeoutSeconds" | "concurrency" | "minInstances" | "maxInstances" | "secrets">
>;

/**
 * One endpoint group as an HTTPS function.
 *
 * Where the manifest is being read (deploy, the emulator's discovery, tests) the handler is
 * declared through `onRequest`, so the platform sees its options and secrets. An instance that
 * serves requests is started with FUNCTION_TARGET naming the one function it runs; there the
 * export is the bare handler. That skips loading `firebase-functions/v2/https`, which brings
 * firebase-admin's app and auth modules with it (about 150 ms before the first request could be
 * served) only to wrap the handler in a try/catch, a trace context and `onInit` hooks (none are
 * used here): `serve` answers errors itself, and the other groups' exports cost nothing because
 * each loads on its first request.
 */
export function httpsFunction(name: string, load: () => Group, options: GroupOptions): Handler | HttpsFunction {
  const handler = serve(name, load);
  const target = process.env.FUNCTION_TARGET;
  if (target !== undefined && target !== "") return handler;
  const { onRequest } = require("firebase-functions/v2/https") as typeof import("firebase-functions/v2/https");
  return onRequest({ ...COMMON_OPTIONS, ...options }, handler);
}

/** What a task function decides for itself, beside COMMON_OPTIONS. */
export type TaskOptions = GroupOptions & { maxAttempts: number; maxConcurrentDispatches: number };

/**
 * A task-queue function (Cloud Tasks calls it; locally, the emulator suite's task queue): its
 * work, loaded and given the production dependencies on the first task. A task that throws is
 * retried by the queue with backoff, up to `maxAttempts`. An instance started for another
 * function loads nothing of it (see httpsFunction).
 */
export function taskFunction(
  name: string,
  load: () => (deps: Deps) => Promise<unknown>,
  options: TaskOptions,
): TaskQueueFunction | Handler {
  const target = process.env.FUNCTION_TARGET;
  if (target !== undefined && target !== "" && target !== name)
    return () => {
      throw new Error(`this instance serves ${target}, not ${name}`);
    };
  const { onTaskDispatched } = require("firebase-functions/v2/tasks") as typeof import("firebase-functions/v2/tasks");
  const { maxAttempts, maxConcurrentDispatches, ...rest } = options;
  return onTaskDispatched(
    {
      ...COMMON_OPTIONS,
      ...rest,
      retryConfig: { maxAttempts, minBackoffSeconds: 10, maxBackoffSeconds: 300 },
      rateLimits: { maxConcurrentDispatches },
    },
    async () => {
      const { productionDeps } = require("../deps") as typeof import("../deps");
      try {
        await load()(productionDeps());
      } catch (err) {
        consoleLogger.error(`the ${name} task failed`, { error: err instanceof Error ? err.message : String(err) });
        throw err;
      }
    },
  );
}
