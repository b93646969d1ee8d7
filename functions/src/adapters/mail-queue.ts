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

/** Follow-up drains in a row at most, for wakes to a time past (see inProcessQueue). */
export const FOLLOW_UPS = 5;
/** The pause before a follow-up drain: what kept its entries locked has time to end. */
const FOLLOW_UP_PAUSE_MS = 100;

/**
 * Wakes by a timer in this process: for tests and the bench's servers, which run no task queue.
 * A wake for now runs a drain at once. A wake for a time already past (an entry given back after
 * a lost race, or left to a later drain by one whose claim was locked) runs one more drain once
 * this queue's drains have all ended, as the task queue would run it: not beside them, where it
 * would only meet the same locks again. At most FOLLOW_UPS follow-ups come in a row until a wake
 * for now, so a store that refuses every transaction cannot keep the queue busy. A wake for
 * later waits on a timer, one per second asked for, unref'd so it never keeps a process alive;
 * `later: false` drops those (a test's clock is its own, and a retry it wants it drives by hand).
 */
export function inProcessQueue(
  drain: () => Promise<unknown>,
  clock: Clock,
  log: Logger,
  { later = true }: { later?: boolean } = {},
): MailQueue {
  const timers = new Map<number, NodeJS.Timeout>();
  let active = 0;
  let followUpAsked = false;
  let followUps = 0;
  const followUp = () => {
    followUpAsked = false;
    if (followUps++ < FOLLOW_UPS) run(FOLLOW_UP_PAUSE_MS);
  };
  const run = (pauseMs = 0) => {
    running++;
    active++;
    const paused = pauseMs === 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, pauseMs));
    void paused
      .then(drain)
      .catch((err: unknown) => log.error("mail drain failed", { error: errorText(err) }))
      .finally(() => {
        if (--active === 0 && followUpAsked) followUp();
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
      if (at === undefined) {
        followUps = 0;
        return run();
      }
      if (at.getTime() <= clock.now().getTime()) {
        followUpAsked = true;
        if (active === 0) followUp();
        return;
      }
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
