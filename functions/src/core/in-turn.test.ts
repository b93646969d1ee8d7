import { inTurn, TurnRefused } from "./in-turn";

/** Work the test ends by hand, recording when it starts. */
function held(started: string[], name: string) {
  let end: (fail?: Error) => void = () => undefined;
  const work = () =>
    new Promise<string>((resolve, reject) => {
      started.push(name);
      end = (fail) => (fail ? reject(fail) : resolve(name));
    });
  return { work, end: (fail?: Error) => end(fail) };
}

const ROOMY = { waiting: 100, waitMs: 60_000 };

const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe("inTurn", () => {
  it("runs work on one key one at a time, in the order asked, even after a failure", async () => {
    const turn = inTurn(ROOMY);
    const started: string[] = [];
    const [a, b, c] = [held(started, "a"), held(started, "b"), held(started, "c")];
    const outcomes = [turn("k", a.work), turn("k", b.work), turn("k", c.work)];
    await settle();
    expect(started).toEqual(["a"]);
    a.end(new Error("a failed"));
    await expect(outcomes[0]).rejects.toThrow("a failed");
    await settle();
    expect(started).toEqual(["a", "b"]);
    b.end();
    await settle();
    expect(started).toEqual(["a", "b", "c"]);
    c.end();
    await expect(Promise.all(outcomes.slice(1))).resolves.toEqual(["b", "c"]);
  });

  it("runs work on other keys alongside", async () => {
    const turn = inTurn(ROOMY);
    const started: string[] = [];
    const [a, b] = [held(started, "a"), held(started, "b")];
    const outcomes = [turn("k", a.work), turn("other", b.work)];
    await settle();
    expect(started).toEqual(["a", "b"]);
    a.end();
    b.end();
    await expect(Promise.all(outcomes)).resolves.toEqual(["a", "b"]);
  });

  it("starts a key afresh once its work has ended", async () => {
    const turn = inTurn(ROOMY);
    const started: string[] = [];
    const a = held(started, "a");
    const first = turn("k", a.work);
    await settle();
    a.end();
    await first;
    await settle();
    const b = held(started, "b");
    const second = turn("k", b.work);
    await settle();
    expect(started).toEqual(["a", "b"]);
    b.end();
    await expect(second).resolves.toBe("b");
  });

  it("refuses work that finds its line full, and never runs it", async () => {
    const turn = inTurn({ waiting: 2, waitMs: 60_000 });
    const started: string[] = [];
    const [a, b, c] = [held(started, "a"), held(started, "b"), held(started, "c")];
    const running = turn("k", a.work);
    await settle();
    const waiting = [turn("k", b.work), turn("k", c.work)];
    const full = held(started, "full");
    await expect(turn("k", full.work)).rejects.toEqual(new TurnRefused("line full"));
    // Another key's line is its own.
    const other = held(started, "other");
    const alongside = turn("other", other.work);
    await settle();
    expect(started).toEqual(["a", "other"]);
    for (const w of [a, other]) w.end();
    await Promise.all([running, alongside]);
    await settle();
    b.end();
    await settle();
    c.end();
    await expect(Promise.all(waiting)).resolves.toEqual(["b", "c"]);
    expect(started).toEqual(["a", "other", "b", "c"]);
  });

  it("refuses work whose turn came too late, and never runs it; the line goes on", async () => {
    let clock = 0;
    const turn = inTurn({ waiting: 10, waitMs: 1000 }, () => clock);
    const started: string[] = [];
    const [a, late, next] = [held(started, "a"), held(started, "late"), held(started, "next")];
    const running = turn("k", a.work);
    await settle();
    const tooLate = turn("k", late.work);
    clock = 1001;
    const onTime = turn("k", next.work);
    a.end();
    await running;
    await expect(tooLate).rejects.toEqual(new TurnRefused("waited too long"));
    await settle();
    expect(started).toEqual(["a", "next"]);
    next.end();
    await expect(onTime).resolves.toBe("next");
  });
});
