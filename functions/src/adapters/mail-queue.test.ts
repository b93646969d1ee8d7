import { MINUTE, SECOND } from "../clock";
import { FOLLOW_UPS, inProcessDrainsIdle, inProcessQueue } from "./mail-queue";
import type { MailQueue } from "../core/ports";
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

  it("runs one more drain for a wake to a time past, once the drains running have ended, as the task queue would", async () => {
    const clock = manualClock();
    const order: string[] = [];
    let first = true;
    const queue: MailQueue = inProcessQueue(
      async () => {
        const mine = first ? "first" : "follow-up";
        first = false;
        order.push(`${mine} starts`);
        await tick();
        // A drain that left an entry due asks to be woken for it, while it still runs.
        if (mine === "first") await queue.wake(new Date(clock.now().getTime() - MINUTE));
        if (mine === "first") await queue.wake(clock.now());
        await tick();
        order.push(`${mine} ends`);
      },
      clock,
      silentLogger,
      { later: false },
    );
    await queue.wake(undefined);
    await inProcessDrainsIdle();
    expect(order).toEqual(["first starts", "first ends", "follow-up starts", "follow-up ends"]);
  });

  it("stops following up after FOLLOW_UPS drains in a row that each ask again, until a wake for now", async () => {
    const clock = manualClock();
    let runs = 0;
    const queue: MailQueue = inProcessQueue(
      async () => {
        runs++;
        await queue.wake(clock.now());
      },
      clock,
      silentLogger,
      { later: false },
    );
    await queue.wake(undefined);
    await inProcessDrainsIdle();
    expect(runs).toBe(1 + FOLLOW_UPS);
    await queue.wake(undefined);
    await inProcessDrainsIdle();
    expect(runs).toBe(2 * (1 + FOLLOW_UPS));
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
