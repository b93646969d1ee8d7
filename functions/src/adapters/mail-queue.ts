/* eslint-disable @typescript-eslint/no-require-imports -- the task queue's client loads with the first wake */
import { systemClock, type Clock } from "../clock";
import type { Logger } from "../logger";
import { errorText } from "../logger";
import type { MailQueue } from "../core/ports";

/** The task function that drains the outbox (index.ts). */
export const MAIL_FUNCTION = "mail";

/**
 * Wakes by Cloud Tasks: one task for the `mail` function (locally, the emulator suite's own task
 * queue). A wake for later is named by its second, so the many drains that each ask to be woken
 * for the same retry make one task; a wake for now, or for a time already past (an entry given
 * back to be tried at once), is never named (a named task that already ran would swallow it).
 */
export function cloudTasksQueue(clock: Clock = systemClock): MailQueue {
  let queue: ReturnType<import("firebase-admin/functions").Functions["taskQueue"]> | undefined;
  return {
    async wake(at) {
      const { getFunctions } = require("firebase-admin/functions") as typeof import("firebase-admin/functions");
      queue ??= getFunctions().taskQueue(MAIL_FUNCTION);
      if (at === undefined || at.getTime() <= clock.now().getTime()) return void (await queue.enqueue({}));
      const second = Math.ceil(at.getTime() / 1000);
      try {
        await queue.enqueue({}, { scheduleTime: new Date(second * 1000), id: `wake-${second}` });
      } catch (err) {
        if ((err as { code?: unknown }).code !== "functions/task-already-exists") throw err;
      }
    },
  };
}

/** Drains running in this process (inProcessQueue), and who waits for them to end. */
let running = 0;
let idleWaiters: Array<() => void> = [];

/** Resolves once no in-process drain is running: what a test awaits before it counts the mail. */
export function inProcessDrainsIdle(): Promise<void> {
  if (running === 0) return Promise.resolve();
  return new Promise((resolve) => idleWaiters.push(resolve));
}

/**
 * Wakes by a timer in this process: for tests and the bench's servers, which run no task queue.
 * One timer per second asked for, unref'd so it never keeps a process alive. `later: false`
 * drops wakes for later (a test's clock is its own, and a retry it wants it drives by hand).
 * `atOnce` bounds the drains running together, as the task queue's dispatch limit does: a wake
 * past it asks for one more drain as soon as one ends (that drain reads the outbox then, so it
 * takes whatever the wakes that waited were for). Unbounded by default.
 */
export function inProcessQueue(
  drain: () => Promise<unknown>,
  clock: Clock,
  log: Logger,
  { later = true, atOnce = Infinity }: { later?: boolean; atOnce?: number } = {},
): MailQueue {
  const timers = new Map<number, NodeJS.Timeout>();
  let active = 0;
  let asked = false;
  const run = () => {
    if (active >= atOnce) return void (asked = true);
    active++;
    running++;
    void drain()
      .catch((err: unknown) => log.error("mail drain failed", { error: errorText(err) }))
      .finally(() => {
        active--;
        // Started before this one counts as ended, so nobody waiting for idle is told so between.
        if (asked) {
          asked = false;
          run();
        }
        if (--running > 0) return;
        const waiting = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiting) resolve();
      });
  };
  return {
    async wake(at) {
      // At once, so the drain reads the clock now: a test that steps its clock after the answer
      // must not find the mail out of time.
      if (at === undefined) return run();
      if (!later) return;
      const second = Math.ceil(at.getTime() / 1000);
      if (timers.has(second)) return;
      const timer = setTimeout(
        () => {
          timers.delete(second);
          run();
        },
        Math.max(0, second * 1000 - clock.now().getTime()),
      );
      timer.unref();
      timers.set(second, timer);
    },
  };
}
