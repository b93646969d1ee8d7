/**
 * One read on a key shared by the callers who ask for it while another read of that key is
 * running, on this instance. A caller that finds none running starts one at once, so a quiet
 * instance adds no wait. Callers that ask while one runs do not join it (it started before they
 * asked): they wait together for the next, which starts as the running one ends and is given
 * every waiting caller's argument. So each caller's read starts after the caller asked, and sees
 * every write the caller made before asking: a count that must hold the caller's own record (a
 * send's, in the ledger) holds it, shared or not. Under load the reads per caller shrink with
 * the load instead of queueing behind it: one read of a key runs, and one gathers.
 *
 * A read that runs past `waitMs` (a store that hangs) holds no one: the gathered read starts
 * anyway, so no caller waits on another's read longer than that.
 *
 * If a read fails, every caller that shared it fails with its error. A key is forgotten as soon
 * as no read of it runs, so the instance holds only keys in use.
 */
export function sharedReads<A, R>(
  read: (key: string, args: A[]) => Promise<R>,
  waitMs: number,
): (key: string, arg: A) => Promise<R> {
  interface Gathering {
    args: A[];
    result: Promise<R>;
    start: () => void;
  }
  interface Key {
    running: number;
    /** The read that starts when one running ends (or at `waitMs`), and the callers waiting for it. */
    next: Gathering | null;
  }
  const keys = new Map<string, Key>();

  function run(key: string, state: Key, args: A[]): Promise<R> {
    state.running++;
    const result = Promise.resolve().then(() => read(key, args));
    const ended = () => {
      state.running--;
      if (state.next !== null) state.next.start();
      else if (state.running === 0 && keys.get(key) === state) keys.delete(key);
    };
    void result.then(ended, ended);
    return result;
  }

  function gather(key: string, state: Key): Gathering {
    let started = false;
    const args: A[] = [];
    let begin!: () => void;
    const result = new Promise<R>((resolve, reject) => {
      begin = () => void run(key, state, args).then(resolve, reject);
    });
    const gathering: Gathering = {
      args,
      result,
      start: () => {
        if (started) return;
        started = true;
        clearTimeout(timer);
        if (state.next === gathering) state.next = null;
        begin();
      },
    };
    // A read that hangs holds no one past waitMs: theirs starts anyway, after they asked.
    const timer = setTimeout(gathering.start, waitMs);
    timer.unref?.();
    return gathering;
  }

  return (key, arg) => {
    const state = keys.get(key);
    if (state === undefined) {
      const fresh: Key = { running: 0, next: null };
      keys.set(key, fresh);
      return run(key, fresh, [arg]);
    }
    state.next ??= gather(key, state);
    state.next.args.push(arg);
    return state.next.result;
  };
}
