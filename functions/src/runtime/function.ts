import { onRequest, type HttpsFunction, type HttpsOptions } from "firebase-functions/v2/https";
import { onTaskDispatched, type TaskQueueFunction } from "firebase-functions/v2/tasks";
import { startBundle, type NodeHandler } from "./bundles";
import type { QueueSettings } from "../core/ports";

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
 * One endpoint group as an HTTPS function, as the manifest is read (deploy, the emulator's
 * discovery): declared through `onRequest`, so the platform sees its options and secrets. An
 * instance never runs this: it is started with FUNCTION_TARGET, and main.ts hands it its bundle.
 * Should anything call the handler here, it serves the same way, from the bundle.
 */
export function httpsFunction(name: string, options: GroupOptions): HttpsFunction {
  let handler: NodeHandler | undefined;
  return onRequest({ ...COMMON_OPTIONS, ...options }, (req, res) => {
    handler ??= startBundle(name);
    handler(req, res);
  });
}

/** What a task function decides for itself, beside COMMON_OPTIONS. */
export type TaskOptions = GroupOptions & { queue: QueueSettings };

/**
 * A task-queue function (Cloud Tasks calls it; locally, the emulator suite's task queue), as the
 * manifest is read: its options, its queue's retries and rate. A task that fails is retried by the
 * queue with backoff, for `queue.maxAttempts` or `queue.maxRetrySeconds`. As for a group, an instance never runs this: main.ts
 * hands it its bundle, whose handler is the task's own (task.ts).
 */
export function taskFunction(name: string, options: TaskOptions): TaskQueueFunction {
  const { queue, ...rest } = options;
  const { maxConcurrentDispatches, ...retryConfig } = queue;
  return onTaskDispatched(
    {
      ...COMMON_OPTIONS,
      ...rest,
      retryConfig,
      rateLimits: { maxConcurrentDispatches },
    },
    async () => {
      throw new Error(`the ${name} task runs from its bundle (main.ts), never from the manifest`);
    },
  );
}
