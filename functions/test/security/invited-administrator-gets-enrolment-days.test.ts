/**
 * Proves: an administrator given the role by an invitation gets their enrolment's days from when
 * they take the role, not from when their record began. A person who waited for review (they came
 * through a provider whose word the operator does not take) and proves their invited address by
 * code is admitted then, perhaps weeks after they first came; under the passkey rule they must
 * still be able to add a first passkey after that email code, or only the operator could let them
 * in as the administrator they were invited to be.
 */
import request from "supertest";
import { DAY } from "../../src/clock";
import { arriveByCode } from "../../src/core/arrival/arrival";
import { invite } from "../../src/core/invitations/invitations";
import { enrolmentEnds } from "../../src/core/people/acting";
import { ENROLMENT_GRACE_MS } from "../../src/core/model/passkey-rule";
import * as otp from "../../src/routes/otp/otp";
import * as people from "../../src/store/people";
import { SoftwareAuthenticator } from "../support/authenticator";
import { signedUp } from "../support/auth";
import { appFor, testConfig, testDeps, unique } from "../support/deps";
import { codeIn, hasCode, mailAfter, mailTo } from "../support/inbox";
import { personFor, sessionCookieFor } from "../support/people";
import { passkeyWorld } from "../support/passkeys";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(120_000);

const deps = testDeps({ config: testConfig({ passkeyRoles: ["admin"] }) });
const keys = passkeyWorld(deps);
const otpApp = appFor(otp, deps);
const OPERATOR = { operator: { kind: "operator" as const, name: "test operator" } };
const address = (prefix: string) => `${unique(prefix)}@example.test`;
const inviteAdmin = (email: string) =>
  invite(deps, { address: email, name: "", projects: ["*"], groups: [], role: "admin", note: "" }, OPERATOR, 60);

afterEach(() => allTasksIdle());

describe("an administrator's invitation taken up", () => {
  it("by a code that admits them from waiting, weeks on, starts their 7 days then", async () => {
    const email = address("waited");
    await inviteAdmin(email);
    // They came first through a provider the operator does not name, and waited.
    const elsewhere = await signedUp();
    const waiting = await personFor({ uid: elsewhere.uid, email }, { status: "pending" }, deps.store);
    deps.clock.advance(8 * DAY);

    // Their code proves the address: the invitation admits them, an administrator.
    const seen = (await mailTo(email)).length;
    expect((await request(otpApp).post("/auth/otp/send").send({ email })).status).toBe(200);
    const code = codeIn(await mailAfter(email, seen, hasCode));
    expect((await request(otpApp).post("/auth/otp/sign-in").send({ email, otp: code })).status).toBe(200);
    const admitted = (await people.findById(deps.store, waiting.id))!;
    expect(admitted).toMatchObject({ role: "admin", status: "approved" });
    expect(admitted.enrolmentFrom).toEqual(deps.clock.now());
    expect(enrolmentEnds(admitted, deps.clock.now())).toEqual(
      new Date(deps.clock.now().getTime() + ENROLMENT_GRACE_MS),
    );

    // The session that code opens may add their first passkey.
    const session = await sessionCookieFor(deps, admitted.uids[0] as string, admitted.id, ["otp"]);
    expect((await keys.register({ session, binding: null }, new SoftwareAuthenticator())).status).toBe(201);
  });

  it("by a code on arrival starts their 7 days on arrival", async () => {
    const email = address("arrives");
    await inviteAdmin(email);
    const arrived = await arriveByCode(deps, email);
    expect(arrived).toMatchObject({ role: "admin", status: "approved" });
    expect(arrived?.enrolmentFrom).toEqual(deps.clock.now());
  });
});
