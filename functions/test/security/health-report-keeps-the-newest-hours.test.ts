/**
 * The health report reads at most 5,000 documents a series, and says `partial` past that: its
 * counts are then lower bounds (docs/endpoints/people.md, The service's health). Which 5,000 it
 * reads decides what an administrator sees. Read oldest first, a window that holds more than that
 * loses its newest hours, the ones that say what is happening now: a stranger who asks for codes
 * to addresses on no account (each queued as a code "not needed") early in the day makes every
 * code sent since read as none, and the page shows mail stopped. What the cap leaves out must be
 * the oldest part of the window, never the newest.
 */
import { healthReport } from "../../src/core/status/report";
import { READ_CAP } from "../../src/core/status/report";
import { transactionRunner } from "../../src/store/db";
import { testDeps } from "../support/deps";
import { freshProject } from "../support/operator-cli";
import { queuedEntry } from "../support/outbox-entries";

const { db } = freshProject();
const deps = testDeps({ store: db, transaction: transactionRunner(db) });
const HOUR = 3_600_000;

/** `n` code requests to addresses on no account, queued at `at`: nothing sent, as for a stranger's asking. */
async function notNeeded(n: number, at: Date): Promise<void> {
  const writer = db.bulkWriter();
  for (let i = 0; i < n; i++)
    void writer.set(db.collection("outbox").doc(`flood-${i}`), {
      kind: "code",
      lane: "mail",
      state: "none",
      attempts: 0,
      createdAt: at,
      nextAttemptAt: at,
      forgetAfter: new Date(at.getTime() + 8 * 24 * HOUR),
    });
  await writer.close();
}

describe("a day with more code requests than the health report reads", () => {
  it("still counts the code sent in the last hour", async () => {
    const now = deps.clock.now().getTime();
    await notNeeded(READ_CAP, new Date(now - 20 * HOUR));
    await queuedEntry(db, { kind: "code", state: "sent", at: new Date(now - HOUR / 2) });

    const report = await healthReport(deps, "24h");
    expect(report.partial).toBe(true);
    // The code sent half an hour ago is in one of the last two hourly buckets.
    expect(report.codes.sent.slice(-2).reduce((a, b) => a + b, 0)).toBe(1);
  }, 120_000);
});
