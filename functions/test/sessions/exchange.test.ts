/** POST /auth/exchange: an exchange code redeemed once, for its person, in its lifetime, by one of many. */
import request from "supertest";
import { SECOND } from "../../src/clock";
import { EXCHANGE_CODE_LIFETIME_MS, issueExchangeCode } from "../../src/core/sessions/exchange-codes";
import { sha256 } from "../../src/core/secrets";
import * as sessions from "../../src/routes/sessions/sessions";
import { appFor, firestore, testDeps } from "../support/deps";
import { accountWithPerson } from "../support/people";
import { expectRaced } from "../support/race";

const db = firestore();

describe("POST /auth/exchange", () => {
  const deps = testDeps();
  const app = appFor(sessions, deps);
  const exchange = (body: unknown) =>
    request(app)
      .post("/auth/exchange")
      .send(body as object);

  it("redeems a code for the person it was issued to", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"], name: "Ada" });
    const code = await issueExchangeCode(deps, person.id, account.uid);
    const res = await exchange({ code });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      uid: account.uid,
      personId: person.id,
      email: account.email,
      name: "Ada",
      role: "user",
      projects: ["startpage"],
    });
  });

  it("stores only a hash of the code", async () => {
    const { account, person } = await accountWithPerson();
    const code = await issueExchangeCode(deps, person.id, account.uid);
    expect((await db.collection("exchangeCodes").doc(code).get()).exists).toBe(false);
    const stored = await db.collection("exchangeCodes").doc(sha256(code)).get();
    expect(stored.exists).toBe(true);
    expect(JSON.stringify(stored.data())).not.toContain(code);
  });

  it.each([[{}], [{ code: "" }], [{ code: 7 }]])("answers 400 code required for %j", async (body) => {
    const res = await exchange(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "code required" });
  });

  it.each([
    ['{"code":"%s","isAdmin":true}', "isAdmin"],
    ['{"code":"%s","__proto__":{"role":"admin"}}', "__proto__"],
  ])("refuses a body with a field it does not take (%s), and leaves the code unspent", async (body, field) => {
    const { account, person } = await accountWithPerson();
    const code = await issueExchangeCode(deps, person.id, account.uid);
    const res = await request(app)
      .post("/auth/exchange")
      .set("Content-Type", "application/json")
      .send(body.replace("%s", code));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: `Unknown field: ${field}`, reason: "unknown_field" });
    expect((await exchange({ code })).status).toBe(200);
  });

  it("answers 401 Invalid code for a code nobody issued", async () => {
    const res = await exchange({ code: "never-issued" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Invalid code" });
  });

  it("answers 401 Code already used the second time", async () => {
    const { account, person } = await accountWithPerson();
    const code = await issueExchangeCode(deps, person.id, account.uid);
    expect((await exchange({ code })).status).toBe(200);
    const again = await exchange({ code });
    expect(again.status).toBe(401);
    expect(again.body).toEqual({ error: "Code already used" });
  });

  it("honours a code until its lifetime ends and not after", async () => {
    const clocked = testDeps();
    const clockedApp = appFor(sessions, clocked);
    const { account, person } = await accountWithPerson();
    const early = await issueExchangeCode(clocked, person.id, account.uid);
    const late = await issueExchangeCode(clocked, person.id, account.uid);
    clocked.clock.advance(EXCHANGE_CODE_LIFETIME_MS - 1);
    expect((await request(clockedApp).post("/auth/exchange").send({ code: early })).status).toBe(200);
    clocked.clock.advance(1);
    const expired = await request(clockedApp).post("/auth/exchange").send({ code: late });
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ error: "Code expired" });
    expect(EXCHANGE_CODE_LIFETIME_MS).toBe(60 * SECOND);
  });

  it("consumes the code even when the person is not approved", async () => {
    const { account, person } = await accountWithPerson({ status: "pending" });
    const code = await issueExchangeCode(deps, person.id, account.uid);
    const res = await exchange({ code });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Account not approved", reason: "pending" });
    await db.collection("people").doc(person.id).update({ status: "approved" });
    expect((await exchange({ code })).body).toEqual({ error: "Code already used" });
  });

  it("answers 401 Person not found when the person is gone", async () => {
    const { account, person } = await accountWithPerson();
    const code = await issueExchangeCode(deps, person.id, account.uid);
    await db.collection("people").doc(person.id).delete();
    const res = await exchange({ code });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Person not found" });
  });

  it("lets exactly one of 20 concurrent redemptions win", async () => {
    const { account, person } = await accountWithPerson();
    const code = await issueExchangeCode(deps, person.id, account.uid);
    const answers = await Promise.all(Array.from({ length: 20 }, () => exchange({ code })));
    expectRaced(
      answers,
      (a) => a.status === 200,
      (a) => a.status === 401 && a.body.error === "Code already used",
    );
    const stored = await db.collection("exchangeCodes").doc(sha256(code)).get();
    expect(stored.get("redeemedAt")).toBeDefined();
  });
});
