/**
 * Proves: the one safeguard of the enrolment's days holds. For 7 days after a promotion, while an
 * administrator holds no passkey, a sign-in by email code may add one, so an attacker who relays
 * such a code may add theirs; docs/security.md answers that "the administrator is mailed of every
 * passkey added". The relayed session may also add an address of the attacker's (with the code
 * mailed to it) and make it the one mail goes to. The notice of the passkey must still reach the
 * administrator's own address, not the attacker's.
 */
import request from "supertest";
import * as otpRoutes from "../../src/routes/otp";
import { SoftwareAuthenticator } from "../support/authenticator";
import { appFor, testConfig, testDeps, unique } from "../support/deps";
import { codeFor } from "../support/inbox";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { passkeyWorld } from "../support/passkeys";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(120_000);

const deps = testDeps({ config: testConfig({ passkeyRoles: ["admin"] }) });
const keys = passkeyWorld(deps);
const otp = appFor(otpRoutes, deps);

afterEach(() => allTasksIdle());

/** Where each security notice about the person was addressed, with what it says. */
async function noticesAbout(personId: string): Promise<Array<{ to: string | null; lines: string[] }>> {
  const entries = await deps.store.collection("outbox").where("about", "==", personId).get();
  return entries.docs
    .filter((d) => d.get("kind") === "security-notice")
    .map((d) => ({ to: (d.get("to") as string | null) ?? null, lines: (d.get("notice.lines") as string[]) ?? [] }));
}

describe("an administrator in their enrolment's days, their email code relayed", () => {
  it("hears of the passkey the attacker added at their own address", async () => {
    // Made an administrator just now: no passkey yet, their 7 days running.
    const { account, person } = await accountWithPerson({ role: "admin", projects: ["*"] }, deps.store);
    const relayed = await sessionCookieFor(deps, account.uid, person.id, ["otp"]);
    const attacker = `${unique("attacker")}@example.test`;

    // The relayed session adds the attacker's address, and makes it the one mail goes to.
    const asking = await request(otp).post("/auth/account/addresses").set("Cookie", relayed).send({ email: attacker });
    expect(asking.status).toBe(200);
    const added = await request(otp)
      .post("/auth/account/addresses/verify")
      .set("Cookie", relayed)
      .send({ email: attacker, otp: await codeFor(attacker) });
    expect(added.status).toBe(200);
    const primary = await request(otp)
      .post("/auth/account/addresses/primary")
      .set("Cookie", relayed)
      .send({ email: attacker });
    expect(primary.status).toBe(200);

    // Then adds the attacker's passkey, which an email code may do in these days.
    const planted = await keys.register({ session: relayed, binding: null }, new SoftwareAuthenticator());
    expect(planted.status).toBe(201);

    const told = (await noticesAbout(person.id)).filter((n) => n.lines.some((l) => l.includes("A passkey was added")));
    expect(told.map((n) => n.to)).toEqual([account.email]);
  });
});
