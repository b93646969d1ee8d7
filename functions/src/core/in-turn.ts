/**
 * Work on one key, on this instance, one at a time, in the order it was asked for; work on other
 * keys runs alongside. For decisions on one document that many requests may race to make at once
 * (one refresh token presented ten times): in turn, each transaction sees what the one before it
 * committed, where at once they would abort one another in the store and some would be told to
 * try again (503) rather than decided. Across instances the store's transaction still decides.
 * A key is forgotten as soon as its last work has ended, so the instance holds only keys in use.
 */
export function inTurn(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const last = new Map<string, Promise<void>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const before = last.get(key) ?? Promise.resolve();
    // After the work before it has ended, however it ended.
    const mine = before.then(work);
    const ended = mine.then(
      () => undefined,
      () => undefined,
    );
    last.set(key, ended);
    void ended.then(() => {
      if (last.get(key) === ended) last.delete(key);
    });
    return mine;
  };
}
