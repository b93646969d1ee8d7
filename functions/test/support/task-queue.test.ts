/**
 * The stand-in for Cloud Tasks, held to what Cloud Tasks documents, and the service's wakes
 * (cloudTasksQueue) on it as on the real queue. Pure: no emulator, no stack (the `unit` tier).
 */
import { cloudTasksQueue, MAIL_QUEUE } from "../../src/adapters/mail-queue";
import type { QueueSettings } from "../../src/core/ports";
import { systemClock } from "../../src/clock";
import { manualClock } from "./fakes";
import { allTasksIdle, backoffMs, taskQueueDouble } from "./task-queue";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
const SETTINGS: QueueSettings = {
  maxConcurrentDispatches: 2,
  maxAttempts: 3,
  maxRetrySeconds: 3600,
  minBackoffSeconds: 10,
  maxBackoffSeconds: 15,
};

/** A handler that counts its runs and how many ran together, failing while `failing` says so. */
function counted(failing = () => false) {
  const seen = { runs: 0, together: 0, most: 0 };
  const handler = async () => {
    seen.runs++;
    seen.most = Math.max(seen.most, ++seen.together);
    await tick();
    seen.together--;
    if (failing()) throw new Error("the task failed");
  };
  return { seen, handler };
}

describe("the task queue's stand-in", () => {
  it("dispatches a task with no time, or a time already past, at once", async () => {
    const clock = manualClock();
    const { seen, handler } = counted();
    const queue = taskQueueDouble(handler, SETTINGS, { clock });
    await queue.enqueue({});
    await queue.enqueue({}, { scheduleTime: new Date(clock.now().getTime() - 60_000), id: "past" });
    await allTasksIdle();
    expect(seen.runs).toBe(2);
  });

  it("dispatches a task for later once the clock has come to it, not before", async () => {
    const clock = manualClock();
    const { seen, handler } = counted();
    const queue = taskQueueDouble(handler, SETTINGS, { clock });
    await queue.enqueue({}, { scheduleTime: new Date(clock.now().getTime() + 30_000) });
    clock.advance(29_999);
    queue.runDue();
    await allTasksIdle();
    expect(seen.runs).toBe(0);
    clock.advance(1);
    queue.runDue();
    await allTasksIdle();
    expect(seen.runs).toBe(1);
  });

  it("dispatches a task for later on the system clock when that much real time has passed", async () => {
    const { seen, handler } = counted();
    const queue = taskQueueDouble(handler, SETTINGS, { clock: systemClock });
    await queue.enqueue({}, { scheduleTime: new Date(systemClock.now().getTime() + 40) });
    expect(seen.runs).toBe(0);
    // A timer fires no sooner than asked, and later on a busy machine: waited for, up to 2 s.
    for (let waited = 0; seen.runs === 0 && waited < 2000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await allTasksIdle();
    expect(seen.runs).toBe(1);
  });

  it("runs a task whose timer fired before the clock it reads had come to its time", async () => {
    const { seen, handler } = counted();
    // The system clock as the loop's timers can see it: read 5 ms behind once the task is queued,
    // so its timer fires, by this clock, 5 ms before the task is due.
    let lag = 0;
    const lagging = { now: () => new Date(systemClock.now().getTime() - lag) };
    const queue = taskQueueDouble(handler, SETTINGS, { clock: lagging });
    await queue.enqueue({}, { scheduleTime: new Date(lagging.now().getTime() + 30) });
    lag = 5;
    for (let waited = 0; seen.runs === 0 && waited < 2000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await allTasksIdle();
    expect(seen.runs).toBe(1);
  });

  it("refuses a second task of one name, also after the first ran, as task-already-exists", async () => {
    const clock = manualClock();
    const queue = taskQueueDouble(counted().handler, SETTINGS, { clock });
    await queue.enqueue({}, { id: "wake-1" });
    await expect(queue.enqueue({}, { id: "wake-1" })).rejects.toMatchObject({ code: "functions/task-already-exists" });
    await allTasksIdle();
    await expect(queue.enqueue({}, { id: "wake-1" })).rejects.toMatchObject({ code: "functions/task-already-exists" });
    // Cloud Tasks keeps a name for about an hour after its task ran.
    clock.advance(61 * 60_000);
    await expect(queue.enqueue({}, { id: "wake-1" })).resolves.toBeUndefined();
  });

  it("runs at most maxConcurrentDispatches together, and every task in the end", async () => {
    const { seen, handler } = counted();
    const queue = taskQueueDouble(handler, SETTINGS, { clock: manualClock() });
    await Promise.all(Array.from({ length: 7 }, () => queue.enqueue({})));
    await allTasksIdle();
    expect(seen).toEqual({ runs: 7, together: 0, most: 2 });
  });

  it("tries a failed task again after its backoff, doubling, until maxAttempts, then drops it", async () => {
    const clock = manualClock();
    const { seen, handler } = counted(() => true);
    const queue = taskQueueDouble(handler, SETTINGS, { clock });
    await queue.enqueue({});
    await allTasksIdle();
    expect(seen.runs).toBe(1);
    const step = async (ms: number) => {
      clock.advance(ms);
      queue.runDue();
      await allTasksIdle();
      return seen.runs;
    };
    expect(await step(9_999)).toBe(1);
    expect(await step(1)).toBe(2);
    expect(queue.busy()).toBe(true);
    // 20 s doubled, held to the 15 s most.
    expect(await step(15_000)).toBe(3);
    expect([queue.counts.dropped, queue.busy()]).toEqual([1, false]);
    expect(await step(3_600_000)).toBe(3);
  });

  it("stops trying a failing task once maxRetrySeconds have passed since its first attempt", async () => {
    const clock = manualClock();
    const { seen, handler } = counted(() => true);
    const queue = taskQueueDouble(handler, { ...SETTINGS, maxAttempts: 100, maxRetrySeconds: 40 }, { clock });
    await queue.enqueue({});
    await allTasksIdle();
    // Attempts at 0, 10, 25 and 40 s; the next would be at 55 s, past the 40 s.
    for (let i = 0; i < 10; i++) {
      clock.advance(5_000);
      queue.runDue();
      await allTasksIdle();
    }
    expect([seen.runs, queue.counts.dropped]).toEqual([4, 1]);
  });

  it("computes the backoff as Cloud Tasks does: min, doubled each attempt, held to max", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffMs(MAIL_QUEUE, n) / 1000)).toEqual([10, 20, 40, 60, 60, 60]);
  });
});

describe("the service's wakes on the task queue (cloudTasksQueue)", () => {
  it("runs a wake for a time already past at once: an entry given back must not wait for nobody", async () => {
    const clock = manualClock();
    const { seen, handler } = counted();
    const wakes = cloudTasksQueue(clock, () => taskQueueDouble(handler, MAIL_QUEUE, { clock }));
    await wakes.wake(new Date(clock.now().getTime() - 1));
    await wakes.wake(new Date(clock.now().getTime() - 1));
    await allTasksIdle();
    expect(seen.runs).toBe(2);
  });

  it("makes one task of the wakes for one second a while ahead, and another for the next second", async () => {
    const clock = manualClock();
    const ahead = clock.now().getTime() + 60_000;
    const { seen, handler } = counted();
    let queue: ReturnType<typeof taskQueueDouble> | undefined;
    const wakes = cloudTasksQueue(clock, () => (queue = taskQueueDouble(handler, MAIL_QUEUE, { clock })));
    await Promise.all([ahead + 200, ahead + 200, ahead + 999, ahead + 1500].map((at) => wakes.wake(new Date(at))));
    clock.advance(60_000);
    for (const expected of [1, 2]) {
      clock.advance(1000);
      queue!.runDue();
      await allTasksIdle();
      expect(seen.runs).toBe(expected);
    }
  });

  it("is not swallowed by the task named for its second that already ran, on a clock a little ahead", async () => {
    const clock = manualClock();
    const second = clock.now().getTime() / 1000 + 30;
    const { seen, handler } = counted();
    let queue: ReturnType<typeof taskQueueDouble> | undefined;
    const wakes = cloudTasksQueue(clock, () => (queue = taskQueueDouble(handler, MAIL_QUEUE, { clock })));
    // A drain asks to be woken for an entry due just before `second`: one task, named for it.
    await wakes.wake(new Date(second * 1000 - 20));
    clock.set(new Date(second * 1000));
    queue!.runDue();
    await allTasksIdle();
    expect(seen.runs).toBe(1);
    // The drain it ran read a clock 50 ms behind the queue's, found the entry not yet due, and
    // asked again for the same second.
    clock.set(new Date(second * 1000 - 50));
    await wakes.wake(new Date(second * 1000 - 20));
    clock.set(new Date(second * 1000));
    queue!.runDue();
    await allTasksIdle();
    expect(seen.runs).toBe(2);
  });
});
