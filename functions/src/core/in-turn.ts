/**
 * Work on one key, on this instance, one at a time, in the order it was asked for; work on other
 * keys runs alongside. For decisions on one document that many requests may race to make at once
 * (one refresh token presented ten times): in turn, each transaction sees what the one before it
 * committed, where at once they would abort one another in the store and some would be told to
 * try again (503) rather than decided. Across instances the store's transaction still decides.
 *
 * A line is bounded, and so is a wait in it: work that finds `limits.waiting` others waiting on
 * its key, or whose turn comes after `limits.waitMs`, is refused (`TurnRefused`) and never runs,
 * so that no line grows without end, and work whose caller has been told to try again (a request
 * past its deadline) changes nothing when its turn comes. A key is forgotten as soon as its last
 * work has ended, so the instance holds only keys in use.
 */
export class TurnRefused extends Error {
  constructor(readonly why: "line full" | "waited too long") {
    super(`not run: ${why}`);
  }
}

export interface TurnLimits {
  /** How many may wait on one key behind the one running. */
  waiting: number;
  /** How long one may wait for its turn, in ms. */
  waitMs: number;
}

interface Line {
  last: Promise<void>;
  waiting: number;
}

export function inTurn(
  limits: TurnLimits,
  now: () => number = () => performance.now(),
): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const lines = new Map<string, Line>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const line = lines.get(key) ?? { last: Promise.resolve(), waiting: 0 };
    if (line.waiting >= limits.waiting) return Promise.reject(new TurnRefused("line full"));
    const asked = now();
    line.waiting++;
    // After the work before it has ended, however it ended.
    const mine = line.last.then(() => {
      line.waiting--;
      if (now() - asked > limits.waitMs) throw new TurnRefused("waited too long");
      return work();
    });
    const ended = mine.then(
      () => undefined,
      () => undefined,
    );
    line.last = ended;
    lines.set(key, line);
    void ended.then(() => {
      if (line.last === ended) lines.delete(key);
    });
    return mine;
  };
}
