import { inTurn } from "./in-turn";

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

const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe("inTurn", () => {
  it("runs work on one key one at a time, in the order asked, even after a failure", async () => {
    const turn = inTurn();
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
    const turn = inTurn();
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
    const turn = inTurn();
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
});
