/**
 * A phishing relay, played out: a look-alike page takes an administrator's address, has the real
 * service mail them a code, and relays the code they type, at once, so it is fresh. The attacker
 * signs in with it, through every step a browser takes (POST /auth/otp/sign-in, the identity
 * provider, POST /auth/verify), and holds a session as the administrator. Under the passkey rule
 * that session has a member's powers and nothing more: every administrators' route is refused
 * (403 passkey_required), no address is added to anyone (the administrator's own account
 * included), no invitation is made or mailed, no recovery codes are made, the notices of new
 * browsers stay on, and the administrator's own passkeys can be neither added to nor taken away.
 */
import request from "supertest";
import * as otp from "../../src/routes/otp/otp";
import * as peopleGroup from "../../src/routes/people/people";
import * as sessions from "../../src/routes/sessions/sessions";
import * as people from "../../src/store/people";
import * as invitations from "../../src/store/invitations";
import { signedUp, signInWithCustomToken } from "../support/auth";
import { SoftwareAuthenticator } from "../support/authenticator";
import { adminRoutes, filled } from "../support/admin-routes";
import { appFor, ID_URL, testConfig, testDeps, unique } from "../support/deps";
import { codeIn, hasCode, mailAfter, mailTo } from "../support/inbox";
import { accountWithPerson, cookieFrom, personFor } from "../support/people";
import { passkeyWorld } from "../support/passkeys";
import { allTasksIdle } from "../support/task-queue";

const deps = testDeps({ config: testConfig({ passkeyRoles: ["admin"] }) });
const otpApp = appFor(otp, deps);
const sessionsApp = appFor(sessions, deps);
const peopleApp = appFor(peopleGroup, deps);
const keys = passkeyWorld(deps);

afterEach(() => allTasksIdle());

/** The attacker's half: the address, the relayed code, and every step a browser takes to a session. */
async function relayedSession(email: string): Promise<string> {
  const seen = (await mailTo(email)).length;
  expect((await request(otpApp).post("/auth/otp/send").send({ email })).status).toBe(200);
  const code = codeIn(await mailAfter(email, seen, hasCode));
  const signedIn = await request(otpApp).post("/auth/otp/sign-in").send({ email, otp: code });
  expect(signedIn.status).toBe(200);
  const idToken = await signInWithCustomToken(signedIn.body.customToken);
  const verified = await request(sessionsApp).post("/auth/verify").send({ idToken, project: "account" });
  expect(verified.body).toMatchObject({ approved: true, role: "admin" });
  return cookieFrom(verified.headers["set-cookie"]) as string;
}

describe("an administrator's fresh email code, relayed", () => {
  it("opens a session with a member's powers and nothing more", async () => {
    // The administrator has used their passkey for a while: their enrolment is long done.
    const admin = await keys.withPasskey({ role: "admin", projects: ["*"] });
    const { person: victim } = await accountWithPerson({ projects: ["status"] }, deps.store);
    const cookie = await relayedSession(admin.account.email);

    // A member's powers: the session is theirs, their own account answers.
    const refreshed = await request(sessionsApp).post("/auth/session/refresh").set("Cookie", cookie);
    expect(refreshed.body).toMatchObject({ authenticated: true, personId: admin.person.id });
    expect((await request(peopleApp).get("/auth/account/apps").set("Cookie", cookie)).status).toBe(200);
    const own = await request(keys.app).get("/auth/passkeys").set("Cookie", cookie);
    expect(own.body.rule).toMatchObject({ holds: true, acts: false, mayAdd: false, liftedUntil: null });

    // Every administrators' route refused.
    for (const route of adminRoutes(deps)) {
      const call = request(peopleApp)[route.method.toLowerCase() as "get"](filled(route, { personId: victim.id }));
      const res = await (route.method === "GET" || route.method === "DELETE" ? call : call.send({})).set(
        "Cookie",
        cookie,
      );
      expect({ route: `${route.method} ${route.path}`, reason: res.body.reason }).toEqual({
        route: `${route.method} ${route.path}`,
        reason: "passkey_required",
      });
    }

    // No address added to anyone, themselves through the administrators' API included.
    const planted = `${unique("attacker")}@example.test`;
    for (const target of [victim.id, admin.person.id]) {
      const res = await request(peopleApp)
        .patch(`/auth/people/${target}`)
        .set("Cookie", cookie)
        .send({ emails: [planted], role: "admin", status: "approved" });
      expect(res.body.reason).toBe("passkey_required");
    }
    // Nor on their own account page: their ways in are a passkey sign-in's to change, so no code
    // goes to the attacker's address, and the notices of new browsers stay on.
    const ownAddress = await request(otpApp)
      .post("/auth/account/addresses")
      .set("Cookie", cookie)
      .send({ email: planted });
    expect(ownAddress.body.reason).toBe("passkey_required");
    const quiet = await request(sessionsApp)
      .patch("/auth/session/notices")
      .set("Cookie", cookie)
      .send({ newBrowser: false });
    expect(quiet.body.reason).toBe("passkey_required");
    expect((await people.findById(deps.store, victim.id))?.emails).not.toContain(planted);
    expect((await people.findById(deps.store, admin.person.id))?.emails).toEqual([admin.account.email]);

    // No invitation made, none mailed.
    const invited = `${unique("invited")}@example.test`;
    const inviting = await request(peopleApp)
      .post("/auth/invitations")
      .set("Cookie", cookie)
      .send({ address: invited, role: "admin" });
    expect(inviting.body.reason).toBe("passkey_required");
    expect(await invitations.findByAddress(deps.store, invited)).toBeNull();
    await allTasksIdle();
    expect(await mailTo(invited)).toHaveLength(0);

    // No recovery codes made, to stand in for the passkey later.
    const codes = await request(keys.app).post("/auth/passkeys/recovery-codes").set("Cookie", cookie).send({});
    expect(codes.body.reason).toBe("passkey_required");
    expect((await deps.store.collection("recoveryCodes").doc(admin.person.id).get()).exists).toBe(false);

    // The administrator's passkeys: none planted, none taken away.
    const options = await request(keys.app).post("/auth/passkeys/register/options").set("Cookie", cookie).send({});
    expect(options.body.reason).toBe("passkey_required");
    const removing = await request(keys.app).delete(`/auth/passkeys/${admin.passkeyId}`).set("Cookie", cookie);
    expect(removing.body.reason).toBe("passkey_required");
    expect((await request(keys.app).get("/auth/passkeys").set("Cookie", cookie)).body.passkeys).toHaveLength(1);
  });

  it("cannot take the administrator's passkey away by removing the address it was added through", async () => {
    // In their first days, the administrator added their passkey after a code to their second address.
    const account = await signedUp();
    const second = `${unique("second")}@example.test`;
    const admin = await personFor(account, { emails: [account.email, second], role: "admin", projects: ["*"] });
    const enrolled = await relayedSession(second);
    expect((await keys.register({ session: enrolled, binding: null }, new SoftwareAuthenticator())).status).toBe(201);

    const cookie = await relayedSession(account.email);
    const removing = await request(otpApp)
      .delete(`/auth/account/addresses/${encodeURIComponent(second)}`)
      .set("Origin", ID_URL)
      .set("Cookie", cookie);
    expect(removing.body.reason).toBe("passkey_required");
    expect((await people.findById(deps.store, admin.id))?.emails).toEqual([account.email, second]);
    expect((await request(keys.app).get("/auth/passkeys").set("Cookie", cookie)).body.passkeys).toHaveLength(1);
  });
});
