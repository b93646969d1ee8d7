/**
 * POST /auth/otp/send while the mail server is frozen, then gone: an address on a person and an
 * address on no account get the same answers at the same speed, because no answer waits on the
 * mail server (the outbox sends afterwards). Once the server is back, the mail goes out.
 */
import request from "supertest";
import type { Express } from "express";
import { HOUR, MINUTE, SECOND } from "../../src/clock";
import { smtpMailer } from "../../src/adapters/mailer";
import { enqueueMail, queuedEntry } from "../../src/core/outbox/enqueue";
import { wakeDrainer } from "../../src/core/outbox/wake";
import type { TransactionRunner } from "../../src/core/ports";
import { transactionRunner } from "../../src/store/db";
import { DRAIN_BATCH, drainOutbox } from "../../src/core/outbox/drain";
import * as outbox from "../../src/store/outbox";
import { firestore, testConfig, unique, type TestDeps } from "../support/deps";
import { allTasksIdle } from "../support/task-queue";
import { handlers } from "../../src/tasks/mail";
import { codeIn, mailTo, ownInbox, waitForMail, type OwnInbox } from "../support/inbox";
import { fresh, personAddress, recordingLogger, signIn, strangerAddress } from "../support/email-codes";

interface Answer {
  kind: "known" | "unknown";
  status: number;
  body: unknown;
  ms: number;
}

async function timedSend(app: Express, kind: Answer["kind"], email: string): Promise<Answer> {
  const started = performance.now();
  const res = await request(app).post("/auth/otp/send").send({ email });
  return { kind, status: res.status, body: res.body, ms: performance.now() - started };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/**
 * Twelve sends of each kind, interleaved, so whatever else the machine does falls on both alike.
 * A known address's send wakes a drain that works on (here, in this process) while the next send
 * is answered; so the order is known, unknown, unknown, known, over and over, and each kind
 * follows each kind equally often, rather than every unknown send answering under a known one's
 * drain.
 */
async function compare(app: Express, known: string[], unknown: string[]): Promise<Answer[]> {
  const answers: Answer[] = [];
  const order: Answer["kind"][] = ["known", "unknown", "unknown", "known"];
  const left = { known: [...known], unknown: [...unknown] };
  for (let i = 0; left.known.length + left.unknown.length > 0; i++) {
    const kind = order[i % order.length] as Answer["kind"];
    answers.push(await timedSend(app, kind, left[kind].shift() as string));
  }
  return answers;
}

/**
 * The stack's outbox is shared: before this test's mail come whatever earlier ones left due. A
 * backlog of its own (notices about nobody, due a minute ago) makes that so on every run.
 */
async function backlog(deps: TestDeps, size: number): Promise<void> {
  const dueAt = new Date(deps.clock.now().getTime() - MINUTE);
  const deliverBy = new Date(deps.clock.now().getTime() + HOUR);
  await Promise.all(
    Array.from({ length: size }, () =>
      outbox.addAlone(
        deps.store,
        queuedEntry(deps, { kind: "approval", about: unique("nobody"), to: null, deliverBy, notBefore: dueAt }),
      ),
    ),
  );
}

/**
 * Drains until nothing is due, however much was waiting, one drain after another: each is the
 * next drain its predecessor would wake (so they wake nobody, and never race each other over
 * the same entries). A drain's report counts no entry it found unneeded (the backlog's) or left
 * to another drain, so the loop asks the outbox itself what is still due. The drains the sends
 * woke end first, and any woken meanwhile are waited for.
 */
async function drainAll(deps: TestDeps): Promise<void> {
  const alone = { ...deps, mailQueue: { wake: async () => {} } };
  await allTasksIdle();
  for (let round = 0; round < 100; round++) {
    if ((await outbox.due(deps.store, deps.clock.now(), 1)).length === 0) break;
    await drainOutbox(alone, handlers);
  }
  await allTasksIdle();
}

function expectAlike(answers: Answer[]): void {
  expect(new Set(answers.map((a) => JSON.stringify([a.status, a.body])))).toEqual(
    new Set([JSON.stringify([200, { ok: true }])]),
  );
  // A send that waited on a frozen server would take its 10-second greeting timeout.
  expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(3000);
  const byKind = (kind: Answer["kind"]) => median(answers.filter((a) => a.kind === kind).map((a) => a.ms));
  const [k, u] = [byKind("known"), byKind("unknown")];
  expect(Math.abs(k - u)).toBeLessThanOrEqual(Math.max(40, 0.5 * Math.max(k, u)));
}

describe("POST /auth/otp/send while the mail server is out", () => {
  let inbox: OwnInbox;
  beforeAll(async () => {
    inbox = await ownInbox();
    await inbox.start();
  });
  afterAll(async () => {
    inbox.thaw();
    await allTasksIdle();
    await inbox.stop();
  });

  it("answers known and unknown addresses alike, frozen or gone, and the mail goes once the server is back", async () => {
    const log = recordingLogger();
    const mailer = smtpMailer({ ...testConfig().smtp!, port: inbox.smtpPort });
    const { app, deps } = fresh({ mailer, log });
    const known = await Promise.all(Array.from({ length: 24 }, () => personAddress()));
    const unknown = Array.from({ length: 24 }, () => strangerAddress());

    inbox.freeze();
    expectAlike(await compare(app, known.slice(0, 12), unknown.slice(0, 12)));
    inbox.thaw();
    await inbox.stop();
    expectAlike(await compare(app, known.slice(12), unknown.slice(12)));

    // Back: every mail the outbox still holds goes, on the retry after its backoff (one failed
    // attempt so far at most, so due within 18 s), behind a backlog due before it.
    await backlog(deps, 6 * DRAIN_BATCH);
    await inbox.start();
    for (let round = 0; round < 2; round++) {
      deps.clock.advance(MINUTE);
      await drainAll(deps);
    }
    for (const email of known) {
      const mails = await mailTo(email, inbox.url);
      expect(mails.length).toBeGreaterThanOrEqual(1);
      // Sent again after a lost acknowledgement, a mail is still one message: one Message-ID.
      expect(new Set(mails.map((m) => String(m.headers["message-id"]))).size).toBe(1);
    }
    for (const email of unknown) expect(await mailTo(email, inbox.url)).toEqual([]);

    const email = known[0] as string;
    const code = codeIn((await mailTo(email, inbox.url))[0]!);
    expect((await signIn(app, { email, otp: code })).status).toBe(200);
    expect(log.lines.join("\n")).not.toContain(code);
    expect(log.lines.join("\n")).toMatch(/mail not sent/);
  }, 90_000);
});

describe("the outbox after Firestore was out", () => {
  it("sends a code whose drains failed for five minutes within a minute of Firestore answering again", async () => {
    // The outage is a fake (every file shares the emulator): the drain's reads, writes and
    // transactions fail as an unreachable Firestore fails them (gRPC UNAVAILABLE), until `out` is
    // false again.
    let out = false;
    const unavailable = () => Object.assign(new Error("14 UNAVAILABLE: No connection established"), { code: 14 });
    const reachable = firestore();
    const store = new Proxy(reachable, {
      get(target, name) {
        const value: unknown = Reflect.get(target, name, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (out) throw unavailable();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const real = transactionRunner(reachable);
    const transaction: TransactionRunner = (work) => (out ? Promise.reject(unavailable()) : real(work));
    const { deps } = fresh({ store, transaction });
    const email = strangerAddress();
    // Queued where no drain is woken: the first is woken once Firestore is out.
    const queuing = fresh({ store, transaction, clock: deps.clock, mailQueue: { wake: async () => {} } }).deps;
    const id = await queuing.transaction(async (tx) =>
      enqueueMail(
        queuing,
        tx,
        { to: email, subject: "Your sign-in code", text: "Your code: 123456\n", html: "" },
        {
          kind: "code",
          deliverBy: new Date(deps.clock.now().getTime() + 10 * MINUTE),
        },
      ),
    );
    out = true;
    await wakeDrainer(deps);
    // Five minutes out: the queue tries the drain again and again (10 s, 20 s, 40 s, then each minute).
    const step = async () => {
      deps.clock.advance(10 * SECOND);
      deps.tasks!.runDue();
      await allTasksIdle();
    };
    for (let waited = 0; waited < 5 * MINUTE; waited += 10 * SECOND) await step();
    expect(deps.tasks!.counts.failed).toBeGreaterThanOrEqual(7);
    expect((await outbox.findById(reachable, id))?.state).toBe("pending");
    out = false;
    const back = deps.clock.now().getTime();
    const sent = async () => (await outbox.findById(reachable, id))?.state === "sent";
    while (!(await sent()) && deps.clock.now().getTime() - back < 2 * MINUTE) await step();
    expect(deps.clock.now().getTime() - back).toBeLessThanOrEqual(MINUTE);
    expect(await waitForMail(email)).toHaveLength(1);
  }, 60_000);
});
