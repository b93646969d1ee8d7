/**
 * The `mail` function as the platform runs it, in a bench server's process: the service's own
 * wakes (cloudTasksQueue) on the test support's stand-in for Cloud Tasks, with the queue's
 * settings (MAIL_QUEUE: five dispatches at once; a failed drain tried again after 10 s, 20 s, 40 s,
 * then every minute) and a dispatch a moment after the wake, as a task queue takes about that long.
 * Only the servers import this: node warns, once, that the stand-in's package names no module type.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { root, service } from "./functions.ts";
import { DISPATCH_DELAY_MS, serviceDeps, silentLogger, type BenchSettings } from "./service-deps.ts";

// Loaded by its path, so the bench's type check stays out of the functions' sources it names.
const { taskQueueDouble } = (await import(
  pathToFileURL(join(root, "functions", "test", "support", "task-queue.ts")).href
)) as { taskQueueDouble: (...args: unknown[]) => { busy(): boolean } };

const { cloudTasksQueue, MAIL_QUEUE } = service<any>("adapters/mail-queue");
const { run: mailRound } = service<any>("tasks/mail");
const { systemClock } = service<any>("clock");

/** The mail queue for `buildDeps` (given the deps it drains with), and the task queue behind it. */
export function mailTask(log: { error: (message: string, fields?: Record<string, unknown>) => void }): {
  mailQueue: (deps: unknown) => unknown;
  /** A drain running, about to be dispatched, or to be tried again (wakes for later aside). */
  busy: () => boolean;
} {
  let tasks: { busy(): boolean } | undefined;
  return {
    mailQueue: (deps) =>
      cloudTasksQueue(systemClock, () => {
        tasks = taskQueueDouble(() => mailRound(deps), MAIL_QUEUE, {
          clock: systemClock,
          dispatchDelayMs: DISPATCH_DELAY_MS,
          onFailure: (attempt: number, err: unknown) =>
            log.error("the mail task failed", { attempt, error: err instanceof Error ? err.message : String(err) }),
        });
        return tasks;
      }),
    busy: () => tasks?.busy() ?? false,
  };
}

/**
 * A bench server's service, quiet: its dependencies (serviceDeps) with SESSION_KEYS from the
 * environment, a logger that says nothing, and the mail task as the platform runs it.
 */
export function quietServiceDeps(more: Partial<BenchSettings> = {}): any {
  return serviceDeps({
    sessionKeys: process.env.SESSION_KEYS as string,
    log: silentLogger,
    mailQueue: mailTask(silentLogger).mailQueue,
    ...more,
  });
}
