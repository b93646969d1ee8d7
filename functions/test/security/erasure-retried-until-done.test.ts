/**
 * An erasure the identity provider keeps refusing is never forgotten unfinished: its finishing
 * job is tried again with a bounded backoff (at least every 4 hours) past ten attempts, past a
 * day and past a month, its record of the accounts still to delete never expires, an erasure whose
 * job was given up is queued again when it is asked for again, and `doctor` reports every
 * unfinished erasure with how long it has been, failing once one is older than a day.
 */
import { getAuth } from "firebase-admin/auth";
import { getApp } from "firebase-admin/app";
import type { Firestore } from "firebase-admin/firestore";
import { DAY, HOUR, MINUTE } from "../../src/clock";
import { firebaseIdentity } from "../../src/adapters/identity";
import { erasePerson } from "../../src/core/account/erasure";
import { checkHealth } from "../../src/core/status/health";
import * as people from "../../src/store/people";
import { allTasksIdle } from "../support/task-queue";
import { testDeps, unique, type TestDeps } from "../support/deps";
import { operator, freshProject } from "../support/operator-cli";
import { personFor } from "../support/people";

jest.setTimeout(180_000);

const { env, db, projectId } = freshProject();
const auth = getAuth(getApp(projectId));
const byOperator = { operator: { kind: "operator" as const, name: "ops@console" } };

/** The identity provider refusing every deletion while `down` says so; the real one otherwise. */
function refusing() {
  const real = firebaseIdentity(auth);
  const state = { down: true };
  const identity = {
    ...real,
    deleteAccounts: (uids: string[]) =>
      state.down ? Promise.reject(new Error("the identity provider is unavailable")) : real.deleteAccounts(uids),
  };
  return { identity, state };
}

async function jobsOf(store: Firestore, personId: string) {
  const snap = await store.collection("outbox").where("about", "==", personId).where("kind", "==", "erasure").get();
  return snap.docs.map((d) => ({
    state: d.get("state") as string,
    attempts: d.get("attempts") as number,
    nextAttemptAt: (d.get("nextAttemptAt") as FirebaseFirestore.Timestamp).toDate(),
  }));
}

/** The job's next attempt, run: the clock moved to its time, the drain woken as Cloud Tasks would. */
async function nextAttempt(deps: TestDeps, personId: string): Promise<void> {
  const [job] = await jobsOf(db, personId);
  deps.clock.set(new Date(Math.max(job!.nextAttemptAt.getTime(), deps.clock.now().getTime()) + 1000));
  deps.tasks!.runDue();
  await allTasksIdle();
}

/** The doctor's `erasures` check, from the operator CLI on this project (on the real clock). */
async function doctorsErasures(): Promise<{ ok: boolean; required: boolean; detail: string } | undefined> {
  const run = await operator(["doctor", "--json"], env);
  const report = JSON.parse(run.stdout) as {
    checks: Array<{ name: string; ok: boolean; required: boolean; detail: string }>;
  };
  return report.checks.find((c) => c.name === "erasures");
}

describe("an erasure the identity provider keeps refusing", () => {
  it("is retried past ten attempts, a day and a month, at least every 4 hours, until it is done, and doctor says so", async () => {
    const { identity, state } = refusing();
    // What each attempt logs, at what time by the test's clock.
    const said: Array<{ severity: string; message: string; at: number }> = [];
    const heard = (severity: string) => (message: string) =>
      void said.push({ severity, message, at: deps.clock.now().getTime() });
    const deps = testDeps({
      store: db,
      identity,
      log: { info: heard("INFO"), warn: heard("WARNING"), error: heard("ERROR") },
    });
    // Begun 34 days ago by the test's clock, so the doctor, on the real clock, sees it that old.
    // eslint-disable-next-line no-restricted-syntax -- the doctor runs on the real clock
    const realNow = () => new Date();
    deps.clock.set(new Date(realNow().getTime() - 34 * DAY));
    const email = `${unique("stuck")}@example.test`;
    const account = await auth.createUser({ email, emailVerified: true });
    const person = await personFor({ uid: account.uid, email }, { projects: ["startpage"] }, db);
    const begunAt = deps.clock.now().getTime();
    expect((await erasePerson(deps, person.id, byOperator)).finished).toBe(false);

    // Fifteen attempts: past the ten after which mail is given up, and past a day of tries.
    for (let attempt = 1; attempt <= 15; attempt++) {
      await nextAttempt(deps, person.id);
      const jobs = await jobsOf(db, person.id);
      expect(jobs.map((j) => [j.state, j.attempts])).toEqual([["pending", attempt]]);
      const wait = jobs[0]!.nextAttemptAt.getTime() - deps.clock.now().getTime();
      // The backoff grows, and is bounded: never more than 4 hours (and its fifth of jitter).
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(4 * HOUR * 1.2 + 1000);
      if (attempt >= 8) expect(wait).toBeGreaterThanOrEqual(4 * HOUR * 0.8);
    }
    // Each attempt that leaves the accounts says so: a warning in the erasure's first day, an
    // ERROR (alerted on: monitoring/policies/erasure-overdue.json) past it.
    const left = said.filter((l) => l.message === "erasure not finished: provider accounts left");
    const overdue = said.filter((l) => l.message === "erasure overdue");
    expect(left.length).toBeGreaterThan(0);
    expect(overdue.length).toBeGreaterThan(0);
    expect(left.every((l) => l.severity === "WARNING" && l.at - begunAt < DAY)).toBe(true);
    expect(overdue.every((l) => l.severity === "ERROR" && l.at - begunAt >= DAY)).toBe(true);
    // A job waiting hours for its next try is not mail held up: GET /status does not call it degraded.
    expect((await checkHealth(deps)).checks.outbox).toMatchObject({ ok: true, oldestSeconds: null });
    const begun = (await db.collection("erasures").doc(person.id).get()).data() ?? {};
    expect(begun.forgetAfter).toBeUndefined();
    expect(begun.uids).toEqual([account.uid]);

    // A month on, past where the record of its accounts used to expire: still there, still tried.
    deps.clock.set(new Date(deps.clock.now().getTime() + 31 * DAY));
    await nextAttempt(deps, person.id);
    expect((await jobsOf(db, person.id)).map((j) => [j.state, j.attempts])).toEqual([["pending", 16]]);
    expect((await db.collection("erasures").doc(person.id).get()).exists).toBe(true);
    expect((await auth.getUsers([{ uid: account.uid }])).users).toHaveLength(1);

    // The doctor names it, how long it has been, and fails: it is older than a day.
    const flagged = await doctorsErasures();
    expect(flagged).toMatchObject({ ok: false, required: true });
    expect(flagged!.detail).toMatch(/^1 unfinished, 1 provider account\(s\) left; the oldest begun 3[34] d \d+ h ago/);
    expect(flagged!.detail).toContain(person.id);

    // The provider answers again: the next attempt finishes it, and nothing of it is left.
    state.down = false;
    await nextAttempt(deps, person.id);
    expect((await auth.getUsers([{ uid: account.uid }])).users).toEqual([]);
    expect((await db.collection("erasures").doc(person.id).get()).exists).toBe(false);
    expect(await jobsOf(db, person.id)).toEqual([]);
    expect(await doctorsErasures()).toMatchObject({ ok: true, detail: "every erasure is finished" });
  });

  it("is queued again when asked for again, if its job was given up, and keeps its record for good", async () => {
    const { identity } = refusing();
    const deps = testDeps({ store: db, identity });
    const email = `${unique("legacy")}@example.test`;
    const account = await auth.createUser({ email, emailVerified: true });
    const person = await personFor({ uid: account.uid, email }, {}, db);
    expect((await erasePerson(deps, person.id, byOperator)).finished).toBe(false);
    // As an erasure begun before jobs were retried until done was left: its job given up, and its
    // record set to expire.
    const [job] = (await db.collection("outbox").where("about", "==", person.id).where("kind", "==", "erasure").get())
      .docs;
    await job!.ref.update({
      state: "failed",
      retryUntilDone: false,
      forgetAfter: new Date(deps.clock.now().getTime() + DAY),
    });
    await db
      .collection("erasures")
      .doc(person.id)
      .update({ forgetAfter: new Date(deps.clock.now().getTime() + 30 * DAY) });

    deps.clock.set(new Date(deps.clock.now().getTime() + 10 * MINUTE));
    expect((await erasePerson(deps, person.id, byOperator)).finished).toBe(false);
    const jobs = await jobsOf(db, person.id);
    expect(jobs.map((j) => j.state).sort()).toEqual(["failed", "pending"]);
    expect((await db.collection("erasures").doc(person.id).get()).get("forgetAfter")).toBeUndefined();
    // The new job is one retried until done, which no TTL takes while it waits.
    const waiting = (
      await db.collection("outbox").where("about", "==", person.id).where("state", "==", "pending").get()
    ).docs;
    expect(waiting.map((d) => [d.get("retryUntilDone"), d.get("forgetAfter")])).toEqual([[true, null]]);
    expect(await people.findById(db, person.id)).toBeNull();
  });
});
