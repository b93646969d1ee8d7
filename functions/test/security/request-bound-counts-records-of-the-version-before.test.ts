/**
 * Proves: the bound docs/security.md states on requests for access ("at most 20 new people join
 * the queue in any hour from one client ... the bound is exact") holds over the ledger records the
 * version before wrote (in the 70 minutes after an upgrade, or by an instance of it still serving
 * during a rolling deploy): the one count that vouches for a send's budgets together counts each
 * budget's records by the budget's own key, as they always carried it, so a client whose window
 * already holds its allowance of requests is refused, as its own count of `requestClient` would.
 */
import request from "supertest";
import type { Express } from "express";
import { FieldValue } from "firebase-admin/firestore";
import { MINUTE } from "../../src/clock";
import { cryptoRandom } from "../../src/random";
import type { SendBudgets } from "../../src/core/settings";
import { testConfig, UNLIMITED_SENDS, unique } from "../support/deps";
import { db, fresh, idOf } from "../support/email-codes";

const octet = () => cryptoRandom.int(1, 255);
/** An IPv4 client in a /24 of its own (almost surely). */
const ipv4 = () => `${cryptoRandom.int(11, 100)}.${octet()}.${octet()}.${octet()}`;

function budgeted(budgets: Partial<SendBudgets>) {
  const sendBudgets = { ...UNLIMITED_SENDS, ...budgets };
  // A pepper of its own: budget records are keyed by it, so nothing sent elsewhere counts here.
  const codePepper = `legacy-${cryptoRandom.int(0, 1e9)}:${cryptoRandom.token(24)}`;
  return { ...fresh({ config: testConfig({ sendBudgets, codePepper }) }, true), codePepper };
}

const sendFrom = (app: Express, client: string, email: string, purpose = "request-access") =>
  request(app).post("/auth/otp/send").set("X-Forwarded-For", client).send({ email, purpose });

describe("the request-access bound, over records the version before wrote", () => {
  it("refuses a client whose window holds its allowance, some of it recorded by the version before", async () => {
    const { app, deps, codePepper } = budgeted({ perClientPerHour: 3 });
    const from = ipv4();
    const domain = `${unique("catchall")}.example`;

    // One request for access from the client, recorded by this version.
    const first = `${unique("a")}@${domain}`;
    expect((await sendFrom(app, from, first)).status).toBe(200);
    const found = await db.collection("sends").where("address", "==", idOf(first, codePepper)).get();
    expect(found.size).toBe(1);

    // Two more from the same client a few minutes earlier, as the version before recorded them:
    // the same keyed budgets, under ids of their own.
    const legacy: Record<string, unknown> = { ...found.docs[0]?.data() };
    delete legacy.address;
    for (let i = 0; i < 2; i++) {
      const at = new Date(deps.clock.now().getTime() - (i + 2) * MINUTE);
      await db
        .collection("sends")
        .doc(cryptoRandom.id())
        .create({ ...legacy, at, seq: FieldValue.serverTimestamp(), used: 0 });
    }

    // Its window of 70 minutes now holds three requests: its allowance. Nothing more goes through.
    deps.clock.advance(MINUTE);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await sendFrom(app, from, `${unique("a")}@${domain}`)).status);
    expect(statuses).toEqual([429, 429, 429]);
  });
});
