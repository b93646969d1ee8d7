import { healthCounts } from "./health-counts";
import { manualClock, silentLogger } from "../../../test/support/fakes";
import { cryptoRandom } from "../../random";
import type { Firestore } from "../../store/db";

/** A Firestore that records each write of counts and answers it when the test says. */
function heldStore() {
  const writes: Array<{ id: string; counts: Record<string, unknown>; answer: (err?: Error) => void }> = [];
  const store = {
    collection: () => ({
      doc: (id: string) => ({
        set: (data: { counts: Record<string, unknown> }) =>
          new Promise<void>((resolve, reject) =>
            writes.push({ id, counts: data.counts, answer: (err) => (err ? reject(err) : resolve()) }),
          ),
      }),
    }),
  } as unknown as Firestore;
  return { store, writes };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("refusals counted for the health report", () => {
  it("keeps one write in flight: a flood of refusals is two writes, not one each", async () => {
    const { store, writes } = heldStore();
    const clock = manualClock(new Date("2026-11-29T10:15:00Z"));
    const counts = healthCounts(() => ({ store, clock, random: cryptoRandom, log: silentLogger }));
    for (let i = 0; i < 100; i++) counts.count("codes", i % 2 === 0 ? "client_budget" : "resend_too_soon");
    await settle();
    expect(writes).toHaveLength(1);
    writes[0]?.answer();
    await settle();
    expect(writes).toHaveLength(2);
    writes[1]?.answer();
    await counts.written();
    expect(writes).toHaveLength(2);
    // The same document, this instance's for the hour; the first write carried the first count.
    expect(writes[0]?.id).toBe(writes[1]?.id);
    expect(writes[0]?.id).toMatch(/^2026-11-29T10:00:00\.000Z~.+/);
  });

  it("writes each hour's counts to that hour's document", async () => {
    const { store, writes } = heldStore();
    const clock = manualClock(new Date("2026-11-29T10:59:59Z"));
    const counts = healthCounts(() => ({ store, clock, random: cryptoRandom, log: silentLogger }));
    counts.count("signIns", "code_invalid");
    clock.advance(2000);
    counts.count("signIns", "code_invalid");
    writes[0]?.answer();
    await settle();
    writes[1]?.answer();
    await counts.written();
    expect(writes.map((w) => w.id.slice(0, 24))).toEqual(["2026-11-29T10:00:00.000Z", "2026-11-29T11:00:00.000Z"]);
  });

  it("drops what a failed write held, and counts on", async () => {
    const { store, writes } = heldStore();
    const clock = manualClock(new Date("2026-11-29T10:15:00Z"));
    const counts = healthCounts(() => ({ store, clock, random: cryptoRandom, log: silentLogger }));
    counts.count("codes", "client_budget");
    writes[0]?.answer(new Error("unavailable"));
    await counts.written();
    counts.count("codes", "client_budget");
    await settle();
    expect(writes).toHaveLength(2);
  });
});
