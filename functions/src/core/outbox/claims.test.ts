import { HOUR, MINUTE, SECOND } from "../../clock";
import { MAX_ATTEMPTS, retryDelay, SHORT_LIVED_MS } from "./claims";

/** The draw at its middle (no jitter), at its least (−20 %) and at its most (+20 %). */
const middle = { int: () => 200 };
const least = { int: (lo: number) => lo };
const most = { int: (_lo: number, hi: number) => hi - 1 };

describe("retryDelay", () => {
  it("waits 15 s, 45 s, 2¼ min, … for mail that keeps for a day, up to four hours", () => {
    const waits = [1, 2, 3, 4, 9].map((n) => retryDelay(n, middle, 24 * HOUR) / SECOND);
    expect(waits).toEqual([15, 45, 135, 405, 4 * 60 * 60]);
  });

  it("tries mail that lapses within the hour (a code) again at least once a minute", () => {
    const waits = [1, 2, 3, 4, 9].map((n) => retryDelay(n, middle, 10 * MINUTE) / SECOND);
    expect(waits).toEqual([15, 45, 60, 60, 60]);
    expect(retryDelay(5, most, SHORT_LIVED_MS)).toBe(72 * SECOND);
    expect(retryDelay(5, least, SHORT_LIVED_MS)).toBe(48 * SECOND);
    expect(retryDelay(3, middle, SHORT_LIVED_MS + 1)).toBe(135 * SECOND);
  });

  it("fits a code's ten attempts within its ten minutes, however the draws fall", () => {
    let waited = 0;
    for (let n = 1; n < MAX_ATTEMPTS; n++) waited += retryDelay(n, most, 10 * MINUTE);
    expect(waited).toBeLessThan(10 * MINUTE);
  });
});
