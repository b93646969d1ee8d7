/**
 * Proves: an address taken off a person takes with it the passkey a sign-in through it added.
 * Whoever reads a second address of a person (a work mailbox, later the employer's) signs in by a
 * code to it, and in the five minutes after, adds a passkey of their own: a member may, after any
 * sign-in. The person removes the address; docs/security.md says "a removed way in signs in no
 * more": its accounts and the sessions its codes opened end. The passkey it bought must not go on
 * signing in as the person.
 */
import request from "supertest";
import * as otpRoutes from "../../src/routes/otp";
import * as sessions from "../../src/routes/sessions";
import { changePerson } from "../../src/core/people/people-admin";
import { SoftwareAuthenticator } from "../support/authenticator";
import { signedUp, signInWithCustomToken } from "../support/auth";
import { appFor, testDeps, unique } from "../support/deps";
import { codeFor } from "../support/inbox";
import { cookieFrom, personFor } from "../support/people";
import { newBrowser, passkeyWorld } from "../support/passkeys";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(120_000);

const deps = testDeps();
const keys = passkeyWorld(deps);
const otp = appFor(otpRoutes, deps);
const sessionsApp = appFor(sessions, deps);
const OPERATOR = { kind: "operator" as const, name: "test operator" };

afterEach(() => allTasksIdle());

const verify = (idToken: string) => request(sessionsApp).post("/auth/verify").send({ idToken, project: "startpage" });

describe("an address taken off a person", () => {
  it("takes the passkey added from a sign-in by a code to it", async () => {
    const home = await signedUp();
    const work = `${unique("work")}@example.test`;
    const person = await personFor(home, { emails: [home.email, work], projects: ["startpage"] });

    // Whoever reads the work mailbox signs in by code to it, and adds a passkey of their own.
    expect((await request(otp).post("/auth/otp/send").send({ email: work })).status).toBe(200);
    const signedIn = await request(otp)
      .post("/auth/otp/sign-in")
      .send({ email: work, otp: await codeFor(work) });
    expect(signedIn.status).toBe(200);
    const opened = await verify(await signInWithCustomToken(signedIn.body.customToken));
    expect(opened.body).toMatchObject({ approved: true, personId: person.id });
    const byCode = cookieFrom(opened.headers["set-cookie"]) as string;
    const theirs = new SoftwareAuthenticator();
    expect((await keys.register({ session: byCode, binding: null }, theirs)).status).toBe(201);

    // The person leaves that job: the work address is taken off them.
    await changePerson(deps, person.id, { emails: [home.email] }, { operator: OPERATOR });

    // The former holder of the mailbox signs in with the passkey it let them add.
    const again = await keys.signIn(newBrowser(), theirs);
    const answer =
      again.status === 200 ? (await verify(await signInWithCustomToken(again.body.customToken))).body : again.body;
    expect(answer).not.toMatchObject({ approved: true, personId: person.id });
  });
});
