/* eslint-disable @typescript-eslint/no-require-imports -- the task queue's client loads with the first wake */
import { systemClock, type Clock } from "../clock";
import type { MailQueue, QueueSettings, TaskEnqueuer } from "../core/ports";

/** The task function that drains the outbox (index.ts). */
export const MAIL_FUNCTION = "mail";
/**
 * Where it runs, and its queue with it: the region of every function (runtime/function.ts,
 * test/platform/manifest.test.ts holds them together), which the admin SDK takes for a queue named alone.
 */
export const MAIL_LOCATION = "us-central1";

/**
 * The `mail` function's queue: up to five drains at once, each sending its batch one mail at a
 * time, so the mail server sees a handful of connections. A drain asks for its own next wake
 * (core/outbox/drain); one that could not finish (Firestore out) is tried again after 10 s, 20 s,
 * 40 s, then every minute for an hour, so the mail it was woken for goes within a minute of
 * Firestore answering again, however long it was out (a code's mail lapses in ten minutes).
 */
export const MAIL_QUEUE: QueueSettings = {
  maxConcurrentDispatches: 5,
  maxAttempts: 100,
  maxRetrySeconds: 3600,
  minBackoffSeconds: 10,
  maxBackoffSeconds: 60,
};

/**
 * A wake for less than this ahead is never named. The task named for its second may have just
 * run, on a clock a little ahead of this instance's, and found the entry not yet due; a second
 * task of that name would be refused as existing, and the entry would wait for nobody.
 */
export const NAMED_AHEAD_MS = 5_000;

/** The admin SDK's queue for the `mail` function, made on the first wake. */
function adminQueue(): TaskEnqueuer {
  const { getFunctions } = require("firebase-admin/functions") as typeof import("firebase-admin/functions");
  return getFunctions().taskQueue(MAIL_FUNCTION);
}

/**
 * Wakes by Cloud Tasks: one task for the `mail` function (locally, the emulator suite's own task
 * queue; in tests and the bench, a stand-in for it, given as `queue`). A wake for later is named
 * by its second, so the many drains that each ask to be woken for the same retry make one task; a
 * wake for now, for a time already past (an entry given back to be tried at once), or for the next
 * few seconds is never named (a named task that already ran would swallow it).
 */
export function cloudTasksQueue(clock: Clock = systemClock, queue: () => TaskEnqueuer = adminQueue): MailQueue {
  let tasks: TaskEnqueuer | undefined;
  return {
    async wake(at) {
      tasks ??= queue();
      const now = clock.now().getTime();
      if (at === undefined || at.getTime() <= now) return void (await tasks.enqueue({}));
      const second = Math.ceil(at.getTime() / 1000);
      if (at.getTime() < now + NAMED_AHEAD_MS)
        return void (await tasks.enqueue({}, { scheduleTime: new Date(second * 1000) }));
      try {
        await tasks.enqueue({}, { scheduleTime: new Date(second * 1000), id: `wake-${second}` });
      } catch (err) {
        if ((err as { code?: unknown }).code !== "functions/task-already-exists") throw err;
      }
    },
  };
}
