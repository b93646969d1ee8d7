/**
 * Proves: a code that was issued stays counted against the budgets of where it was asked from,
 * even when the commit that issued it lost its answer. Firestore's SDK runs a read-write
 * transaction again when its commit fails with DEADLINE_EXCEEDED, UNAVAILABLE, INTERNAL or
 * UNKNOWN (`isRetryableTransactionError`), which it also does when the first commit was in fact
 * applied and only its answer was lost. The run again then reads the address's limits that the
 * first run wrote, and refuses (a code was just sent). That refusal must not withdraw the send's
 * ledger record: its code and mail were committed, so the send is answered as sent, and a client
 * whose budget it spent must be refused its next code.
 */
import request from "supertest";
import type { Express } from "express";
import { cryptoRandom } from "../../src/random";
import { transactionRunner } from "../../src/store/db";
import type { SendBudgets } from "../../src/core/settings";
import type { TransactionRunner } from "../../src/core/ports";
import { testConfig, UNLIMITED_SENDS } from "../support/deps";
import { db, fresh, personAddress, storedCode } from "../support/email-codes";

const octet = () => cryptoRandom.int(1, 255);
/** An IPv4 client in a /24 of its own (almost surely). */
const ipv4 = () => `${cryptoRandom.int(11, 100)}.${octet()}.${octet()}.${octet()}`;

const real = transactionRunner(db);
let loseNextAnswer = false;
/** Firestore's runner, except that, when asked, a commit is applied and then run again, as the SDK does when its answer is lost. */
const losing: TransactionRunner = async (work) => {
  if (!loseNextAnswer) return real(work);
  loseNextAnswer = false;
  await real(work);
  return real(work);
};

let wakes = 0;
/** The drain's queue, counting its wakes: the run the SDK made again wakes no one. */
const mailQueue = {
  wake: async () => {
    wakes++;
  },
};

function budgeted(budgets: Partial<SendBudgets>): { app: Express; codePepper: string } {
  // A pepper of its own: budget records are keyed by it, so nothing sent elsewhere counts here.
  const codePepper = `lost-${cryptoRandom.int(0, 1e9)}:${cryptoRandom.token(24)}`;
  const config = testConfig({ sendBudgets: { ...UNLIMITED_SENDS, ...budgets }, codePepper });
  return { app: fresh({ config, transaction: losing, mailQueue }, true).app, codePepper };
}

const sendFrom = (app: Express, client: string, email: string) =>
  request(app).post("/auth/otp/send").set("X-Forwarded-For", client).send({ email });

describe("POST /auth/otp/send, a commit whose answer was lost", () => {
  it("keeps the issued code's send counted against its client", async () => {
    const { app, codePepper } = budgeted({ perClientPerHour: 1 });
    const from = ipv4();
    const first = await personAddress();

    loseNextAnswer = true;
    const answered = (await sendFrom(app, from, first)).status;
    // Its mail is waiting in the outbox, and the drain was woken for it.
    const woken = wakes;
    // The code was issued and its mail queued, under the send's id.
    const code = await storedCode(first, codePepper);
    expect(code).not.toBeNull();
    const sendId = code?.sendId as string;
    expect((await db.collection("outbox").doc(sendId).get()).exists).toBe(true);
    // So the send stays in the ledger, counted against the client, and the client's one unused
    // code of the hour having gone out, its next is refused.
    const kept = (await db.collection("sends").doc(sendId).get()).exists;
    const next = (await sendFrom(app, from, await personAddress())).status;
    expect({ answered, woken, kept, next }).toEqual({ answered: 200, woken: 1, kept: true, next: 429 });
  });
});
