/**
 * Cloud Tasks in this process: the queue behind a task function, for tests and the bench, which
 * run no task queue of their own. It keeps to what Cloud Tasks documents, and what the service
 * relies on (src/adapters/mail-queue.ts puts its wakes on it as on the real one):
 *
 * - A task with no schedule time, or one already past, is dispatched at once.
 * - A task for later is dispatched when its time comes. On the system clock, that is when that
 *   much real time has passed. On a clock a test moves by hand, it is when the test asks
 *   (`runDue`): a file's tests keep clocks apart on one database, and a drain on a clock minutes
 *   ahead would take every other test's mail in flight for a claim that lapsed, and send it again.
 * - A named task is refused with `functions/task-already-exists` while a task of that name is
 *   queued, and for an hour after it ran (Cloud Tasks keeps a name that long).
 * - At most `maxConcurrentDispatches` run together; the rest wait, in order, for a slot.
 * - A dispatch that fails is tried again after `minBackoffSeconds`, doubling each time up to
 *   `maxBackoffSeconds`, until `maxAttempts` have been made or `maxRetrySeconds` have passed since
 *   its first attempt, whichever comes first; then the task is dropped.
 *
 * Self-contained (type imports only), so node loads it from the bench as it is.
 */
import type { Clock } from "../../src/clock";
import type { QueueSettings, TaskEnqueuer } from "../../src/core/ports";

/** A clock a test moves by hand (test/support/fakes.ts). */
const byHand = (clock: Clock) => "advance" in clock;

export interface TaskQueueDouble extends TaskEnqueuer {
  /** Dispatches the tasks for later whose time has come on the clock (a clock moved by hand). */
  runDue(): void;
  /** Resolves once nothing is running or ready to run (tasks for later and retries aside). */
  idle(): Promise<void>;
  /** Something is running or ready to run. */
  running(): boolean;
  /** Something is running, ready, or waiting to be tried again or dispatched (tasks for later aside). */
  busy(): boolean;
  /** How many dispatches have started, and how many ran together at most. */
  readonly counts: { dispatched: number; most: number; failed: number; dropped: number };
}

const NAME_KEPT_MS = 60 * 60_000;

/** A task: the attempts made, and when the first was (its retries end `maxRetrySeconds` after). */
interface Task {
  attempt: number;
  first: number | null;
}
/** Cloud Tasks' default for `maxDoublings`. */
const MAX_DOUBLINGS = 16;

/** Every double in this module registry: what a test file awaits before it ends. */
const doubles = new Set<TaskQueueDouble>();

/** Resolves once no double in this process has anything running or ready (one may start another's). */
export async function allTasksIdle(): Promise<void> {
  while ([...doubles].some((d) => d.running())) for (const double of doubles) await double.idle();
}

/** The wait before attempt `attempt + 1` as Cloud Tasks computes it from the retry settings. */
export function backoffMs(settings: QueueSettings, attempt: number): number {
  const doublings = Math.min(attempt - 1, MAX_DOUBLINGS);
  return Math.min(settings.minBackoffSeconds * 2 ** doublings, settings.maxBackoffSeconds) * 1000;
}

export function taskQueueDouble(
  handler: () => Promise<unknown>,
  settings: QueueSettings,
  options: { clock: Clock; dispatchDelayMs?: number; onFailure?: (attempt: number, err: unknown) => void },
): TaskQueueDouble {
  const { clock } = options;
  const delay = options.dispatchDelayMs ?? 0;
  const names = new Map<string, number>();
  /** Tasks for later; `soon` for a retry or a dispatch on its way, which count as busy. */
  const later: Array<{ at: number; task: Task; soon: boolean }> = [];
  const ready: Task[] = [];
  let active = 0;
  let dispatching = 0;
  let waiters: Array<() => void> = [];
  const counts = { dispatched: 0, most: 0, failed: 0, dropped: 0 };

  const settle = () => {
    if (active > 0 || ready.length > 0) return;
    const waiting = waiters;
    waiters = [];
    for (const resolve of waiting) resolve();
  };
  const pump = () => {
    while (active < settings.maxConcurrentDispatches && ready.length > 0) {
      const task = ready.shift() as Task;
      task.attempt++;
      task.first ??= clock.now().getTime();
      const { attempt, first } = task;
      active++;
      counts.dispatched++;
      counts.most = Math.max(counts.most, active);
      // Called here, not on a later turn: the handler reads the clock as the task is dispatched.
      let run: Promise<unknown>;
      try {
        run = handler();
      } catch (err) {
        run = Promise.reject(err);
      }
      void run
        .then(
          () => undefined,
          (err: unknown) => {
            counts.failed++;
            options.onFailure?.(attempt, err);
            const retryAt = clock.now().getTime() + backoffMs(settings, attempt);
            if (attempt < settings.maxAttempts && retryAt - first <= settings.maxRetrySeconds * 1000)
              at(retryAt, task, true);
            else counts.dropped++;
          },
        )
        .finally(() => {
          active--;
          pump();
          settle();
        });
    }
    settle();
  };
  const due = () => {
    const now = clock.now().getTime();
    const come = later.filter((entry) => entry.at <= now).sort((a, b) => a.at - b.at);
    for (const entry of come) later.splice(later.indexOf(entry), 1);
    ready.push(...come.map((entry) => entry.task));
    pump();
  };
  const at = (time: number, task: Task, soon: boolean) => {
    const entry = { at: time, task, soon };
    later.push(entry);
    if (byHand(clock)) return;
    // A timer measures its wait on the loop's own clock, which can lag the system clock's reading:
    // it may fire a millisecond before `time` has come by clock.now(). Then it waits again for the
    // rest, rather than leaving the task for a wake that never comes.
    const arm = () =>
      setTimeout(
        () => {
          due();
          if (later.includes(entry)) arm();
        },
        Math.max(1, time - clock.now().getTime()),
      ).unref();
    arm();
  };
  const double: TaskQueueDouble = {
    async enqueue(_data, opts = {}) {
      const now = clock.now().getTime();
      if (opts.id !== undefined) {
        const kept = names.get(opts.id);
        if (kept !== undefined && kept > now)
          throw Object.assign(new Error(`a task named ${opts.id} already exists`), {
            code: "functions/task-already-exists",
          });
        names.set(opts.id, Math.max(now, opts.scheduleTime?.getTime() ?? now) + NAME_KEPT_MS);
      }
      const time = opts.scheduleTime?.getTime() ?? now;
      if (time > now) return at(time, { attempt: 0, first: null }, false);
      if (delay === 0) {
        ready.push({ attempt: 0, first: null });
        return pump();
      }
      // The queue's own dispatch latency, in real time whatever the clock.
      dispatching++;
      setTimeout(() => {
        dispatching--;
        ready.push({ attempt: 0, first: null });
        pump();
      }, delay).unref();
    },
    runDue: due,
    idle: () => (active === 0 && ready.length === 0 ? Promise.resolve() : new Promise((r) => waiters.push(r))),
    running: () => active > 0 || ready.length > 0,
    busy: () => active > 0 || ready.length > 0 || dispatching > 0 || later.some((entry) => entry.soon),
    counts,
  };
  doubles.add(double);
  return double;
}
