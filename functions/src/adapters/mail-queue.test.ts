import { MINUTE, SECOND } from "../clock";
import { inProcessDrainsIdle, inProcessQueue } from "./mail-queue";
import { manualClock, silentLogger } from "../../test/support/fakes";

describe("the in-process mail queue", () => {
  it("runs a wake for now, or for a time already past, at once, as the task queue does, where wakes for later are dropped", async () => {
    let runs = 0;
    const clock = manualClock();
    const queue = inProcessQueue(async () => void runs++, clock, silentLogger, { later: false });
    await queue.wake(new Date(clock.now().getTime() + SECOND));
    await inProcessDrainsIdle();
    expect(runs).toBe(0);
    await queue.wake(undefined);
    await queue.wake(clock.now());
    await queue.wake(new Date(clock.now().getTime() - MINUTE));
    await inProcessDrainsIdle();
    expect(runs).toBe(3);
  });

  it("runs a wake for later when its time comes, once for the many asking for the same second", async () => {
    let runs = 0;
    const clock = manualClock();
    const queue = inProcessQueue(async () => void runs++, clock, silentLogger);
    // Three times within the second after the clock's (which stands on a whole second).
    const start = clock.now().getTime();
    expect(start % 1000).toBe(0);
    await Promise.all([start + 200, start + 200, start + 999].map((at) => queue.wake(new Date(at))));
    expect(runs).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await inProcessDrainsIdle();
    expect(runs).toBe(1);
  });
});
