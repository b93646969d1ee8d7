/** Stand-ins the tests step or silence: a clock moved by hand, and a logger that says nothing. */
import type { Clock } from "../../src/clock";
import type { Logger } from "../../src/logger";

export interface ManualClock extends Clock {
  set(at: Date): void;
  advance(ms: number): void;
}

export function manualClock(start: Date = new Date("2026-01-01T00:00:00Z")): ManualClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (at) => {
      current = at.getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
