import { inTrace } from "../trace";

/**
 * Group commit: concurrent requests of one kind are decided together, many to one transaction.
 *
 * A request that finds fewer than `inFlight` batches running is decided at once, alone, so a
 * quiet instance adds no latency. Requests that arrive while the batches are running wait, and
 * go together in the next batch that starts: under load each transaction (and each commit)
 * carries many decisions, and the database work per request shrinks with the load instead of
 * queueing behind it. Two batches in flight keep one reading while the other commits.
 *
 * Items that share a key never go in one batch: the later waits for another, whose transaction
 * then sees what the earlier wrote (or conflicts with it, and is retried, as any two would). If `decide` fails, every item of that batch fails with its error; an
 * item's own refusal is part of its outcome and touches no other item.
 */
export function groupCommit<I, O>(
  decide: (items: I[]) => Promise<O[]>,
  keyOf: (item: I) => string,
  limits: { maxBatch: number; inFlight: number },
): (item: I) => Promise<O> {
  type Waiting = { item: I; resolve: (outcome: O) => void; reject: (error: unknown) => void };
  let queue: Waiting[] = [];
  let running = 0;

  function nextBatch(): Waiting[] {
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    const keys = new Set<string>();
    for (const waiting of queue) {
      const key = keyOf(waiting.item);
      if (batch.length < limits.maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(waiting);
      } else {
        rest.push(waiting);
      }
    }
    queue = rest;
    return batch;
  }

  async function drain(): Promise<void> {
    running++;
    while (queue.length > 0) {
      const batch = nextBatch();
      try {
        const outcomes = await decide(batch.map((w) => w.item));
        if (outcomes.length !== batch.length)
          throw new Error(`group commit: ${outcomes.length} outcomes for ${batch.length} items`);
        batch.forEach((w, i) => w.resolve(outcomes[i] as O));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    running--;
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      // Outside the trace of whichever request started it: it decides other requests' items too.
      if (running < limits.inFlight) void inTrace(null, drain);
    });
}
