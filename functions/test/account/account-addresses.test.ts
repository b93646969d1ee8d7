/**
 * A person's own addresses (core/account/addresses) over HTTP: POST /auth/account/addresses mails
 * a code to the new address, POST /auth/account/addresses/verify adds it, POST
 * /auth/account/addresses/primary makes it the one mail goes to, DELETE
 * /auth/account/addresses/:email removes one. Mail goes to the stack's dev inbox.
 */
import request from "supertest";
import { MINUTE, SECOND } from "../../src/clock";
import { STEP_UP_MS } from "../../src/core/people/acting";
import { addressIds, parsePepper } from "../../src/core/pepper";
import * as otpRoutes from "../../src/routes/otp/otp";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import * as passkeys from "../../src/store/passkeys";
import * as people from "../../src/store/people";
import { adminCookie } from "../support/admin";
import { appFor, ID_URL, TEST_CODE_PEPPER, testConfig, testDeps, unique, UNLIMITED_SENDS } from "../support/deps";
import { db, otherThan, personAddress, RACE_ROUND_MS, recordingRandom, storedLimits } from "../support/email-codes";
import { codeFor, settledCount, waitForMail, waitForSubject } from "../support/inbox";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import type { TestDeps } from "../support/deps";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";
const CONFIRM = "Confirm your new email address";
const fresh = () => `${unique("addr")}@example.test`;

/** An approved person with a grant, a group and a passkey, signed in on the identity host just now. */
async function person(deps: TestDeps, app = appFor(otpRoutes, deps)) {
  const { account, person: p } = await accountWithPerson({ projects: ["startpage"], groups: ["crew"] });
  await db.runTransaction(async (tx) =>
    passkeys.create(db, tx, {
      id: unique("pk"),
      personId: p.id,
      uid: account.uid,
      credentialId: unique("cred"),
      publicKey: "pk",
      counter: 0,
      transports: [],
      aaguid: "",
      backupEligible: false,
      backedUp: false,
      name: "Laptop",
      address: null,
      createdAt: deps.clock.now(),
      lastUsedAt: null,
      suspectAt: null,
    }),
  );
  let cookie = await sessionCookieFor(deps, account.uid, p.id);
  const call = (method: "get" | "post" | "delete", path: string, body?: object) => {
    const req = request(app)[method](path).set("Origin", ID_URL).set("Cookie", cookie).set("User-Agent", FIREFOX);
    return body === undefined ? req : req.send(body);
  };
  return {
    account,
    person: p,
    /** Signs in again now: a fresh sign-in for the step-up window. */
    signInAgain: async () => void (cookie = await sessionCookieFor(deps, account.uid, p.id)),
    add: (email: string) => call("post", "/auth/account/addresses", { email }),
    confirm: (email: string, otp: string) => call("post", "/auth/account/addresses/verify", { email, otp }),
    primary: (email: string) => call("post", "/auth/account/addresses/primary", { email }),
    remove: (email: string) => call("delete", `/auth/account/addresses/${encodeURIComponent(email)}`),
    list: () => call("get", "/auth/account/addresses"),
  };
}

/** Where an address code is kept for `personId` (core/email-codes `codeIds`). */
const addressCodeDoc = async (personId: string, address: string) => {
  const id = addressIds(parsePepper(TEST_CODE_PEPPER), `address:${personId}\u0000${address}`)[0] as string;
  return (await db.collection("emailCodes").doc(id).get()).data() ?? null;
};

const holderOf = async (address: string) =>
  ((
    await db
      .collection("personKeys")
      .doc(`email:${encodeURIComponent(address)}`)
      .get()
  ).get("personId") as string | undefined) ?? null;

describe("a person changes their address", () => {
  it("mails the code to the new address only; once entered, the address is theirs, their identity unchanged", async () => {
    const deps = testDeps();
    const me = await person(deps);
    const old = me.account.email;
    const added = fresh();
    const asked = await me.add(added);
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ ok: true });
    const [mail] = await waitForMail(added);
    expect(mail!.envelope.to.map((t) => t.address)).toEqual([added]);
    expect(mail!.subject).toBe(CONFIRM);
    expect(await settledCount(old)).toBe(0);

    const confirmed = await me.confirm(added, await codeFor(added));
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ emails: [old, added] });
    expect(await holderOf(added)).toBe(me.person.id);
    // The old address, where mail goes, hears that a way in was added.
    const told = await waitForSubject(old, "A way into your account changed");
    expect(told.text).toContain(`Address added: ${added}.`);
    expect(told.text).toContain("Firefox on Linux");

    expect((await me.primary(added)).body).toEqual({ emails: [added, old] });
    // This session signed in with the old address's password account, which goes with the address.
    const removed = await me.remove(old);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ emails: [added], signedOut: true });
    // The contract's answer for an account no person holds: refused, whatever the cookie says.
    expect((await me.list()).status).toBe(403);
    expect(await holderOf(old)).toBeNull();
    // The old address hears it was removed, and nothing of the account; the new one hears of it too.
    const gone = await waitForSubject(old, "This address was removed from an account");
    expect(gone.text).not.toContain(added);
    const toldNew = (await waitForSubject(added, "A way into your account changed")).text;
    expect(toldNew).toContain(`Address removed: ${old}.`);
    expect(toldNew).toContain(`no longer sign in as you: email and password (${old})`);

    // The person is who they were, less the account of the address they let go.
    const after = (await people.findById(db, me.person.id))!;
    expect(after).toMatchObject({
      id: me.person.id,
      uids: [],
      emails: [added],
      projects: ["startpage"],
      groups: ["crew"],
      status: "approved",
      role: "user",
    });
    expect((await passkeys.listByPerson(db, me.person.id)).map((p) => p.name)).toEqual(["Laptop"]);
    // The apps heard of each change.
    const events = await db.collection("outbox").where("about", "==", me.person.id).where("kind", "==", "event").get();
    expect(events.size).toBe(3);
  });

  it("shows the change in the person's history to an administrator, made by the person at their account", async () => {
    const deps = testDeps();
    const me = await person(deps);
    const added = fresh();
    await me.add(added);
    expect((await me.confirm(added, await codeFor(added))).status).toBe(200);
    const admin = await adminCookie(appFor(sessionRoutes, deps));
    const peopleApp = appFor(peopleRoutes, deps);
    const shown = await request(peopleApp).get(`/auth/people/${me.person.id}`).set("Cookie", admin);
    expect(shown.body.emails).toEqual([me.account.email, added]);
    const history = await request(peopleApp).get(`/auth/people/${me.person.id}/history`).set("Cookie", admin);
    expect(history.body.entries[0]).toMatchObject({
      event: "changed",
      via: "account",
      by: { kind: "person" },
      changes: { emails: { from: [me.account.email], to: [me.account.email, added] } },
    });
  });

  it("answers an address another person holds as a free one, mails nothing, and its holder keeps it", async () => {
    const deps = testDeps();
    const me = await person(deps);
    const held = await personAddress();
    const holder = await holderOf(held);
    const free = fresh();
    const toFree = await me.add(free);
    const toHeld = await me.add(held);
    expect(toHeld.status).toBe(toFree.status);
    expect(toHeld.body).toEqual(toFree.body);
    // Each answer's own date and trace (X-Trace-Id, new for every request) aside, nothing differs.
    const headers = (r: request.Response) =>
      Object.entries(r.headers).filter(([name]) => name !== "date" && name !== "x-trace-id");
    expect(headers(toHeld)).toEqual(headers(toFree));
    // The same records: the address's limits, a code of the person's own, and its outbox entry,
    // which holds nothing to send (as a sign-in code's for an address on no account).
    expect((await storedLimits(held))?.sends).toHaveLength(1);
    const code = (await addressCodeDoc(me.person.id, held))!;
    expect(code).toMatchObject({ state: "ready", attempts: 0 });
    const entries = await db.collection("outbox").where("trace", "==", toHeld.headers["x-trace-id"]).get();
    expect(entries.docs.map((d) => d.get("state"))).toEqual(["none"]);
    expect(await settledCount(held)).toBe(0);
    deps.clock.advance(59 * SECOND);
    expect((await me.add(held)).body.reason).toBe("resend_too_soon");
    // A guess is refused as any wrong code is: nothing says who holds it.
    const guess = await me.confirm(held, "123456");
    expect(guess.status).toBe(400);
    expect(guess.body).toEqual({ error: "Invalid code", reason: "code_invalid" });
    expect(await holderOf(held)).toBe(holder);
    expect((await people.findById(db, me.person.id))!.emails).toEqual([me.account.email]);
  });

  it("takes only its own code: not a sign-in or access code, not another person's; and /auth/otp takes none of its codes", async () => {
    const deps = testDeps();
    const otp = appFor(otpRoutes, deps);
    const me = await person(deps, otp);
    const other = await person(deps, otp);
    // A sign-in code mailed to an address someone holds proves nothing here.
    const held = await personAddress();
    await request(otp).post("/auth/otp/send").send({ email: held });
    expect((await me.confirm(held, await codeFor(held))).body.reason).toBe("code_invalid");
    // Nor does an access request's code for a free address.
    const free = fresh();
    await request(otp).post("/auth/otp/send").send({ email: free, purpose: "request-access" });
    const accessCode = await codeFor(free);
    expect((await me.confirm(free, accessCode)).body.reason).toBe("code_invalid");

    const mine = fresh();
    await me.add(mine);
    const code = await codeFor(mine);
    for (const purpose of ["signin", "request-access"])
      expect((await request(otp).post("/auth/otp/verify").send({ email: mine, otp: code, purpose })).status).toBe(400);
    expect((await request(otp).post("/auth/otp/sign-in").send({ email: mine, otp: code })).status).toBe(400);
    // Bound to the person who asked: another person's session cannot use it.
    expect((await other.confirm(mine, code)).body.reason).toBe("code_invalid");
    expect((await me.confirm(mine, code)).body.emails).toContain(mine);
    expect((await people.findById(db, other.person.id))!.emails).toEqual([other.account.email]);
  });

  it("keeps the rules of every code: five attempts, single use, ten minutes", async () => {
    const random = recordingRandom();
    const deps = testDeps({ random });
    const me = await person(deps);
    const tried = fresh();
    await me.add(tried);
    const wrong = otherThan(random.lastCode());
    for (let i = 0; i < 4; i++) expect((await me.confirm(tried, wrong)).body.reason).toBe("code_invalid");
    expect((await me.confirm(tried, wrong)).body.reason).toBe("code_exhausted");
    expect((await me.confirm(tried, random.lastCode())).body.reason).toBe("code_exhausted");

    const used = fresh();
    await me.add(used);
    const code = random.lastCode();
    expect((await me.confirm(used, code)).status).toBe(200);
    expect((await me.confirm(used, code)).body.reason).toBe("code_invalid");

    const late = fresh();
    await me.add(late);
    const lateCode = random.lastCode();
    deps.clock.advance(10 * MINUTE - 1);
    await me.signInAgain();
    deps.clock.advance(1);
    expect((await me.confirm(late, lateCode)).body.reason).toBe("code_expired");
    expect((await people.findById(db, me.person.id))!.emails).toEqual([me.account.email, used]);
  });

  it("keeps the resend minute, the hourly limit and the send budgets", async () => {
    // A pepper of its own keys a budget ledger of its own: no other test's sends count here.
    const codePepper = `addr-${unique("k")}:${unique("secret")}-of-this-test-alone`;
    const sendBudgets = { ...UNLIMITED_SENDS, perClientPerHour: 7 };
    const deps = testDeps({ config: testConfig({ sendBudgets, codePepper }) });
    const me = await person(deps);
    const address = fresh();
    expect((await me.add(address)).status).toBe(200);
    deps.clock.advance(59 * SECOND);
    expect((await me.add(address)).body.reason).toBe("resend_too_soon");
    for (let sent = 1; sent < 5; sent++) {
      deps.clock.advance(61 * SECOND);
      await me.signInAgain();
      expect((await me.add(address)).status).toBe(200);
    }
    deps.clock.advance(61 * SECOND);
    await me.signInAgain();
    const hourly = await me.add(address);
    expect(hourly.status).toBe(429);
    expect(hourly.body.reason).toBe("hourly_limit");
    // Six sends from this network so far; the seventh is its last this hour.
    expect((await me.add(fresh())).status).toBe(200);
    expect((await me.add(fresh())).status).toBe(200);
    const budget = await me.add(fresh());
    expect(budget.status).toBe(429);
    expect(budget.body.reason).toBe("client_budget");
  });

  it("asks a stale sign-in to sign in again, at each step, and sends and changes nothing", async () => {
    const deps = testDeps();
    const me = await person(deps);
    const added = fresh();
    await me.add(added);
    const code = await codeFor(added);
    deps.clock.advance(STEP_UP_MS + 1);
    for (const res of [
      await me.add(fresh()),
      await me.confirm(added, code),
      await me.primary(me.account.email),
      await me.remove(me.account.email),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.reason).toBe("step_up_required");
    }
    expect(await settledCount(added)).toBe(1);
    await me.signInAgain();
    expect((await me.confirm(added, code)).body.emails).toEqual([me.account.email, added]);
  });

  it("refuses an address already theirs, a malformed one, one not theirs, and their last one", async () => {
    const deps = testDeps();
    const me = await person(deps);
    const own = await me.add(me.account.email);
    expect(own.status).toBe(409);
    expect(own.body.reason).toBe("address_already_yours");
    const malformed = await me.add("not an address");
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: "A valid email is required", reason: "email_invalid" });
    expect((await me.confirm(fresh(), "12345")).body.reason).toBe("code_malformed");
    const stranger = fresh();
    expect((await me.primary(stranger)).status).toBe(404);
    expect((await me.remove(stranger)).status).toBe(404);
    const last = await me.remove(me.account.email);
    expect(last.status).toBe(409);
    expect(last.body.reason).toBe("last_address");
    expect((await people.findById(db, me.person.id))!.emails).toEqual([me.account.email]);
    expect((await request(appFor(otpRoutes, deps)).get("/auth/account/addresses")).status).toBe(401);
  });
});

describe("two people adding the same address at once", () => {
  it("ends with exactly one holder: the other is told it is taken", async () => {
    const random = recordingRandom();
    const deps = testDeps({ random });
    const app = appFor(otpRoutes, deps, { deadlineMs: RACE_ROUND_MS });
    for (let round = 0; round < 3; round++) {
      const a = await person(deps, app);
      const b = await person(deps, app);
      const address = fresh();
      await a.add(address);
      const codeA = random.lastCode();
      deps.clock.advance(60 * SECOND);
      await b.add(address);
      const codeB = random.lastCode();
      await a.signInAgain();
      const answers = await Promise.all([a.confirm(address, codeA), b.confirm(address, codeB)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(answers.find((r) => r.status === 409)!.body.error).toBe(
        "An email or phone number is already on another person",
      );
      const holders = await db.collection("people").where("emails", "array-contains", address).get();
      expect(holders.size).toBe(1);
      expect(await holderOf(address)).toBe(holders.docs[0]!.id);
    }
  });
});
