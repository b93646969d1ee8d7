import { SECOND } from "../clock";
import { inProcessDrainsIdle, inProcessQueue } from "./mail-queue";
import { manualClock, silentLogger } from "../../test/support/fakes";

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe("the in-process mail queue", () => {
  it("runs a drain at once for each wake for now, side by side", async () => {
    let [runs, atOnce, most] = [0, 0, 0];
    const queue = inProcessQueue(
      async () => {
        runs++;
        most = Math.max(most, ++atOnce);
        await tick();
        atOnce--;
      },
      manualClock(),
      silentLogger,
      { later: false },
    );
    await Promise.all([queue.wake(undefined), queue.wake(undefined), queue.wake(undefined)]);
    await inProcessDrainsIdle();
    expect([runs, most]).toEqual([3, 3]);
  });

  it("runs at most `atOnce` drains together, and one more as soon as one ends for the wakes past it", async () => {
    let [runs, atOnce, most] = [0, 0, 0];
    const queue = inProcessQueue(
      async () => {
        runs++;
        most = Math.max(most, ++atOnce);
        await tick();
        atOnce--;
      },
      manualClock(),
      silentLogger,
      { later: false, atOnce: 2 },
    );
    await Promise.all(Array.from({ length: 10 }, () => queue.wake(undefined)));
    await inProcessDrainsIdle();
    expect([runs, most]).toEqual([3, 2]);
    await queue.wake(undefined);
    await inProcessDrainsIdle();
    expect(runs).toBe(4);
  });

  it("drops a wake for later where asked to, and otherwise runs it when its time comes, once for the same second", async () => {
    const clock = manualClock();
    // The clock stands on a whole second: three times within the next one.
    const start = clock.now().getTime();
    expect(start % 1000).toBe(0);
    const soon = [start + 200, start + 200, start + 999].map((at) => new Date(at));
    let [dropped, kept] = [0, 0];
    const dropping = inProcessQueue(async () => void dropped++, clock, silentLogger, { later: false });
    const keeping = inProcessQueue(async () => void kept++, clock, silentLogger);
    await Promise.all(soon.map((at) => dropping.wake(at)));
    await Promise.all(soon.map((at) => keeping.wake(at)));
    expect([dropped, kept]).toEqual([0, 0]);
    await new Promise((resolve) => setTimeout(resolve, SECOND + 500));
    await inProcessDrainsIdle();
    expect([dropped, kept]).toEqual([0, 1]);
  });
});
