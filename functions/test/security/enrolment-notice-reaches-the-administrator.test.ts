/**
 * Proves: the one safeguard of the enrolment's days holds. For 7 days after a promotion, while an
 * administrator holds no passkey, a sign-in by email code may add one, so an attacker who relays
 * such a code may add theirs; docs/security.md answers that "the administrator is mailed of every
 * passkey added". The relayed session cannot first add an address of the attacker's and make it
 * the one mail goes to (the administrator's ways in are a passkey sign-in's), and the notice of the
 * passkey reaches every address the administrator holds, each its own mail, at once whatever the
 * hour has already sent, and whatever NOTIFY_WAYS_IN says.
 */
import request from "supertest";
import * as otpRoutes from "../../src/routes/otp/otp";
import { newBrowserEvent, queueNoticeAlone, recipientOf } from "../../src/core/notices/security-notices";
import { SoftwareAuthenticator } from "../support/authenticator";
import { appFor, testConfig, testDeps, unique, type TestDeps } from "../support/deps";
import { mailAfter, mailTo } from "../support/inbox";
import { signedUp } from "../support/auth";
import { accountWithPerson, personFor, sessionCookieFor } from "../support/people";
import { passkeyWorld } from "../support/passkeys";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(120_000);

const deps = testDeps({ config: testConfig({ passkeyRoles: ["admin"] }) });
const keys = passkeyWorld(deps);
const otp = appFor(otpRoutes, deps);

afterEach(() => allTasksIdle());

/** Each security notice about the person: where it was addressed, what it says, how it stands. */
async function noticesAbout(
  personId: string,
): Promise<Array<{ to: string | null; lines: string[]; urgent: boolean; state: string }>> {
  const entries = await deps.store.collection("outbox").where("about", "==", personId).get();
  return entries.docs
    .filter((d) => d.get("kind") === "security-notice")
    .map((d) => ({
      to: (d.get("to") as string | null) ?? null,
      lines: (d.get("notice.lines") as string[]) ?? [],
      urgent: d.get("notice.urgent") === true,
      state: d.get("state") as string,
    }));
}

const passkeyAdded = (n: { lines: string[] }) => n.lines.some((l) => l.includes("A passkey was added"));

describe("an administrator in their enrolment's days, their email code relayed", () => {
  it("hears of the passkey the attacker added at their own address", async () => {
    // Made an administrator just now: no passkey yet, their 7 days running.
    const { account, person } = await accountWithPerson({ role: "admin", projects: ["*"] }, deps.store);
    const relayed = await sessionCookieFor(deps, account.uid, person.id, ["otp"]);
    const attacker = `${unique("attacker")}@example.test`;

    // The relayed session cannot add the attacker's address, nor make it the one mail goes to:
    // under the rule the administrator's ways in are a passkey sign-in's. No code is sent to it.
    const asking = await request(otp).post("/auth/account/addresses").set("Cookie", relayed).send({ email: attacker });
    expect([asking.status, asking.body.reason]).toEqual([403, "passkey_required"]);
    const added = await request(otp)
      .post("/auth/account/addresses/verify")
      .set("Cookie", relayed)
      .send({ email: attacker, otp: "123456" });
    expect([added.status, added.body.reason]).toEqual([403, "passkey_required"]);
    const primary = await request(otp)
      .post("/auth/account/addresses/primary")
      .set("Cookie", relayed)
      .send({ email: attacker });
    expect([primary.status, primary.body.reason]).toEqual([403, "passkey_required"]);
    await allTasksIdle();
    expect(await mailTo(attacker)).toHaveLength(0);

    // Then adds the attacker's passkey, which an email code may do in these days.
    const planted = await keys.register({ session: relayed, binding: null }, new SoftwareAuthenticator());
    expect(planted.status).toBe(201);

    const told = (await noticesAbout(person.id)).filter(passkeyAdded);
    expect(told.map((n) => n.to)).toEqual([account.email]);
  });

  it.each([
    ["on", true],
    ["off", false],
  ])(
    "is told at every address they hold, each its own mail, with the hour's notices spent and NOTIFY_WAYS_IN %s",
    async (_, waysIn) => {
      const world: TestDeps = testDeps({
        config: testConfig({ passkeyRoles: ["admin"], notices: { newBrowser: true, waysIn, access: true } }),
        clock: deps.clock,
      });
      const worldKeys = passkeyWorld(world);
      const account = await signedUp();
      const second = `${unique("second")}@example.test`;
      const person = await personFor(account, { role: "admin", projects: ["*"], emails: [account.email, second] });
      const first = account.email;
      // Three notices this hour already: a fourth that is not urgent would wait for the summary.
      for (let i = 0; i < 3; i++)
        await queueNoticeAlone(world, recipientOf(person), newBrowserEvent("Firefox on Linux", unique("b"), false));
      await allTasksIdle();
      const seen = { [first]: (await mailTo(first)).length, [second]: (await mailTo(second)).length };

      const relayed = await sessionCookieFor(world, account.uid, person.id, ["otp"]);
      expect((await worldKeys.register({ session: relayed, binding: null }, new SoftwareAuthenticator())).status).toBe(
        201,
      );
      await allTasksIdle();

      const told = (await noticesAbout(person.id)).filter(passkeyAdded);
      expect(told.map((n) => n.to).sort()).toEqual([first, second].sort());
      expect(told.every((n) => n.urgent && n.state === "sent")).toBe(true);
      for (const address of [first, second]) {
        const mail = await mailAfter(address, seen[address] as number, (m) => m.text.includes("A passkey was added"));
        // One recipient a message: neither address learns of the other.
        expect(mail.envelope.to.map((t) => t.address)).toEqual([address]);
        expect(mail.text).not.toContain(address === first ? second : first);
      }
    },
  );
});
