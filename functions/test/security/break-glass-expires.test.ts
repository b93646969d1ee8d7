/**
 * The operator's break-glass, run as the operator runs it (the compiled CLI, a process of its
 * own) against a project of its own: the passkey rule lifted for one administrator for 10
 * minutes lets their email-code session act as an administrator, each act recorded as made under
 * the lift; they and every other administrator are told, each in a mail of their own; the rule is
 * back to the second after; and clearing someone's passkeys and recovery codes ends them, starts
 * their enrolment again, and is told too.
 */
import request from "supertest";
import { DAY, MINUTE } from "../../src/clock";
import { transactionRunner } from "../../src/store/db";
import * as peopleGroup from "../../src/routes/people/people";
import * as passkeysGroup from "../../src/routes/passkeys/passkeys";
import { personHistory } from "../../src/core/people/history";
import * as signInRules from "../../src/store/sign-in-rules";
import { signedUp } from "../support/auth";
import { appFor, firestore, testConfig, testDeps, unique } from "../support/deps";
import { mailAfter, mailTo } from "../support/inbox";
import { operator, freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";
import { passkeyWorld } from "../support/passkeys";

jest.setTimeout(120_000);

// The suite's own project is the default app (its accounts): made before the fresh one's.
firestore();
const { db, env } = freshProject();
const deps = testDeps({
  store: db,
  transaction: transactionRunner(db),
  // The deployment's setting says nothing here: the operator's word turns the rule on.
  config: testConfig({ passkeyRoles: [] }),
});
const peopleApp = appFor(peopleGroup, deps);
const passkeysApp = appFor(passkeysGroup, deps);
const keys = passkeyWorld(deps);
const mail = { SMTP_HOST: "127.0.0.1", SMTP_PORT: process.env.STACK_SMTP_PORT as string };
const cli = (args: string[]) => operator([...args, "--yes"], { ...env, ...mail });

async function administrator(name: string) {
  const account = await signedUp();
  const person = await personFor(account, { role: "admin", projects: ["*"], name }, db);
  return { account, person };
}

const list = (cookie: string) => request(peopleApp).get("/auth/people").query({ limit: 1 }).set("Cookie", cookie);

beforeAll(async () => {
  const set = await cli(["passkey-rule", "set", "admin"]);
  expect(set.code).toBe(0);
});

describe("passkey-rule lift", () => {
  it("lets one administrator act from an email code for 10 minutes, tells everyone, and the rule is back after", async () => {
    const ada = await administrator("Ada");
    const ben = await administrator("Ben");
    const cy = await administrator("Cy");
    const member = await personFor({ uid: unique("uid"), email: `${unique("m")}@example.test` }, {}, db);
    const code = await sessionCookieFor(deps, ada.account.uid, ada.person.id, ["otp"]);
    expect((await list(code)).body.reason).toBe("passkey_required");

    const lifted = await cli(["passkey-rule", "lift", ada.account.email, "--minutes", "10"]);
    expect(lifted.code).toBe(0);
    expect(lifted.stdout).toContain("lifted the passkey rule for");

    // Under the lift: their code session acts, and the act is recorded as made under it.
    expect((await list(code)).status).toBe(200);
    const renamed = await request(peopleApp)
      .patch(`/auth/people/${member.id}`)
      .set("Cookie", code)
      .send({ name: "Renamed under the lift" });
    expect(renamed.status).toBe(200);
    const [entry] = (await personHistory(deps, member.id, 1, null)).entries;
    expect(entry?.by).toMatchObject({ kind: "admin", personId: ada.person.id, amr: ["otp"], lifted: true });
    // Another administrator's code session is still held.
    const other = await sessionCookieFor(deps, ben.account.uid, ben.person.id, ["otp"]);
    expect((await list(other)).body.reason).toBe("passkey_required");

    // Written to their history, and told: to them and to each other administrator, a mail each.
    const [lift] = (await personHistory(deps, ada.person.id, 1, null)).entries;
    expect(lift).toMatchObject({ event: "passkey-rule-lifted", via: "cli", by: { kind: "operator" } });
    const toAda = await mailAfter(ada.account.email, 0, (m) => m.text.includes("lifted the passkey rule for you"));
    expect(toAda.text).toContain("any sign-in");
    for (const told of [ben, cy]) {
      const m = await mailAfter(told.account.email, 0, (x) => x.text.includes("lifted the passkey rule for"));
      expect(m.text).toContain(ada.account.email);
      expect(m.to.map((t) => t.address)).toEqual([told.account.email]);
    }

    // Ten minutes from the lift, to the millisecond: held again.
    const stored = (await signInRules.readPasskeyRule(db)).lifts[ada.person.id];
    const until = stored?.until as Date;
    expect(until.getTime() - (stored?.at as Date).getTime()).toBe(10 * MINUTE);
    deps.clock.set(new Date(until.getTime() - 1));
    expect((await list(code)).status).toBe(200);
    deps.clock.set(until);
    expect((await list(code)).body.reason).toBe("passkey_required");
    const late = await request(peopleApp).patch(`/auth/people/${member.id}`).set("Cookie", code).send({ name: "Late" });
    expect(late.body.reason).toBe("passkey_required");
  });

  it("refuses a lift longer than a day, or of no time, and names the range", async () => {
    const ada = await administrator("Ada");
    for (const minutes of ["0", "1441", "ten"]) {
      const run = await cli(["passkey-rule", "lift", ada.account.email, "--minutes", minutes]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain("1 to 1440");
    }
  });
});

describe("passkey-rule clear", () => {
  it("ends a person's passkeys and recovery codes, lets an email code add a first passkey again, and tells everyone", async () => {
    // Made an administrator more than a week ago: their first days are long over.
    const keyed = await keys.withPasskey({ role: "admin", projects: ["*"] });
    await db
      .collection("people")
      .doc(keyed.person.id)
      .update({ createdAt: new Date(deps.clock.now().getTime() - 30 * DAY) });
    const other = await administrator("Dee");
    const byPasskey = await sessionCookieFor(deps, keyed.account.uid, keyed.person.id, ["hwk", "user"]);
    expect(
      (await request(passkeysApp).post("/auth/passkeys/recovery-codes").set("Cookie", byPasskey).send({})).status,
    ).toBe(201);
    const byCode = await sessionCookieFor(deps, keyed.account.uid, keyed.person.id, ["otp"]);
    expect((await request(passkeysApp).get("/auth/passkeys").set("Cookie", byCode)).body.rule.mayAdd).toBe(false);

    const cleared = await cli(["passkey-rule", "clear", keyed.account.email]);
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toMatch(/removed 1 passkey\(s\) and 10 unused recovery code\(s\)/);
    expect((await db.collection("passkeys").where("personId", "==", keyed.person.id).get()).size).toBe(0);
    expect((await db.collection("recoveryCodes").doc(keyed.person.id).get()).exists).toBe(false);
    const mine = await request(passkeysApp).get("/auth/passkeys").set("Cookie", byCode);
    expect(mine.body.rule).toMatchObject({ mayAdd: true, enrolBy: expect.any(String) });
    const [entry] = (await personHistory(deps, keyed.person.id, 1, null)).entries;
    expect(entry).toMatchObject({ event: "passkeys-cleared", by: { kind: "operator" } });
    await mailAfter(keyed.account.email, 0, (m) => m.text.includes("The operator removed your passkeys"));
    const toOther = await mailAfter(other.account.email, 0, (m) => m.text.includes("The operator removed"));
    expect(toOther.text).toContain(keyed.account.email);
    expect((await mailTo(other.account.email)).every((m) => m.to.length === 1)).toBe(true);
  });
});
