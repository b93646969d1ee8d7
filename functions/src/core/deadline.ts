/** What `withDeadline` rejects with when the work took too long. */
export class DeadlineExceeded extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = "DeadlineExceeded";
  }
}

/** Rejects when `work` has not settled within `ms`; the work itself runs on (it cannot be stopped). */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(ms)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * What is left of a deadline shared by the steps of one piece of work (a request's, say), so that
 * however slow one step is, the work still ends in time to answer for itself. `take` gives a step
 * the time left less `reserve`, kept for the steps after it, and at most `cap`; never less than
 * 1 ms, so a step with no time left fails at once, as a step that ran out.
 */
export interface Budget {
  take(reserve?: number, cap?: number): number;
}

/** The longest delay a timer takes; past it, Node fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A budget that ends at `endsAt` on `now`'s scale (a monotonic clock in milliseconds). */
export function budgetUntil(endsAt: number, now: () => number): Budget {
  return {
    take: (reserve = 0, cap = MAX_TIMER_MS) =>
      Math.max(1, Math.min(cap, MAX_TIMER_MS, Math.floor(endsAt - now() - reserve))),
  };
}
