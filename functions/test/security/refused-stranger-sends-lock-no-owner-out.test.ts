/**
 * Proves: a stranger whose every send is refused (its client spent its budget) cannot keep an
 * address's owner from a code. The contract lets anyone hold an address back for 60 seconds only
 * by having a code sent to it, which reaches the owner's mailbox; a send refused by its own budgets
 * sends nothing and must hold back nothing. Only a send the budgets let through claims the
 * address's minute (store/send-claims), so the stranger, whom a refusal costs nothing, holds no
 * claim however fast it fires, and every owner who asks is sent a code.
 */
import request from "supertest";
import type { Express } from "express";
import { cryptoRandom } from "../../src/random";
import type { SendBudgets } from "../../src/core/settings";
import { testConfig, UNLIMITED_SENDS } from "../support/deps";
import { fresh, personAddress } from "../support/email-codes";

const octet = () => cryptoRandom.int(1, 255);
/** An IPv4 client in a /24 of its own (almost surely). */
const ipv4 = () => `${cryptoRandom.int(11, 100)}.${octet()}.${octet()}.${octet()}`;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function budgeted(budgets: Partial<SendBudgets>): Express {
  // A pepper of its own: budget records are keyed by it, so nothing sent elsewhere counts here.
  const codePepper = `lockout-${cryptoRandom.int(0, 1e9)}:${cryptoRandom.token(24)}`;
  return fresh({ config: testConfig({ sendBudgets: { ...UNLIMITED_SENDS, ...budgets }, codePepper }) }, true).app;
}

const sendFrom = (app: Express, client: string, email: string) =>
  request(app).post("/auth/otp/send").set("X-Forwarded-For", client).send({ email });

describe("POST /auth/otp/send, a stranger refused by its own budget", () => {
  it("holds no owner back from a code, however fast it fires", async () => {
    const app = budgeted({ perClientPerHour: 1 });
    const stranger = ipv4();
    // The stranger spends its client's one unused code on an address of its own: it is refused after.
    expect((await sendFrom(app, stranger, await personAddress())).status).toBe(200);
    expect((await sendFrom(app, stranger, await personAddress())).body).toEqual(
      expect.objectContaining({ reason: expect.any(String) }),
    );

    const owners: string[] = [];
    for (let i = 0; i < 5; i++) owners.push(await personAddress());
    let firing = true;
    const strangers: number[] = [];
    // Three of the stranger's loops at each owner's address, each sending again as soon as it is refused.
    const attack = Promise.all(
      Array.from({ length: 15 }, async (_, i) => {
        while (firing) strangers.push((await sendFrom(app, stranger, owners[i % owners.length] as string)).status);
      }),
    );
    await pause(500);
    // Each owner asks once for a code, from a client of their own: nobody has sent them one.
    const asked: number[] = [];
    for (const owner of owners) asked.push((await sendFrom(app, ipv4(), owner)).status);
    firing = false;
    await attack;

    expect(strangers.length).toBeGreaterThan(0);
    expect(strangers.every((s) => s === 429)).toBe(true);
    expect(asked).toEqual([200, 200, 200, 200, 200]);
  });
});
