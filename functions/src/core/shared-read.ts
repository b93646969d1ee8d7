/**
 * One read on a key shared by the callers who ask for it while another read of that key is
 * running, on this instance. A caller that finds none running starts one at once, so a quiet
 * instance adds no wait. Callers that ask while one runs do not join it (it started before they
 * asked): they wait together for the next, which starts as the running one ends and is given
 * every waiting caller's argument. So each caller's read starts after the caller asked, and sees
 * every write the caller made before asking: a count that must hold the caller's own record (a
 * send's, in the ledger) holds it, shared or not. Under load the reads per caller shrink with
 * the load instead of queueing behind it; at most two reads of a key are alive at once, one
 * running and one gathering.
 *
 * If a read fails, every caller that shared it fails with its error. A key is forgotten as soon
 * as no read of it runs, so the instance holds only keys in use.
 */
export function sharedReads<A, R>(read: (key: string, args: A[]) => Promise<R>): (key: string, arg: A) => Promise<R> {
  interface Gathering {
    args: A[];
    result: Promise<R>;
    start: () => void;
  }
  interface Key {
    /** A read that will start when the running one ends, and the callers waiting for it. */
    next: Gathering | null;
  }
  const keys = new Map<string, Key>();

  function run(key: string, state: Key, args: A[]): Promise<R> {
    const result = Promise.resolve().then(() => read(key, args));
    void result.then(
      () => ended(key, state),
      () => ended(key, state),
    );
    return result;
  }

  function ended(key: string, state: Key): void {
    const next = state.next;
    state.next = null;
    if (next === null) keys.delete(key);
    else next.start();
  }

  return (key, arg) => {
    const state = keys.get(key);
    if (state === undefined) {
      const fresh: Key = { next: null };
      keys.set(key, fresh);
      return run(key, fresh, [arg]);
    }
    if (state.next === null) {
      let start!: () => void;
      const args: A[] = [];
      const result = new Promise<R>((resolve, reject) => {
        start = () => run(key, state, args).then(resolve, reject);
      });
      state.next = { args, result, start };
    }
    state.next.args.push(arg);
    return state.next.result;
  };
}
