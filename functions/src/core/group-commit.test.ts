import { groupCommit } from "./group-commit";
import { currentTrace, inTrace } from "../trace";

/** A decide() whose batches the test ends by hand, recording what each batch held. */
function controlled() {
  const batches: string[][] = [];
  const pending: Array<{ items: string[]; end: (error?: Error) => void }> = [];
  const decide = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push(items);
      pending.push({ items, end: (error) => (error ? reject(error) : resolve(items.map((i) => `done ${i}`))) });
    });
  const endNext = async (error?: Error) => {
    pending.shift()?.end(error);
    // Let the resolved batch hand out its outcomes and the drain loop start the next one.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { batches, pending, decide, endNext };
}

const key = (item: string) => item.split(":")[0] as string;

describe("groupCommit", () => {
  it("decides a lone item at once, alone", async () => {
    const c = controlled();
    const submit = groupCommit(c.decide, key, { maxBatch: 10, inFlight: 1 });
    const outcome = submit("a");
    expect(c.batches).toEqual([["a"]]);
    await c.endNext();
    await expect(outcome).resolves.toBe("done a");
  });

  it("decides the items that arrive while a batch runs together, in the next one", async () => {
    const c = controlled();
    const submit = groupCommit(c.decide, key, { maxBatch: 10, inFlight: 1 });
    const outcomes = ["a", "b", "c", "d"].map(submit);
    expect(c.batches).toEqual([["a"]]);
    await c.endNext();
    expect(c.batches).toEqual([["a"], ["b", "c", "d"]]);
    await c.endNext();
    await expect(Promise.all(outcomes)).resolves.toEqual(["done a", "done b", "done c", "done d"]);
  });

  it("decides every batch outside the trace of the request that happened to start it", async () => {
    const traces: Array<string | null> = [];
    const submit = groupCommit(
      async (items: string[]) => {
        traces.push(currentTrace());
        return items;
      },
      key,
      { maxBatch: 10, inFlight: 1 },
    );
    await inTrace("4bf92f3577b34da6a3ce929d0e0e4736", () => Promise.all([submit("a"), submit("b")]));
    expect(traces.length).toBeGreaterThan(0);
    expect(traces.every((t) => t === null)).toBe(true);
  });

  it("never puts two items of one key in a batch", async () => {
    const c = controlled();
    const submit = groupCommit(c.decide, key, { maxBatch: 10, inFlight: 1 });
    const outcomes = ["x:1", "y:1", "y:2", "z:1", "y:3"].map(submit);
    await c.endNext();
    await c.endNext();
    await c.endNext();
    await c.endNext();
    expect(c.batches).toEqual([["x:1"], ["y:1", "z:1"], ["y:2"], ["y:3"]]);
    await expect(Promise.all(outcomes)).resolves.toHaveLength(5);
  });

  it("holds a batch to maxBatch items", async () => {
    const c = controlled();
    const submit = groupCommit(c.decide, key, { maxBatch: 2, inFlight: 1 });
    ["a", "b", "c", "d", "e"].map(submit);
    await c.endNext();
    await c.endNext();
    expect(c.batches).toEqual([["a"], ["b", "c"], ["d", "e"]]);
  });

  it("runs at most inFlight batches at once", async () => {
    const c = controlled();
    const submit = groupCommit(c.decide, key, { maxBatch: 10, inFlight: 2 });
    ["a", "b", "c", "d"].map(submit);
    expect(c.batches).toEqual([["a"], ["b"]]);
    expect(c.pending).toHaveLength(2);
    await c.endNext();
    expect(c.batches).toEqual([["a"], ["b"], ["c", "d"]]);
    expect(c.pending).toHaveLength(2);
  });

  it("fails every item of a failed batch, and only those", async () => {
    const c = controlled();
    const submit = groupCommit(c.decide, key, { maxBatch: 10, inFlight: 1 });
    const first = submit("a");
    const later = [submit("b"), submit("c")];
    await c.endNext(new Error("unavailable"));
    await expect(first).rejects.toThrow("unavailable");
    await c.endNext();
    await expect(Promise.all(later)).resolves.toEqual(["done b", "done c"]);
  });

  it("fails a batch whose outcomes do not match its items", async () => {
    const submit = groupCommit(async () => ["only one"], key, { maxBatch: 10, inFlight: 1 });
    const outcomes = [submit("a"), submit("b"), submit("c")];
    await expect(outcomes[0]).resolves.toBe("only one");
    await expect(outcomes[1]).rejects.toThrow("1 outcomes for 2 items");
    await expect(outcomes[2]).rejects.toThrow("1 outcomes for 2 items");
  });
});
