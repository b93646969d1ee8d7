import { sharedReads } from "./shared-read";

/** A read held open until the test lets it end, recording each start with the arguments it was given. */
function heldReads(waitMs = 60_000) {
  const started: Array<{ key: string; args: string[]; end: (value: string) => void; fail: (e: Error) => void }> = [];
  const read = sharedReads<string, string>(
    (key, args) =>
      new Promise<string>((resolve, reject) => {
        started.push({ key, args: [...args], end: resolve, fail: reject });
      }),
    waitMs,
  );
  return { read, started };
}

const settled = () => new Promise((r) => setImmediate(r));

describe("sharedReads", () => {
  it("starts a read at once for a caller that finds none running", async () => {
    const { read, started } = heldReads();
    const answer = read("k", "a");
    await settled();
    expect(started.map((s) => s.args)).toEqual([["a"]]);
    started[0]?.end("one");
    await expect(answer).resolves.toBe("one");
  });

  it("gives the callers that asked while a read ran one read of their own, started after that one ended", async () => {
    const { read, started } = heldReads();
    const first = read("k", "a");
    await settled();
    const second = read("k", "b");
    const third = read("k", "c");
    await settled();
    // Not joined to the read running: it started before they asked.
    expect(started).toHaveLength(1);
    started[0]?.end("one");
    await expect(first).resolves.toBe("one");
    await settled();
    expect(started.map((s) => s.args)).toEqual([["a"], ["b", "c"]]);
    started[1]?.end("two");
    await expect(second).resolves.toBe("two");
    await expect(third).resolves.toBe("two");
  });

  it("never serves a caller with a read that started before it asked", async () => {
    const { read, started } = heldReads();
    let ended = 0;
    const endOne = () => started[ended]?.end(`read ${ended++}`);
    const asked: Array<{ arg: string; reads: number; answer: Promise<string> }> = [];
    for (let i = 0; i < 12; i++) {
      const arg = String(i);
      asked.push({ arg, reads: started.length, answer: read("k", arg) });
      await settled();
      // Now and then, the running read ends while callers wait.
      if (i % 3 === 2) endOne();
      await settled();
    }
    while (ended < started.length) {
      endOne();
      await settled();
    }
    for (const a of asked) {
      const served = Number((await a.answer).slice("read ".length));
      expect(started[served]?.args).toContain(a.arg);
      // The read that served it had not started when it asked.
      expect(served).toBeGreaterThanOrEqual(a.reads);
    }
    expect(started.length).toBeLessThan(asked.length);
  });

  it("fails every caller that shared a failed read, and reads afresh for the next", async () => {
    const { read, started } = heldReads();
    const first = read("k", "a");
    await settled();
    const second = read("k", "b");
    const third = read("k", "c");
    started[0]?.end("one");
    await settled();
    started[1]?.fail(new Error("store down"));
    await expect(first).resolves.toBe("one");
    await expect(second).rejects.toThrow("store down");
    await expect(third).rejects.toThrow("store down");
    await settled();
    const later = read("k", "d");
    await settled();
    expect(started.map((s) => s.args)).toEqual([["a"], ["b", "c"], ["d"]]);
    started[2]?.end("three");
    await expect(later).resolves.toBe("three");
  });

  it("reads other keys alongside", async () => {
    const { read, started } = heldReads();
    const one = read("k", "a");
    const other = read("j", "b");
    await settled();
    expect(started.map((s) => [s.key, s.args])).toEqual([
      ["k", ["a"]],
      ["j", ["b"]],
    ]);
    started[1]?.end("j's");
    started[0]?.end("k's");
    await expect(other).resolves.toBe("j's");
    await expect(one).resolves.toBe("k's");
  });

  it("starts the gathered read anyway when the one running hangs past waitMs, and forgets no key in use", async () => {
    jest.useFakeTimers({ doNotFake: ["setImmediate"] });
    try {
      const { read, started } = heldReads(2000);
      void read("k", "a");
      await settled();
      const waiting = read("k", "b");
      await settled();
      jest.advanceTimersByTime(1999);
      await settled();
      expect(started).toHaveLength(1);
      jest.advanceTimersByTime(1);
      await settled();
      expect(started.map((s) => s.args)).toEqual([["a"], ["b"]]);
      started[1]?.end("two");
      await expect(waiting).resolves.toBe("two");
      // The hung read still runs: a caller now gathers behind it, and starts when it ends.
      const later = read("k", "c");
      await settled();
      expect(started).toHaveLength(2);
      started[0]?.end("one, late");
      await settled();
      expect(started.map((s) => s.args)).toEqual([["a"], ["b"], ["c"]]);
      started[2]?.end("three");
      await expect(later).resolves.toBe("three");
      // All ended: the key is forgotten, and the next caller reads at once.
      await settled();
      const fresh = read("k", "d");
      await settled();
      expect(started.map((s) => s.args)).toEqual([["a"], ["b"], ["c"], ["d"]]);
      started[3]?.end("four");
      await expect(fresh).resolves.toBe("four");
    } finally {
      jest.useRealTimers();
    }
  });
});
