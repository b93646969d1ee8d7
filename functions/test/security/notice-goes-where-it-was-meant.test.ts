/**
 * Proves: a notice's recipient is fixed in the transaction of the change it tells of, from the
 * person before that change. A way in added and made the first address at once is told at the
 * address mail went to until then, never at the new one, however the drain and the change
 * interleave; making an address the first is itself told there; an administrator's reorder
 * likewise; a notice queued before a change still goes where it was meant; and several removed
 * addresses are each told alone, none named to another.
 */
import request from "supertest";
import { run as mailRound } from "../../src/tasks/mail";
import * as otpRoutes from "../../src/routes/otp/otp";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessions from "../../src/routes/sessions/sessions";
import { adminCookie } from "../support/admin";
import { appFor, ID_URL, testDeps, unique, type TestDeps } from "../support/deps";
import { codeFor, mailTo, settledCount, waitForSubject } from "../support/inbox";
import { accountWithPerson, sessionCookieFor } from "../support/people";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";
const WAYS_IN = "A way into your account changed";
const fresh = (label: string) => `${unique(label)}@example.test`;
/** The mail task's wake does nothing: the test runs the drain itself, after the changes it interleaves. */
const held = () => testDeps({ mailQueue: { wake: async () => {} } });
const drain = (deps: TestDeps) => mailRound(deps, { digest: false });

async function signedIn(deps: TestDeps, fields = {}) {
  const { account, person } = await accountWithPerson({ projects: ["startpage"], ...fields });
  const cookie = await sessionCookieFor(deps, account.uid, person.id);
  const otp = appFor(otpRoutes, deps);
  const call = (method: "post" | "delete", path: string, body?: object) =>
    request(otp)[method](path).set("Origin", ID_URL).set("Cookie", cookie).set("User-Agent", FIREFOX).send(body);
  return { account, person, call };
}

describe("the notice of a new way in", () => {
  it("goes to the old first address when the new one is made first before it is sent (10 of 10)", async () => {
    for (let run = 0; run < 10; run++) {
      const deps = held();
      const { account, call } = await signedIn(deps);
      const added = fresh("taken");
      expect((await call("post", "/auth/account/addresses", { email: added })).status).toBe(200);
      await drain(deps);
      const code = await codeFor(added);
      expect((await call("post", "/auth/account/addresses/verify", { email: added, otp: code })).status).toBe(200);
      // Made the first before the drain sends the notice of it being added.
      expect((await call("post", "/auth/account/addresses/primary", { email: added })).status).toBe(200);
      await drain(deps);
      const told = (await mailTo(account.email)).filter((m) => m.subject === WAYS_IN);
      expect(told.map((m) => m.text).join("\n")).toContain(`Address added: ${added}.`);
      expect(told.map((m) => m.text).join("\n")).toContain(
        `Mail for your account now goes to ${added}, no longer to ${account.email}.`,
      );
      // The new address had its code, and nothing else.
      expect((await mailTo(added)).map((m) => m.subject)).toEqual(["Confirm your new email address"]);
    }
  }, 240_000);

  it("tells an administrator's reorder at the address that was first, and a notice queued before it goes there too", async () => {
    const deps = held();
    const { account, person } = await accountWithPerson({ status: "pending" });
    const admin = await adminCookie(appFor(sessions, deps));
    const patch = (body: object) =>
      request(appFor(peopleRoutes, deps))
        .patch(`/auth/people/${person.id}`)
        .set("Origin", ID_URL)
        .set("Cookie", admin)
        .send(body);
    // The approval's notice is queued, not sent yet.
    expect((await patch({ status: "approved" })).status).toBe(200);
    const added = fresh("moved");
    expect((await patch({ emails: [added, account.email] })).status).toBe(200);
    await drain(deps);
    expect((await waitForSubject(account.email, "Your access is approved")).subject).toBeTruthy();
    const told = await waitForSubject(account.email, WAYS_IN);
    expect(told.text).toContain(`Address added: ${added}.`);
    expect(told.text).toContain(`Mail for your account now goes to ${added}`);
    expect(await settledCount(added)).toBe(0);
  });

  it("mails each removed address alone: no message names another", async () => {
    const deps = held();
    const [one, two] = [fresh("one"), fresh("two")];
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const admin = await adminCookie(appFor(sessions, deps));
    const patch = (emails: string[]) =>
      request(appFor(peopleRoutes, deps))
        .patch(`/auth/people/${person.id}`)
        .set("Origin", ID_URL)
        .set("Cookie", admin)
        .send({ emails });
    expect((await patch([account.email, one, two])).status).toBe(200);
    expect((await patch([account.email])).status).toBe(200);
    await drain(deps);
    for (const [address, other] of [
      [one, two],
      [two, one],
    ] as const) {
      const mail = await waitForSubject(address, "This address was removed from an account");
      expect(mail.envelope.to.map((t) => t.address)).toEqual([address]);
      expect(mail.to.map((t) => t.address)).toEqual([address]);
      expect(mail.text).not.toContain(other);
    }
  });
});
