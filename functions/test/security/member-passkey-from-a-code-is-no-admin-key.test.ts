/**
 * Proves: an email code becomes no administrator's power by way of a passkey added before the
 * promotion. A member may add a passkey after any recent sign-in, an email code's included (the
 * passkey rule does not hold members), so a look-alike page that relays a member's code can plant
 * the attacker's passkey: the member is told "a passkey was added", which means little to them.
 * When that member is later made an administrator, the planted passkey must not sign in as one:
 * docs/security.md, "no email code, relayed by a look-alike page or not, becomes their power".
 */
import request from "supertest";
import * as peopleGroup from "../../src/routes/people";
import * as sessions from "../../src/routes/sessions";
import { changePerson } from "../../src/core/people/people-admin";
import { SoftwareAuthenticator } from "../support/authenticator";
import { signInWithCustomToken } from "../support/auth";
import { appFor, testConfig, testDeps } from "../support/deps";
import { cookieFrom } from "../support/people";
import { newBrowser, passkeyWorld } from "../support/passkeys";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(120_000);

const deps = testDeps({ config: testConfig({ passkeyRoles: ["admin"] }) });
const keys = passkeyWorld(deps);
const sessionsApp = appFor(sessions, deps);
const peopleApp = appFor(peopleGroup, deps);
const OPERATOR = { kind: "operator" as const, name: "test operator" };

afterEach(() => allTasksIdle());

describe("a passkey an email code added to a member", () => {
  it("does not act as an administrator once the member is made one", async () => {
    // The member's relayed code: a session of a second ago, by email code.
    const member = await keys.person({ projects: ["status"] });
    const attackers = new SoftwareAuthenticator();
    expect((await keys.register(member.browser, attackers)).status).toBe(201);

    // Months later, the member is made an administrator.
    await changePerson(deps, member.person.id, { role: "admin", projects: ["*"] }, { operator: OPERATOR });

    // The attacker signs in with the passkey they planted.
    const signedIn = await keys.signIn(newBrowser(), attackers);
    expect(signedIn.status).toBe(200);
    const idToken = await signInWithCustomToken(signedIn.body.customToken);
    const verified = await request(sessionsApp).post("/auth/verify").send({ idToken, project: "account" });
    const cookie = cookieFrom(verified.headers["set-cookie"]) as string;
    const listed = await request(peopleApp).get("/auth/people").query({ limit: 1 }).set("Cookie", cookie);
    expect(listed.status).toBe(403);
    expect(listed.body.reason).toBe("passkey_required");
  });
});
