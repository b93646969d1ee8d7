/**
 * The bound docs/security.md states on the reviewers' queue, tried as an attacker who reads their
 * own mail would: one client puts at most OTP_SENDS_PER_CLIENT_HOUR people in the queue in any
 * hour, one network (an IPv4 /24, an IPv6 /48) three times that, however the requests for access
 * are mixed with sign-in codes to the pending people they made; and people who use their codes to
 * sign in are not held back by the requests of others at their address.
 */
import request from "supertest";
import type { Express } from "express";
import { MINUTE, SECOND } from "../../src/clock";
import { cryptoRandom } from "../../src/random";
import type { SendBudgets } from "../../src/core/settings";
import * as people from "../../src/store/people";
import { testConfig, UNLIMITED_SENDS, unique } from "../support/deps";
import { codeFor } from "../support/inbox";
import { allTasksIdle } from "../support/task-queue";
import { db, fresh, personAddress, signIn, verify } from "../support/email-codes";

const octet = () => cryptoRandom.int(1, 255);
/** An IPv4 client in a /24 of its own (almost surely). */
const ipv4 = () => `${cryptoRandom.int(11, 100)}.${octet()}.${octet()}.${octet()}`;
const hex = () => cryptoRandom.int(0, 65536).toString(16);

/** The email-code group with budgets of its own, and a pepper of its own: its ledger keys start empty. */
function budgeted(budgets: Partial<SendBudgets>) {
  const sendBudgets = { ...UNLIMITED_SENDS, ...budgets };
  const codePepper = `queue-${cryptoRandom.int(0, 1e9)}:${cryptoRandom.token(24)}`;
  return fresh({ config: testConfig({ sendBudgets, codePepper }) }, true);
}

/** A send from `client`, as the one trusted proxy passes it on. */
const sendFrom = (app: Express, client: string, email: string, purpose = "signin") =>
  request(app).post("/auth/otp/send").set("X-Forwarded-For", client).send({ email, purpose });

/** Of `addresses`, how many are people waiting in the reviewers' queue. */
async function waiting(addresses: string[]): Promise<number> {
  const found = await Promise.all(addresses.map((a) => people.findByEmail(db, a)));
  return found.filter((p) => p?.status === "pending").length;
}

/** The attacker's own domain, which takes every address, so it reads every code mailed there. */
const catchAll = () => {
  const domain = `${unique("catchall")}.example`;
  return () => `${unique("a")}@${domain}`;
};

describe("the request-access bound on the reviewers' queue", () => {
  it("holds the earn-back attacker: sign-in codes verified for its own pending people buy no more requests", async () => {
    const { app, deps } = budgeted({ perClientPerHour: 5 });
    const from = ipv4();
    const fresh = catchAll();
    const asked: string[] = [];
    const requests: number[] = [];
    let pendingSignIns = 0;
    for (let round = 0; round < 15; round++) {
      // A sign-in code to the pending person made a minute ago (one code a minute per address).
      const previous = asked.at(-1);
      if (previous !== undefined && (await waiting([previous])) === 1) {
        const sent = await sendFrom(app, from, previous);
        if (sent.status === 200) {
          const otp = await codeFor(previous, 2);
          expect((await verify(app, { email: previous, otp })).body).toEqual({ valid: true });
          expect((await signIn(app, { email: previous, otp })).status).toBe(403);
          pendingSignIns++;
        }
      }
      const email = fresh();
      asked.push(email);
      const sent = await sendFrom(app, from, email, "request-access");
      requests.push(sent.status);
      if (sent.status === 200) {
        const otp = await codeFor(email);
        expect((await verify(app, { email, otp, purpose: "request-access" })).status).toBe(200);
      } else expect(sent.body).toEqual(expect.objectContaining({ reason: "request_budget" }));
      await allTasksIdle();
      deps.clock.advance(MINUTE);
    }
    expect(pendingSignIns).toBeGreaterThanOrEqual(4);
    expect(requests.filter((s) => s === 200)).toHaveLength(5);
    expect(await waiting(asked)).toBe(5);
  });

  it("earns nothing for a right code that signed nobody in: a pending person's, or a verify alone", async () => {
    const { app } = budgeted({ perClientPerHour: 2 });
    const from = ipv4();
    const pending = await personAddress({ status: "pending" });
    const approved = await personAddress();
    for (const email of [pending, approved]) {
      expect((await sendFrom(app, from, email)).status).toBe(200);
      const otp = await codeFor(email);
      expect((await verify(app, { email, otp })).body).toEqual({ valid: true });
      if (email === pending) expect((await signIn(app, { email, otp })).body.reason).toBe("pending");
    }
    // Two codes still count, none of them used: the client's hour is full.
    const refused = await sendFrom(app, from, await personAddress());
    expect(refused.status).toBe(429);
    expect(refused.body.reason).toBe("client_budget");
    // Signing the approved person in uses the code, and earns room for one more.
    expect((await signIn(app, { email: approved, otp: await codeFor(approved) })).status).toBe(200);
    expect((await sendFrom(app, from, await personAddress())).status).toBe(200);
  });

  it.each([
    [
      "an IPv4 /24, a client per request",
      () => `${ipv4().split(".").slice(0, 3).join(".")}.`,
      (i: number) => `${i + 1}`,
    ],
    ["an IPv6 /48, walked /64 by /64", () => `2001:db8:${hex()}:`, (i: number) => `${(i + 1).toString(16)}::1`],
  ])("holds one network to three clients' worth of requests: %s", async (_label, block, host) => {
    const { app } = budgeted({ perClientPerHour: 2 });
    const prefix = block();
    const fresh = catchAll();
    const asked: string[] = [];
    const answers = [];
    for (let i = 0; i < 10; i++) {
      const email = fresh();
      asked.push(email);
      const sent = await sendFrom(app, `${prefix}${host(i)}`, email, "request-access");
      answers.push(sent.status === 200 ? 200 : sent.body.reason);
      if (sent.status === 200)
        expect((await verify(app, { email, otp: await codeFor(email), purpose: "request-access" })).status).toBe(200);
    }
    expect(answers).toEqual([...Array(6).fill(200), ...Array(4).fill("request_budget")]);
    expect(await waiting(asked)).toBe(6);
    // Another network asks as ever.
    expect((await sendFrom(app, ipv4(), fresh(), "request-access")).status).toBe(200);
  });

  it("counts a client's requests over an hour and a code's life, so no hour's queue holds more than the bound", async () => {
    const { app, deps } = budgeted({ perClientPerHour: 2 });
    const from = ipv4();
    const fresh = catchAll();
    const first = [fresh(), fresh()];
    for (const email of first) expect((await sendFrom(app, from, email, "request-access")).status).toBe(200);
    const codes = await Promise.all(first.map((email) => codeFor(email)));
    await allTasksIdle();
    // Verified in the last second of their codes' lives: two people join the queue at 9:59.
    deps.clock.advance(10 * MINUTE - SECOND);
    for (const [i, email] of first.entries())
      expect((await verify(app, { email, otp: codes[i], purpose: "request-access" })).status).toBe(200);
    // An hour after they were asked for, more would join in the same hour as those two.
    deps.clock.advance(50 * MINUTE + 2 * SECOND);
    const early = await sendFrom(app, from, fresh(), "request-access");
    expect(early.status).toBe(429);
    expect(early.body).toEqual({
      error: "Too many requests for access from this network. Try again later.",
      reason: "request_budget",
    });
    expect(early.headers["retry-after"]).toBe(String((10 * MINUTE - SECOND) / SECOND));
    deps.clock.advance(10 * MINUTE - SECOND - 1);
    expect((await sendFrom(app, from, fresh(), "request-access")).status).toBe(429);
    deps.clock.advance(1);
    expect((await sendFrom(app, from, fresh(), "request-access")).status).toBe(200);
  });

  it("keeps an office signing in when its address has asked for access as often as it may", async () => {
    const { app } = budgeted({ perClientPerHour: 5 });
    const office = ipv4();
    const fresh = catchAll();
    for (let i = 0; i < 6; i++) {
      const email = fresh();
      const sent = await sendFrom(app, office, email, "request-access");
      if (i < 5)
        expect((await verify(app, { email, otp: await codeFor(email), purpose: "request-access" })).status).toBe(200);
      else expect(sent.status).toBe(429);
    }
    // Then twenty approved people, five at a time, each signing in with the code mailed to them.
    for (let round = 0; round < 4; round++) {
      const staff = await Promise.all(Array.from({ length: 5 }, () => personAddress()));
      const sent = await Promise.all(staff.map((email) => sendFrom(app, office, email)));
      expect(sent.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      for (const email of staff) expect((await signIn(app, { email, otp: await codeFor(email) })).status).toBe(200);
    }
  });

  it("lets exactly the bound through when requests race, from one client and from one network, and queues that many", async () => {
    const { app } = budgeted({ perClientPerHour: 4 });
    const fresh = catchAll();
    const client = ipv4();
    const block = ipv4().split(".").slice(0, 3).join(".");
    const one = Array.from({ length: 20 }, () => fresh());
    const many = Array.from({ length: 30 }, () => fresh());
    const [fromOne, fromMany] = await Promise.all([
      Promise.all(one.map((email) => sendFrom(app, client, email, "request-access"))),
      Promise.all(many.map((email, i) => sendFrom(app, `${block}.${i + 1}`, email, "request-access"))),
    ]);
    expect(fromOne.filter((a) => a.status === 200)).toHaveLength(4);
    expect(fromMany.filter((a) => a.status === 200)).toHaveLength(12);
    for (const a of [...fromOne, ...fromMany].filter((a) => a.status !== 200)) {
      expect(a.status).toBe(429);
      expect(a.body.reason).toBe("request_budget");
    }
    // Every code let through is verified at once: the queue holds exactly the bound.
    const admitted = [
      ...one.filter((_, i) => fromOne[i]!.status === 200),
      ...many.filter((_, i) => fromMany[i]!.status === 200),
    ];
    const checked = await Promise.all(
      admitted.map(async (email) => verify(app, { email, otp: await codeFor(email), purpose: "request-access" })),
    );
    expect(checked.map((c) => c.status)).toEqual(admitted.map(() => 200));
    expect(await waiting(one)).toBe(4);
    expect(await waiting(many)).toBe(12);
  });
});
