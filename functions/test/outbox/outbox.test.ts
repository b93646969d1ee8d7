/**
 * The mail outbox (core/outbox/enqueue): what is queued in a transaction is sent after it, once in
 * the ordinary course, again under the same Message-ID after a crash, retried with backoff while
 * the server fails, and dropped when it can no longer help. Real SMTP to the stack's dev inbox.
 * The outbox is shared with every other test, so these send their own entries (`deliver`) rather
 * than whatever else is due.
 */
import { HOUR, MINUTE, SECOND } from "../../src/clock";
import { smtpMailer } from "../../src/adapters/mailer";
import { enqueue, enqueueMail, queuedEntry } from "../../src/core/outbox/enqueue";
import { handlers, type MailDeps } from "../../src/tasks/mail";
import { BULK_SHARE, deliver, deliverRead, drainOutbox } from "../../src/core/outbox/drain";
import { LEASE_MS } from "../../src/core/outbox/claims";
import { unseal } from "../../src/core/seal";
import { MailRefused, type Mailer, type MailMessage } from "../../src/core/ports";
import * as outbox from "../../src/store/outbox";
import type { OutboxEntryOf } from "../../src/core/model/outbox";
import type { ServiceEvent } from "../../src/core/model/event";
import { firestore, testConfig, testDeps, unique, type TestDeps } from "../support/deps";
import { mailTo, settledCount, waitForMail } from "../support/inbox";
import { recordingLogger } from "../support/email-codes";

const db = firestore();
const realMailer = () => smtpMailer(testConfig().smtp!);
/** A queue that wakes nobody: these tests drain by hand. */
const quiet = { wake: async () => {} };

function message(to: string): MailMessage {
  return { to, subject: "A notice", text: `Hello ${to}`, html: `<p>Hello ${to}</p>` };
}

async function queued(deps: TestDeps, to: string, deliverWithinMs = 10 * MINUTE): Promise<string> {
  const deliverBy = new Date(deps.clock.now().getTime() + deliverWithinMs);
  return deps.transaction(async (tx) => enqueueMail(deps, tx, message(to), { kind: "lock-notice", deliverBy }));
}

/** An event for an app, as a delivery carries one. */
const anEvent = (): ServiceEvent => ({
  id: `evt_${unique()}`,
  type: "person.approved",
  version: 1,
  occurredAt: new Date(0).toISOString(),
  personId: unique("nobody"),
  seq: 1,
  data: { uids: [], by: "operator" },
});

const entry = async (id: string) => (await outbox.findById(db, id)) as outbox.StoredEntry;

/** A mailer whose sends all count, passed on to `inner`. */
function counting(inner: Mailer): Mailer & { sends: number } {
  const counted = {
    sends: 0,
    check: () => inner.check(),
    async send(m: MailMessage, options: { messageId: string }) {
      counted.sends++;
      await inner.send(m, options);
    },
  };
  return counted;
}

describe("the mail outbox", () => {
  it("sends what a transaction queued, once: a second drain finds nothing to send", async () => {
    const mailer = counting(realMailer());
    const deps = testDeps({ mailer, mailQueue: quiet });
    const to = `${unique("n")}@example.test`;
    const id = await queued(deps, to);
    expect(await deliver(deps, id, deps.clock.now(), handlers)).toBe("sent");
    expect(await deliver(deps, id, deps.clock.now(), handlers)).toBe("skipped");
    const [mail] = await waitForMail(to);
    expect(mail!.subject).toBe("A notice");
    expect(mail!.headers["message-id"]).toBe(`<${id}@example.test>`);
    expect(await settledCount(to)).toBe(1);
    expect(await entry(id)).toMatchObject({ state: "sent", attempts: 1, claim: null });
  });

  it("keeps the message sealed at rest: neither address nor text is stored readable", async () => {
    const deps = testDeps({ mailQueue: quiet });
    const to = `${unique("sealed")}@example.test`;
    const stored = (await outbox.findOf(db, "lock-notice", await queued(deps, to)))!;
    expect(JSON.stringify(stored)).not.toContain(to.split("@")[0]);
    const sealed = stored.sealed;
    expect(unseal(deps.pepper!, sealed)).toEqual(message(to));
    const altered = { ...sealed, data: sealed.data.replace(/^./, (c) => (c === "A" ? "B" : "A")) };
    expect(unseal(deps.pepper!, altered)).toBeNull();
  });

  it("sends a mail once when 20 drains race for it", async () => {
    const mailer = counting(realMailer());
    const deps = testDeps({ mailer, mailQueue: quiet });
    const to = `${unique("race")}@example.test`;
    const id = await queued(deps, to);
    await Promise.all(Array.from({ length: 20 }, () => deliver(deps, id, deps.clock.now(), handlers)));
    expect(mailer.sends).toBe(1);
    expect(await settledCount(to)).toBe(1);
    expect((await entry(id)).state).toBe("sent");
  });

  it("after a crash between sending and marking sent, sends it again once the claim lapses, as the same message", async () => {
    const to = `${unique("crash")}@example.test`;
    // The server takes the mail, then the drainer dies before it can record that: it never returns.
    const dying: Mailer = {
      check: async () => {},
      send: async (m, options) => {
        await realMailer().send(m, options);
        await new Promise(() => {});
      },
    };
    const crashed = testDeps({ mailer: dying, mailQueue: quiet });
    const id = await queued(crashed, to);
    void deliver(crashed, id, crashed.clock.now(), handlers);
    await waitForMail(to);
    expect(await entry(id)).toMatchObject({ state: "pending", attempts: 1 });

    // Another drainer, inside the claim's lease, leaves it alone; after the lease, takes it up.
    const survivor = testDeps({ mailer: realMailer(), mailQueue: quiet });
    survivor.clock.set(crashed.clock.now());
    expect(await deliver(survivor, id, survivor.clock.now(), handlers)).toBe("skipped");
    expect(await settledCount(to)).toBe(1);
    survivor.clock.advance(LEASE_MS);
    expect(await deliver(survivor, id, survivor.clock.now(), handlers)).toBe("sent");
    const mails = await waitForMail(to, 2);
    expect(new Set(mails.map((m) => m.headers["message-id"]))).toEqual(new Set([`<${id}@example.test>`]));
    expect(await entry(id)).toMatchObject({ state: "sent", attempts: 2 });
    expect(await deliver(survivor, id, survivor.clock.now(), handlers)).toBe("skipped");
    expect(await settledCount(to)).toBe(2);
  });

  it("retries a failing server with growing waits, and sends once it answers", async () => {
    let down = true;
    const flaky: Mailer = {
      check: async () => {},
      send: async (m, options) => {
        if (down) throw new MailRefused("unreachable", false);
        await realMailer().send(m, options);
      },
    };
    const deps = testDeps({ mailer: flaky, mailQueue: quiet });
    const to = `${unique("retry")}@example.test`;
    // Mail that keeps for a day: its waits grow past the minute that caps a short-lived mail's.
    const id = await queued(deps, to, 24 * 60 * MINUTE);
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const before = deps.clock.now().getTime();
      expect(await deliver(deps, id, deps.clock.now(), handlers)).toBe("retrying");
      const after = await entry(id);
      expect(after).toMatchObject({ state: "pending", attempts: attempt, lastError: "unreachable", claim: null });
      waits.push(after.nextAttemptAt.getTime() - before);
      // Not before its time.
      expect(await deliver(deps, id, new Date(after.nextAttemptAt.getTime() - 1), handlers)).toBe("skipped");
      deps.clock.set(after.nextAttemptAt);
    }
    // 15 s, 45 s and 135 s, each drawn ±20 %: the ranges do not overlap, so each wait is longer.
    expect(waits[0]).toBeGreaterThanOrEqual(12 * SECOND);
    expect(waits[0]).toBeLessThanOrEqual(18 * SECOND);
    expect(waits[1]).toBeGreaterThanOrEqual(36 * SECOND);
    expect(waits[1]).toBeLessThanOrEqual(54 * SECOND);
    expect(waits[2]).toBeGreaterThanOrEqual(108 * SECOND);
    expect(waits[2]).toBeLessThanOrEqual(162 * SECOND);
    down = false;
    expect(await deliver(deps, id, deps.clock.now(), handlers)).toBe("sent");
    expect(await settledCount(to)).toBe(1);
  });

  it("gives up at once on a permanent refusal, and on mail that would arrive too late", async () => {
    const log = recordingLogger();
    const refusing: Mailer = {
      check: async () => {},
      send: async () => {
        throw new MailRefused("rejected", true);
      },
    };
    const deps = testDeps({ mailer: refusing, mailQueue: quiet, log });
    const rejected = await queued(deps, `${unique("gone")}@example.test`);
    expect(await deliver(deps, rejected, deps.clock.now(), handlers)).toBe("failed");
    expect(await entry(rejected)).toMatchObject({ state: "failed", lastError: "rejected", attempts: 1 });

    const late = testDeps({ mailer: realMailer(), mailQueue: quiet, log });
    const to = `${unique("late")}@example.test`;
    const stale = await queued(late, to, 5 * MINUTE);
    late.clock.advance(5 * MINUTE);
    expect(await deliver(late, stale, late.clock.now(), handlers)).toBe("skipped");
    expect(await entry(stale)).toMatchObject({ state: "failed", attempts: 0 });
    expect(await mailTo(to)).toEqual([]);
    expect(log.lines.join("\n")).toMatch(/mail given up/);
    expect(log.lines.join("\n")).not.toContain(to);
  });

  it("records nothing to send for a null message, and never sends it", async () => {
    const mailer = counting(realMailer());
    const deps = testDeps({ mailer, mailQueue: quiet });
    const deliverBy = new Date(deps.clock.now().getTime() + MINUTE);
    const id = await deps.transaction(async (tx) => enqueueMail(deps, tx, null, { kind: "code", deliverBy }));
    expect(await deliver(deps, id, deps.clock.now(), handlers)).toBe("skipped");
    expect(await entry(id)).toMatchObject({ state: "none", attempts: 0 });
    expect(mailer.sends).toBe(0);
  });

  it("tries a notice again after the backoff when it cannot be written, and writes it then", async () => {
    const mailer = counting(realMailer());
    const log = recordingLogger();
    const deps = testDeps({ mailer, mailQueue: quiet, log });
    const to = `${unique("w")}@example.test`;
    const deliverBy = new Date(deps.clock.now().getTime() + 10 * MINUTE);
    const id = await deps.transaction(async (tx) =>
      enqueue(deps, tx, { kind: "approval", about: to, to: null, deliverBy }),
    );
    let busy = true;
    const writing = (d: MailDeps) => ({
      ...handlers(d),
      approval: async (e: OutboxEntryOf<"approval">) => {
        if (busy) throw new Error("too much contention");
        return message(e.about);
      },
    });
    expect(await deliver(deps, id, deps.clock.now(), writing)).toBe("retrying");
    expect(await entry(id)).toMatchObject({ state: "pending", attempts: 1, claim: null, lastError: "unwritten" });
    expect(log.lines.join("\n")).toMatch(/mail not written/);
    expect(mailer.sends).toBe(0);
    busy = false;
    deps.clock.set((await entry(id)).nextAttemptAt);
    expect(await deliver(deps, id, deps.clock.now(), writing)).toBe("sent");
    expect(await settledCount(to)).toBe(1);
  });

  it("gives a notice that lost a race for what it writes back at once, its attempt not counted", async () => {
    const deps = testDeps({ mailer: counting(realMailer()), mailQueue: quiet });
    const to = `${unique("r")}@example.test`;
    const deliverBy = new Date(deps.clock.now().getTime() + 10 * MINUTE);
    const id = await deps.transaction(async (tx) =>
      enqueue(deps, tx, { kind: "approval", about: to, to: null, deliverBy }),
    );
    let races = 2;
    const writing = (d: MailDeps) => ({
      ...handlers(d),
      approval: async (e: OutboxEntryOf<"approval">) => {
        if (races-- > 0) throw Object.assign(new Error("10 ABORTED: too much contention"), { code: 10 });
        return message(e.about);
      },
    });
    expect(await deliver(deps, id, deps.clock.now(), writing)).toBe("retrying");
    expect(await entry(id)).toMatchObject({ state: "pending", attempts: 0, claim: null, lastError: null });
    expect((await entry(id)).nextAttemptAt).toEqual(deps.clock.now());
    expect(await deliver(deps, id, deps.clock.now(), writing)).toBe("retrying");
    expect(await deliver(deps, id, deps.clock.now(), writing)).toBe("sent");
    expect(await entry(id)).toMatchObject({ state: "sent", attempts: 1 });
    expect(await settledCount(to)).toBe(1);
  });

  it("sends every entry once when eight drains read the same due list at once, and no drain fails", async () => {
    const sentTo: string[] = [];
    const inner = realMailer();
    const mailer: Mailer = {
      check: () => inner.check(),
      async send(m, options) {
        sentTo.push(m.to);
        await inner.send(m, options);
      },
    };
    const deps = testDeps({ mailer, mailQueue: quiet });
    const addresses = Array.from({ length: 40 }, () => `${unique("herd")}@example.test`);
    await Promise.all(addresses.map((to) => queued(deps, to)));
    // Each drain takes the whole due list (whatever else is due in the shared outbox too).
    const drains = await Promise.allSettled(Array.from({ length: 8 }, () => drainOutbox(deps, handlers, 1000)));
    expect(drains.filter((d) => d.status === "rejected")).toEqual([]);
    const ours = new Set(addresses);
    const counts = new Map<string, number>();
    for (const to of sentTo.filter((t) => ours.has(t))) counts.set(to, (counts.get(to) ?? 0) + 1);
    expect(addresses.filter((to) => counts.get(to) !== 1)).toEqual([]);
  }, 60_000);

  it("sends a code queued behind a crowd of the apps' entries in the next round, and gives the apps their share", async () => {
    const deps = testDeps({ mailer: realMailer(), mailQueue: quiet });
    const past = new Date(deps.clock.now().getTime() - MINUTE);
    const deliverBy = new Date(deps.clock.now().getTime() + HOUR);
    // Deliveries to an app nobody subscribes any more, due before the code: each is settled as
    // nothing to send once taken.
    const crowd = Array.from({ length: 40 }, () =>
      queuedEntry(deps, { kind: "delivery", about: unique("gone-app"), event: anEvent(), deliverBy, notBefore: past }),
    );
    await Promise.all(crowd.map((e) => outbox.addAlone(db, e)));
    const to = `${unique("behind")}@example.test`;
    const id = await queued(deps, to);
    await drainOutbox(deps, handlers, 10);
    expect(await entry(id)).toMatchObject({ state: "sent", lane: "mail" });
    expect(await settledCount(to)).toBe(1);
    // The apps' entries were taken too, up to the rest of the batch.
    const states = await Promise.all(crowd.map(async (e) => (await entry(e.id)).state));
    expect(states.filter((s) => s === "none")).toHaveLength(9);
  });

  it("sends a code queued behind invitations sent in bulk and the apps' entries, and gives each lane its share", async () => {
    const deps = testDeps({ mailer: realMailer(), mailQueue: quiet });
    // Due before anything other tests of this file left due, so each lane's first are these.
    const past = new Date(deps.clock.now().getTime() - HOUR);
    const deliverBy = new Date(deps.clock.now().getTime() + HOUR);
    // Invitations revoked since, and deliveries to an app gone: each settled as nothing to send.
    const thirty = <T>(entry: () => T) => Array.from({ length: 30 }, entry);
    const apps = thirty(() =>
      queuedEntry(deps, { kind: "delivery", about: unique("gone"), event: anEvent(), deliverBy, notBefore: past }),
    );
    const bulk = thirty(() =>
      queuedEntry(deps, { kind: "invitation", about: unique("gone"), deliverBy, notBefore: past }),
    );
    await Promise.all([...apps, ...bulk].map((e) => outbox.addAlone(db, e)));
    const to = `${unique("before-bulk")}@example.test`;
    const id = await queued(deps, to);
    await drainOutbox(deps, handlers, 10);
    expect(await entry(id)).toMatchObject({ state: "sent", lane: "mail" });
    const settled = async (crowd: Array<{ id: string }>) =>
      (await Promise.all(crowd.map(async (e) => (await entry(e.id)).state))).filter((s) => s === "none").length;
    // The apps fill the batch's rest; the bulk lane still gets its share.
    expect(await settled(apps)).toBe(9);
    expect(await settled(bulk)).toBe(BULK_SHARE);
  });

  it("claims and marks without a transaction: a drain whose every transaction is kept locked still sends, once", async () => {
    const mailer = counting(realMailer());
    const to = `${unique("locked")}@example.test`;
    const deps = testDeps({ mailer, mailQueue: quiet });
    const id = await queued(deps, to);
    const aborted = Object.assign(new Error("10 ABORTED: Transaction lock timeout."), { code: 10 });
    const locked = testDeps({ mailer, mailQueue: quiet, transaction: () => Promise.reject(aborted) });
    locked.clock.set(deps.clock.now());
    expect(await deliver(locked, id, locked.clock.now(), handlers)).toBe("sent");
    expect(await entry(id)).toMatchObject({ state: "sent", attempts: 1, claim: null });
    expect(await deliver(deps, id, deps.clock.now(), handlers)).toBe("skipped");
    expect(mailer.sends).toBe(1);
    expect(await settledCount(to)).toBe(1);
  });

  it("leaves an entry claimed since the drain read it to the drain that claimed it", async () => {
    const mailer = counting(realMailer());
    const to = `${unique("overtaken")}@example.test`;
    const deps = testDeps({ mailer, mailQueue: quiet });
    const id = await queued(deps, to);
    const stale = (await outbox.read(db, id)) as outbox.Read;
    // Another drain reads it later, claims it and sends it; this drain's read is of the version before.
    expect(await deliver(deps, id, deps.clock.now(), handlers)).toBe("sent");
    expect(await deliverRead(deps, stale, deps.clock.now(), handlers)).toBe("skipped");
    // Even once its lease has lapsed: the version read is gone for good.
    expect(await deliverRead(deps, stale, new Date(deps.clock.now().getTime() + 2 * LEASE_MS), handlers)).toBe(
      "skipped",
    );
    expect(await entry(id)).toMatchObject({ state: "sent", attempts: 1 });
    expect(mailer.sends).toBe(1);
    expect(await settledCount(to)).toBe(1);
  });
});
