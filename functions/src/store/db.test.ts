import type { Firestore, Transaction } from "firebase-admin/firestore";
import { isUnavailable } from "../core/failures";
import { CLOSED_ATTEMPTS, transactionRunner } from "./db";

/** What Firestore says, under load, of a read in a transaction that it had already closed. */
const closed = () =>
  Object.assign(new Error("3 INVALID_ARGUMENT: Transaction is invalid or closed."), {
    code: 3,
    details: "Transaction is invalid or closed.",
  });

/** A database whose transactions fail as `outcomes` say, in turn ("ok" runs the work). */
function database(outcomes: Array<"ok" | Error>): { db: Firestore; runs: () => number } {
  let runs = 0;
  const db = {
    runTransaction: async (work: (tx: Transaction) => Promise<unknown>) => {
      const outcome = outcomes[runs++] ?? "ok";
      if (outcome !== "ok") throw outcome;
      return work({} as Transaction);
    },
  } as unknown as Firestore;
  return { db, runs: () => runs };
}

describe("transactionRunner", () => {
  it("runs the work again when Firestore closed the transaction under its reads", async () => {
    const { db, runs } = database([closed(), closed()]);
    await expect(transactionRunner(db)(async () => "done")).resolves.toBe("done");
    expect(runs()).toBe(3);
  });

  it("calls a transaction closed on every attempt contention, a 503 rather than a 500", async () => {
    const { db, runs } = database(Array.from({ length: CLOSED_ATTEMPTS + 1 }, closed));
    const failure = await transactionRunner(db)(async () => "done").catch((err: unknown) => err);
    expect(runs()).toBe(CLOSED_ATTEMPTS);
    expect(isUnavailable(failure)).toBe(true);
    expect((failure as Error).cause).toMatchObject({ code: 3 });
  });

  it("leaves any other refusal as it is, tried once", async () => {
    const wrong = Object.assign(new Error("3 INVALID_ARGUMENT: a field is wrong"), { code: 3 });
    const { db, runs } = database([wrong]);
    await expect(transactionRunner(db)(async () => "done")).rejects.toBe(wrong);
    expect(runs()).toBe(1);
  });
});
