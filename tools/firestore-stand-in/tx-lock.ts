/**
 * One global FIFO lock for read-write transactions.
 *
 * The stand-in's storage has no isolation of its own, so we get serialisable transactions the
 * blunt way: at most one read-write transaction (or plain commit) runs at a time. A lock holder
 * that never commits or rolls back (crashed or abandoned client) is evicted after `timeoutMs`;
 * its id stops being the holder, so its late reads and commit are refused with ABORTED.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// Ids are readable ("rw-12") so that a stray id in a log or a retry says what it was.
const READ_WRITE = "rw-";
const READ_ONLY = "ro-";

export type TxLockOptions = {
  timeoutMs: number;
  /** Told when a holder is evicted by the timeout. */
  onTimeout?: (id: string) => void;
};

export class TxLock {
  private readonly timeoutMs: number;
  private readonly onTimeout: (id: string) => void;
  private readonly waiting: Array<(id: Uint8Array) => void> = [];
  private holder: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private counter = 0;

  constructor(options: TxLockOptions) {
    this.timeoutMs = options.timeoutMs;
    this.onTimeout = options.onTimeout ?? (() => {});
  }

  /** Resolves with a fresh read-write transaction id once every earlier caller has released. */
  acquire(): Promise<Uint8Array> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (this.holder === null) this.grantNext();
    });
  }

  /** Read-only transactions take no lock, but still get an id of their own. */
  readOnlyId(): Uint8Array {
    return encoder.encode(`${READ_ONLY}${++this.counter}`);
  }

  holds(id: Uint8Array): boolean {
    return this.holder !== null && this.holder === decoder.decode(id);
  }

  /** True for ids this lock handed out for read-write use, whether or not they still hold it. */
  isReadWriteId(id: Uint8Array): boolean {
    return decoder.decode(id).startsWith(READ_WRITE);
  }

  /** Releasing an id that no longer holds the lock (rolled back after a timeout, say) is a no-op. */
  release(id: Uint8Array): void {
    if (this.holds(id)) this.grantNext();
  }

  /** Stops the timer so a closing server does not keep the process alive. */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private grantNext(): void {
    this.dispose();
    const next = this.waiting.shift();
    if (!next) {
      this.holder = null;
      return;
    }
    const id = `${READ_WRITE}${++this.counter}`;
    this.holder = id;
    this.timer = setTimeout(() => {
      if (this.holder !== id) return;
      this.onTimeout(id);
      this.grantNext();
    }, this.timeoutMs);
    this.timer.unref();
    next(encoder.encode(id));
  }
}
