/**
 * Proves: an address taken off a person signs in as them no more, by any credential a code to it
 * gave. A code sign-in to a second address of a person is a custom token for the person's first
 * account; the browser's pages drop the refresh token the identity provider returns with it, but
 * whoever reads that mailbox (a former employer, the next holder of the address) runs their own
 * client and keeps it. Removing the address ends the session the code opened; the refresh token
 * must not go on minting ID tokens that the gated endpoints take as the person.
 */
import request from "supertest";
import * as otpRoutes from "../../src/routes/otp/otp";
import * as startpage from "../../src/routes/startpage/startpage";
import { changePerson } from "../../src/core/people/change-person";
import { signedUp } from "../support/auth";
import { appFor, testDeps, unique } from "../support/deps";
import { codeFor } from "../support/inbox";
import { personFor } from "../support/people";
import { allTasksIdle } from "../support/task-queue";

const deps = testDeps();
const OPERATOR = { kind: "operator" as const, name: "test operator" };
const authHost = () => `http://${process.env.FIREBASE_AUTH_EMULATOR_HOST}`;

afterEach(() => allTasksIdle());

/** A client of one's own: the custom token for an ID token and the refresh token that comes with it. */
async function exchange(customToken: string): Promise<{ idToken: string; refreshToken: string }> {
  const res = await fetch(`${authHost()}/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=any`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: customToken, returnSecureToken: true }),
  });
  const json = (await res.json()) as { idToken: string; refreshToken: string };
  expect(res.status).toBe(200);
  return json;
}

/** A fresh ID token from the refresh token, as any client of the identity provider gets one. */
async function refreshed(refreshToken: string): Promise<string | null> {
  const res = await fetch(`${authHost()}/securetoken.googleapis.com/v1/token?key=any`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken }).toString(),
  });
  if (!res.ok) return null;
  return ((await res.json()) as { id_token: string }).id_token;
}

const notifications = (idToken: string) =>
  request(appFor(startpage, deps)).get("/startpage/notifications").set("Authorization", `Bearer ${idToken}`);

describe("an address taken off a person", () => {
  it("leaves whoever signed in by a code to it no ID token the gated endpoints take", async () => {
    const home = await signedUp();
    const work = `${unique("work")}@example.test`;
    const person = await personFor(home, { emails: [home.email, work], projects: ["startpage"] });

    // Whoever reads the work mailbox signs in by code to it, with a client of their own.
    const otp = appFor(otpRoutes, deps);
    expect((await request(otp).post("/auth/otp/send").send({ email: work })).status).toBe(200);
    const signedIn = await request(otp)
      .post("/auth/otp/sign-in")
      .send({ email: work, otp: await codeFor(work) });
    expect(signedIn.status).toBe(200);
    const { idToken, refreshToken } = await exchange(signedIn.body.customToken);
    expect((await notifications(idToken)).status).toBe(200);

    // The person leaves that job: the work address is taken off them.
    await changePerson(deps, person.id, { emails: [home.email] }, { operator: OPERATOR });

    // The former holder of the address refreshes, and asks again.
    // A refresh the provider refuses (its refresh tokens revoked) is as good as a 401 here.
    const later = await refreshed(refreshToken);
    expect(later === null ? 401 : (await notifications(later)).status).toBe(401);
    // And the ID token they held already is no way in either.
    expect((await notifications(idToken)).status).toBe(401);
  });
});
