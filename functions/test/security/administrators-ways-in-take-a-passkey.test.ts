/**
 * Proves: where the passkey rule holds a person, their own ways in are changed only from a passkey
 * sign-in (or under the operator's lift), as their acts on others are. An email code a look-alike
 * page relays opens a session with a member's powers; it must not add the attacker's address,
 * make an address the one mail goes to, remove one, unlink a provider's account, or turn off the
 * notices of new browsers: each would move, or silence, the mail that tells the administrator
 * what the attacker does next. Each is refused with `403 passkey_required`, before a code is sent
 * or an attempt spent, and again in the change's own transaction; nothing is written.
 */
import request from "supertest";
import { DAY, MINUTE, SECOND } from "../../src/clock";
import { AppError } from "../../src/core/errors";
import { STEP_UP_MS } from "../../src/core/people/acting";
import { makePrimaryAddress } from "../../src/core/account/addresses";
import * as otpRoutes from "../../src/routes/otp/otp";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import * as people from "../../src/store/people";
import * as signInRules from "../../src/store/sign-in-rules";
import { signedUp } from "../support/auth";
import { appFor, ID_URL, testConfig, testDeps, unique } from "../support/deps";
import { codeFor, mailTo } from "../support/inbox";
import { personFor } from "../support/people";
import { allTasksIdle } from "../support/task-queue";
import type { NewPerson, Person } from "../../src/core/model/person";

jest.setTimeout(120_000);

const deps = testDeps({ config: testConfig({ passkeyRoles: ["admin"] }) });
const otpApp = appFor(otpRoutes, deps);
const peopleApp = appFor(peopleRoutes, deps);
const sessionsApp = appFor(sessionRoutes, deps);
const PASSKEY = ["hwk", "user"];

afterEach(() => allTasksIdle());

/**
 * An administrator (made just now: in their enrolment's days, holding no passkey), with a second
 * address and a second provider account, and the calls of their account page from a session.
 */
async function administrator(fields: Partial<NewPerson> = {}) {
  const account = await signedUp();
  const other = await signedUp();
  const second = `${unique("second")}@example.test`;
  const person = await personFor(account, {
    role: "admin",
    projects: ["*"],
    emails: [account.email, second],
    uids: [account.uid, other.uid],
    ...fields,
  });
  const from = (cookie: string) => {
    const call = (app: typeof otpApp, method: "post" | "delete" | "patch", path: string, body?: object) => {
      const req = request(app)[method](path).set("Origin", ID_URL).set("Cookie", cookie);
      return body === undefined ? req : req.send(body);
    };
    return {
      add: (email: string) => call(otpApp, "post", "/auth/account/addresses", { email }),
      confirm: (email: string, otp: string) => call(otpApp, "post", "/auth/account/addresses/verify", { email, otp }),
      primary: (email: string) => call(otpApp, "post", "/auth/account/addresses/primary", { email }),
      remove: (email: string) => call(otpApp, "delete", `/auth/account/addresses/${encodeURIComponent(email)}`),
      unlink: (uid: string) => call(peopleApp, "delete", `/auth/account/accounts/${uid}`),
      notices: (newBrowser: boolean) => call(sessionsApp, "patch", "/auth/session/notices", { newBrowser }),
    };
  };
  /** A session begun by `amr`, its sign-in `ago` milliseconds before now. */
  const session = async (amr: string[], ago = 0) => {
    const now = deps.clock.now();
    const claims = { uid: account.uid, personId: person.id, sessionId: unique("s"), amr };
    const { token } = await deps.tokens.issue({ ...claims, authTime: new Date(now.getTime() - ago) }, now, DAY);
    return from(`__session=${token}`);
  };
  const stored = async () => (await people.findById(deps.store, person.id)) as Person;
  return { account, other, second, person, session, stored };
}

const reasonOf = (res: { status: number; body: { reason?: string } }) => [res.status, res.body.reason ?? null];

describe("an administrator's own ways in, from a session their email code opened", () => {
  it("are refused, every one, with passkey_required, and nothing is written or sent", async () => {
    // Long past their enrolment's days.
    const admin = await administrator({ enrolmentFrom: new Date(deps.clock.now().getTime() - 30 * DAY) });
    const relayed = await admin.session(["otp"]);
    const attacker = `${unique("attacker")}@example.test`;

    expect(reasonOf(await relayed.add(attacker))).toEqual([403, "passkey_required"]);
    expect(reasonOf(await relayed.confirm(attacker, "123456"))).toEqual([403, "passkey_required"]);
    expect(reasonOf(await relayed.primary(admin.second))).toEqual([403, "passkey_required"]);
    expect(reasonOf(await relayed.remove(admin.second))).toEqual([403, "passkey_required"]);
    expect(reasonOf(await relayed.unlink(admin.other.uid))).toEqual([403, "passkey_required"]);
    expect(reasonOf(await relayed.notices(false))).toEqual([403, "passkey_required"]);

    const after = await admin.stored();
    expect(after.emails).toEqual([admin.account.email, admin.second]);
    expect(after.uids).toEqual([admin.account.uid, admin.other.uid]);
    expect(after.newBrowserNotices).toBeUndefined();
    await allTasksIdle();
    expect(await mailTo(attacker)).toHaveLength(0);
    // Turning the notices back on silences nothing: any session may.
    expect((await relayed.notices(true)).status).toBe(200);
  });

  it("are refused in the enrolment's days too: only a first passkey may follow an email code", async () => {
    // Made an administrator just now, with no passkey yet.
    const admin = await administrator();
    const relayed = await admin.session(["otp"]);
    expect(reasonOf(await relayed.primary(admin.second))).toEqual([403, "passkey_required"]);
    expect(reasonOf(await relayed.unlink(admin.other.uid))).toEqual([403, "passkey_required"]);
    expect(reasonOf(await relayed.notices(false))).toEqual([403, "passkey_required"]);
    // A recovery code's session has no more of them than a code's.
    expect(reasonOf(await (await admin.session(["rec"])).remove(admin.second))).toEqual([403, "passkey_required"]);
  });

  it("are decided again in the change's transaction, on the person as it reads them", async () => {
    // The request's copy of the person is a member's; they were made an administrator since.
    const admin = await administrator();
    const stale: Person = { ...admin.person, role: "user" };
    const by = { self: stale, signedInAt: deps.clock.now(), amr: ["otp"], from: "Firefox on Linux" };
    const refused = await makePrimaryAddress(deps, by, admin.second).then(
      () => null,
      (err: unknown) => (err instanceof AppError ? err.code : err),
    );
    expect(refused).toBe("passkey_required");
    expect((await admin.stored()).emails[0]).toBe(admin.account.email);
  });
});

describe("an administrator's own ways in, from a passkey sign-in", () => {
  it("are theirs to change, each of them", async () => {
    const admin = await administrator();
    const keyed = await admin.session(PASSKEY);
    const added = `${unique("added")}@example.test`;
    expect((await keyed.add(added)).status).toBe(200);
    expect((await keyed.confirm(added, await codeFor(added))).status).toBe(200);
    expect((await keyed.primary(added)).status).toBe(200);
    expect((await keyed.remove(admin.second)).status).toBe(200);
    expect((await keyed.unlink(admin.other.uid)).status).toBe(200);
    expect((await keyed.notices(false)).status).toBe(200);
    const after = await admin.stored();
    expect(after.emails).toEqual([added, admin.account.email]);
    expect(after.uids).toEqual([admin.account.uid]);
    expect(after.newBrowserNotices).toBe(false);
  });

  it("ask for the passkey again, not any sign-in, once the sign-in is older than 5 minutes", async () => {
    const admin = await administrator();
    // A session's sign-in time is kept to the second (the token's auth_time): a second either side.
    const old = await admin.session(PASSKEY, STEP_UP_MS + SECOND);
    expect(reasonOf(await old.primary(admin.second))).toEqual([403, "passkey_required"]);
    expect(reasonOf(await old.notices(false))).toEqual([403, "passkey_required"]);
    const fresh = await admin.session(PASSKEY, STEP_UP_MS - MINUTE);
    expect((await fresh.primary(admin.second)).status).toBe(200);
  });
});

describe("the operator's lift, and a member", () => {
  it("lets an administrator's email code change their ways in while the rule is lifted for them", async () => {
    const admin = await administrator();
    await deps.transaction(async (tx) =>
      signInRules.setLift(deps.store, tx, admin.person.id, {
        until: new Date(deps.clock.now().getTime() + 10 * MINUTE),
        at: deps.clock.now(),
        by: "test operator",
      }),
    );
    expect((await (await admin.session(["otp"])).primary(admin.second)).status).toBe(200);
  });

  it("asks a member's email code for nothing more than a recent sign-in", async () => {
    const member = await administrator({ role: "user", projects: ["status"] });
    const code = await member.session(["otp"]);
    expect((await code.primary(member.second)).status).toBe(200);
    expect((await code.notices(false)).status).toBe(200);
    const old = await member.session(["otp"], STEP_UP_MS + SECOND);
    expect(reasonOf(await old.remove(member.second))).toEqual([403, "step_up_required"]);
  });
});
