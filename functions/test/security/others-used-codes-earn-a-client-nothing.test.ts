/**
 * Proves: the one count that vouches for a send's client, network and domain budgets together (the
 * sends of all, each once) lends a client no room from codes that other clients' people used. Those codes
 * earn room for their own clients and for the domain, never for a client that sent none of them:
 * a client whose own codes go unused is held to its budget however many people of its domain sign
 * in from elsewhere. And the service's minute, which vouches for every network's, lends a network
 * none of another's room either.
 */
import request from "supertest";
import type { Express } from "express";
import { cryptoRandom } from "../../src/random";
import type { SendBudgets } from "../../src/core/settings";
import { testConfig, UNLIMITED_SENDS, unique } from "../support/deps";
import { codeFor } from "../support/inbox";
import { personFor } from "../support/people";
import { fresh, signIn } from "../support/email-codes";

const octet = () => cryptoRandom.int(1, 255);
/** A client address in a /24 of its own (almost surely: 16 million of them). */
const network = () => `${cryptoRandom.int(11, 100)}.${octet()}.${octet()}.${octet()}`;

function budgeted(budgets: Partial<SendBudgets>): Express {
  // A pepper of its own: budget records are keyed by it, so nothing sent elsewhere counts here.
  const codePepper = `vouch-${cryptoRandom.int(0, 1e9)}:${cryptoRandom.token(24)}`;
  return fresh({ config: testConfig({ sendBudgets: { ...UNLIMITED_SENDS, ...budgets }, codePepper }) }).app;
}

const sendFrom = (app: Express, from: string, email: string) =>
  request(app).post("/auth/otp/send").set("X-Forwarded-For", `${network()}, ${from}`).send({ email });

describe("POST /auth/otp/send, counted together", () => {
  it("holds a client to its budget while other clients' people at its domain use their codes", async () => {
    const app = budgeted({ perClientPerHour: 2, perDomainPerHour: 1000 });
    const domain = `${unique("org")}.example`;
    // Four people of the domain sign in, each from a client of their own: four used codes there.
    for (let i = 0; i < 4; i++) {
      const email = `${unique("staff")}@${domain}`;
      await personFor({ uid: unique("uid"), email }, { projects: ["startpage"] });
      expect((await sendFrom(app, network(), email)).status).toBe(200);
      expect((await signIn(app, { email, otp: await codeFor(email) })).status).toBe(200);
    }
    // One client asks codes for people of that domain and uses none of them.
    const from = network();
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const email = `${unique("other")}@${domain}`;
      await personFor({ uid: unique("uid"), email }, { projects: ["startpage"] });
      statuses.push((await sendFrom(app, from, email)).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it("holds a network to its share of the minute while another network's codes are used", async () => {
    // A network's share is 5% of the service's minute: 2 unused codes of 40.
    const app = budgeted({ perServicePerMinute: 40 });
    for (let i = 0; i < 4; i++) {
      const email = `${unique("staff")}@${unique("org")}.example`;
      await personFor({ uid: unique("uid"), email }, { projects: ["startpage"] });
      expect((await sendFrom(app, network(), email)).status).toBe(200);
      expect((await signIn(app, { email, otp: await codeFor(email) })).status).toBe(200);
    }
    const block = `${cryptoRandom.int(11, 100)}.${octet()}.${octet()}`;
    const statuses = [];
    for (let i = 1; i <= 3; i++)
      statuses.push((await sendFrom(app, `${block}.${i}`, `${unique("s")}@${unique("org")}.example`)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });
});
