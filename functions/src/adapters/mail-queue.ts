/* eslint-disable @typescript-eslint/no-require-imports -- the task queue's client loads with the first wake */
import { systemClock, type Clock } from "../clock";
import type { MailQueue, QueueSettings, TaskEnqueuer } from "../core/ports";

/** The task function that drains the outbox (index.ts). */
export const MAIL_FUNCTION = "mail";

/**
 * The `mail` function's queue: up to five drains at once, each sending its batch one mail at a
 * time, so the mail server sees a handful of connections; a drain that fails is tried again after
 * 10 s, 20 s, 40 s and 80 s. A drain asks for its own next wake (core/mail/drain), so these retries
 * only cover a drain that could not finish.
 */
export const MAIL_QUEUE: QueueSettings = {
  maxConcurrentDispatches: 5,
  maxAttempts: 5,
  minBackoffSeconds: 10,
  maxBackoffSeconds: 300,
};

/** The admin SDK's queue for the `mail` function, made on the first wake. */
function adminQueue(): TaskEnqueuer {
  const { getFunctions } = require("firebase-admin/functions") as typeof import("firebase-admin/functions");
  return getFunctions().taskQueue(MAIL_FUNCTION);
}

/**
 * Wakes by Cloud Tasks: one task for the `mail` function (locally, the emulator suite's own task
 * queue; in tests and the bench, a stand-in for it, given as `queue`). A wake for later is named
 * by its second, so the many drains that each ask to be woken for the same retry make one task; a
 * wake for now, or for a time already past (an entry given back to be tried at once), is never
 * named (a named task that already ran would swallow it).
 */
export function cloudTasksQueue(clock: Clock = systemClock, queue: () => TaskEnqueuer = adminQueue): MailQueue {
  let tasks: TaskEnqueuer | undefined;
  return {
    async wake(at) {
      tasks ??= queue();
      if (at === undefined || at.getTime() <= clock.now().getTime()) return void (await tasks.enqueue({}));
      const second = Math.ceil(at.getTime() / 1000);
      try {
        await tasks.enqueue({}, { scheduleTime: new Date(second * 1000), id: `wake-${second}` });
      } catch (err) {
        if ((err as { code?: unknown }).code !== "functions/task-already-exists") throw err;
      }
    },
  };
}
