/**
 * Security notices (core/notices/security-notices) over HTTP, mailed through the outbox to the
 * stack's dev inbox: a sign-in from a browser not seen before, a way in changed, access changed
 * by someone else; at most NOTICES_PER_HOUR a person an hour and the rest in one summary; sent
 * once whatever the drains do; the person's choice and the operator's settings.
 */
import type { Timestamp } from "firebase-admin/firestore";
import request from "supertest";
import { HOUR } from "../../src/clock";
import { allTasksIdle } from "../support/task-queue";
import { smtpMailer } from "../../src/adapters/mailer";
import { deliver } from "../../src/core/outbox/drain";
import { LEASE_MS } from "../../src/core/outbox/claims";
import { newBrowserEvent, queueNoticeAlone, recipientOf } from "../../src/core/notices/security-notices";
import { NOTICES_PER_HOUR } from "../../src/core/notices/security-mail";
import { handlers } from "../../src/tasks/mail";
import type { Mailer } from "../../src/core/ports";
import type { Deps } from "../../src/deps";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessions from "../../src/routes/sessions/sessions";
import * as outbox from "../../src/store/outbox";
import * as people from "../../src/store/people";
import { randomPhone, signedUp, type Account } from "../support/auth";
import { appFor, auth, firestore, ID_URL, testConfig, testDeps, unique, type TestDeps } from "../support/deps";
import { cryptoRandom } from "../../src/random";
import { mailTo, settledCount, waitForMail, waitForSubject } from "../support/inbox";
import { passkeyWorld } from "../support/passkeys";
import { accountWithPerson, personFor, sessionCookieFor } from "../support/people";
import { SoftwareAuthenticator } from "../support/authenticator";

const db = firestore();
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
const realMailer = () => smtpMailer(testConfig().smtp!);
/** A queue that wakes nobody: the test drains by hand. */
const quiet = { wake: async () => {} };

/** A browser's identifier as the identity host's page makes it (site/src/shared/browser-id.ts). */
const newBrowser = () => cryptoRandom.token(32);

/**
 * POST /auth/verify: from a browser whose page sends its identifier (a new one unless given), or,
 * with `browser` null, from a client that keeps none (a script, a server).
 */
function signIn(deps: Deps, account: Account, browser: string | null = newBrowser(), userAgent = FIREFOX) {
  const req = request(appFor(sessions, deps)).post("/auth/verify").set("User-Agent", userAgent);
  const body = { idToken: account.idToken, project: "startpage" };
  return req.send(browser === null ? body : { ...body, browser });
}

/** An approved person who has signed in from one browser already (their first, learned without a mail). */
async function knownPerson(deps: TestDeps) {
  const { account, person } = await accountWithPerson({ projects: ["startpage"] });
  const browser = newBrowser();
  const first = await signIn(deps, account, browser);
  expect(first.body.approved).toBe(true);
  await allTasksIdle();
  const known = await people.findById(db, person.id);
  expect(Object.keys(known!.knownBrowsers ?? {})).toHaveLength(1);
  expect(await settledCount(account.email)).toBe(0);
  return { account, person, browser };
}

/** The person has signed in from another browser already: a new one is told of. */
const seenElsewhere = (personId: string, at: Date) =>
  db
    .collection("people")
    .doc(personId)
    .update({ knownBrowsers: { elsewhere: at } });

const notices = (fragment: string) => mailTo(fragment);
/** The summary the person's notices past the limit wait in (store/notice-windows). */
const waitingSummary = async (personId: string): Promise<string | null> =>
  ((await db.collection("noticeWindows").doc(personId).get()).get("summary") as string | null) ?? null;
/** The mail about the person in the outbox: their notices, not the events for the apps (core/people/person-events). */
const entriesAbout = async (personId: string) =>
  (await db.collection("outbox").where("about", "==", personId).get()).docs
    .filter((d) => d.get("kind") !== "event")
    .map((d) => ({ id: d.id, ...d.data() }));

/**
 * The drains have ended, and what is left of the person's notices is sent, as the next drains
 * would: what they gave back after losing a race for the person's notice window (due again at
 * once), a claim no drain holds any more (due when its lease lapses), and one whose writing failed
 * on a loaded emulator (due after its retry's backoff). The summary waits for its hour.
 */
async function noticesSettled(deps: TestDeps, personId: string): Promise<void> {
  for (let round = 0; round < 10; round++) {
    await allTasksIdle();
    const pending = await db.collection("outbox").where("about", "==", personId).where("state", "==", "pending").get();
    const waiting = pending.docs.filter((d) => d.get("notice.kind") !== "summary");
    const at = (d: (typeof pending.docs)[number]) => (d.get("nextAttemptAt") as Timestamp).toMillis();
    const due = waiting.filter((d) => at(d) <= deps.clock.now().getTime());
    if (waiting.length === 0) return;
    if (due.length === 0) deps.clock.set(new Date(Math.min(...waiting.map(at))));
    for (const d of waiting.filter((d) => at(d) <= deps.clock.now().getTime()))
      await deliver(deps, d.id, deps.clock.now(), handlers);
  }
}

describe("a sign-in from a browser not seen before", () => {
  it("sets one cookie, the session, and stores only the digest of the browser's identifier", async () => {
    const deps = testDeps();
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const browser = newBrowser();
    const res = await signIn(deps, account, browser);
    const set = res.headers["set-cookie"] as unknown as string[];
    expect(set).toHaveLength(1);
    expect(set[0]).toMatch(
      /^__session=[^;]+; Max-Age=1209600; Domain=example\.test; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/,
    );
    expect(set[0]).not.toContain("browser.");
    await allTasksIdle();
    const stored = JSON.stringify((await db.collection("people").doc(person.id).get()).data());
    expect(stored).not.toContain(browser);
    expect(Object.keys((await people.findById(db, person.id))!.knownBrowsers ?? {})).toHaveLength(1);
  });

  it("mails the person, naming the browser and linking to the account page; the same browser again mails nothing", async () => {
    const deps = testDeps();
    const { account } = await knownPerson(deps);
    const browser = newBrowser();
    const second = await signIn(deps, account, browser, FIREFOX);
    expect(second.body.approved).toBe(true);
    const [mail] = await waitForMail(account.email);
    expect(mail!.subject).toBe("New sign-in to your account");
    expect(mail!.text).toContain("From: Firefox on Windows");
    expect(mail!.text).toContain(`Review your account: ${ID_URL}/account\n`);
    const links = [...mail!.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(links).toEqual([`${ID_URL}/account`]);
    const again = await signIn(deps, account, browser);
    expect(again.body.approved).toBe(true);
    expect(await settledCount(account.email)).toBe(1);
  });

  it("tells of a client that keeps no identifier once, not at each sign-in, and again from another network", async () => {
    const deps = testDeps();
    const { account } = await knownPerson(deps);
    const script = "python-requests/2.32";
    const app = appFor(sessions, deps);
    const from = (forwardedFor: string | null) => {
      const req = request(app).post("/auth/verify").set("User-Agent", script);
      if (forwardedFor !== null) req.set("X-Forwarded-For", forwardedFor);
      return req.send({ idToken: account.idToken, project: "startpage" });
    };
    for (let i = 0; i < 10; i++) {
      const res = await from(null);
      expect(res.body.approved).toBe(true);
      await allTasksIdle();
    }
    expect((await notices(account.email)).map((m) => m.subject)).toEqual(["New sign-in to your account"]);
    expect((await notices(account.email))[0]!.text).toContain("From: a browser or program it could not name");
    // Elsewhere: told again (the test's requests come through one proxy, CLIENT_ADDRESS_HOPS 1).
    const elsewhere = testDeps({ config: testConfig({ clientAddressHops: 1 }) });
    const res = await request(appFor(sessions, elsewhere))
      .post("/auth/verify")
      .set("User-Agent", script)
      .set("X-Forwarded-For", "198.51.100.7")
      .send({ idToken: account.idToken, project: "startpage" });
    expect(res.body.approved).toBe(true);
    expect(await settledCount(account.email)).toBe(2);
  });

  it("knows a browser by the cookie it kept before, and learns its page's identifier without a mail", async () => {
    const deps = testDeps();
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const legacy = newBrowser();
    // A browser that signed in before verify stopped setting its identifier cookie.
    const first = await request(appFor(sessions, deps))
      .post("/auth/verify")
      .set("Cookie", `__session=browser.${legacy}`)
      .send({ idToken: account.idToken, project: "startpage" });
    expect(first.body.approved).toBe(true);
    await noticesSettled(deps, person.id);
    expect(Object.keys((await people.findById(db, person.id))!.knownBrowsers ?? {})).toHaveLength(1);
    const page = newBrowser();
    const res = await request(appFor(sessions, deps))
      .post("/auth/verify")
      .set("Cookie", `__session=browser.${legacy}`)
      .send({ idToken: account.idToken, project: "startpage", browser: page });
    expect(res.body.approved).toBe(true);
    await noticesSettled(deps, person.id);
    expect(await settledCount(account.email)).toBe(0);
    // From then on the page's identifier alone is known.
    expect((await signIn(deps, account, page)).body.approved).toBe(true);
    await noticesSettled(deps, person.id);
    expect(await settledCount(account.email)).toBe(0);
  });

  // Twenty notices race for one person's window: contention on Google's emulator takes seconds, as
  // in production, and more on a machine busy with other files' races (the budget of a race test).
  it(`mails at most ${NOTICES_PER_HOUR} for a burst of 20 sign-ins from new browsers, and folds the rest into one summary an hour after the first`, async () => {
    const deps = testDeps();
    const { account, person } = await knownPerson(deps);
    const answers = await Promise.all(Array.from({ length: 20 }, () => signIn(deps, account)));
    expect(answers.map((r) => r.body.approved)).toEqual(Array(20).fill(true));
    await noticesSettled(deps, person.id);
    expect(await settledCount(account.email)).toBe(NOTICES_PER_HOUR);
    const summary = (await outbox.findOf(db, "security-notice", (await waitingSummary(person.id))!))!;
    expect(summary.state).toBe("pending");
    // Due when the earliest of the three places is an hour old.
    const places = (await db.collection("noticeWindows").doc(person.id).get()).get("sent") as Record<string, Timestamp>;
    expect(Object.keys(places)).toHaveLength(NOTICES_PER_HOUR);
    const earliest = Math.min(...Object.values(places).map((at) => at.toMillis()));
    expect(summary.nextAttemptAt).toEqual(new Date(earliest + HOUR));
    // Every sign-in is told of: each by a mail of its own, or counted in the summary.
    expect(summary.notice!.folded.newBrowser).toBe(20 - NOTICES_PER_HOUR);
    const entries = await entriesAbout(person.id);
    expect(entries.filter((e) => (e as { state?: string }).state === "folded")).toHaveLength(20 - NOTICES_PER_HOUR);
    deps.clock.set(summary.nextAttemptAt);
    expect(await deliver(deps, summary.id, deps.clock.now(), handlers)).toBe("sent");
    const mails = await notices(account.email);
    expect(mails).toHaveLength(NOTICES_PER_HOUR + 1);
    const last = mails.find((m) => m.subject === "More changes to your account")!;
    expect(last.text).toContain(`${20 - NOTICES_PER_HOUR} sign-ins from new browsers`);
  }, 90_000);

  it(`counts the limit over any 60 minutes, not a clock hour: notices either side of the hour mail ${NOTICES_PER_HOUR}`, async () => {
    const deps = testDeps();
    const { account, person } = await knownPerson(deps);
    const tell = async (at: Date) => {
      deps.clock.set(at);
      for (let i = 0; i < NOTICES_PER_HOUR; i++)
        await queueNoticeAlone(
          deps,
          recipientOf(person),
          newBrowserEvent("Firefox on Windows", `browser-${at.getTime()}-${i}`, false),
        );
      await noticesSettled(deps, person.id);
    };
    const hour = Math.floor(deps.clock.now().getTime() / HOUR) + 1;
    await tell(new Date(hour * HOUR - 60_000));
    await tell(new Date(hour * HOUR + 60_000));
    expect(await settledCount(account.email)).toBe(NOTICES_PER_HOUR);
    const summary = (await outbox.findOf(db, "security-notice", (await waitingSummary(person.id))!))!;
    expect(summary.notice!.folded.newBrowser).toBe(NOTICES_PER_HOUR);
    // Due when the first of the places is an hour old, not at the top of the next hour.
    expect(summary.nextAttemptAt).toEqual(new Date((hour + 1) * HOUR - 60_000));
    // The summary takes a place of its own; the first three have lapsed, so the next is mailed alone.
    deps.clock.set(summary.nextAttemptAt);
    expect(await deliver(deps, summary.id, deps.clock.now(), handlers)).toBe("sent");
    await queueNoticeAlone(deps, recipientOf(person), newBrowserEvent("Firefox on Windows", "one-more", false));
    await noticesSettled(deps, person.id);
    expect(await settledCount(account.email)).toBe(NOTICES_PER_HOUR + 2);
    expect(await waitingSummary(person.id)).toBeNull();
  });

  it("sends a notice once across a crash between sending and marking sent: one message, by its Message-ID", async () => {
    const crashed = testDeps({
      mailQueue: quiet,
      mailer: {
        check: async () => {},
        // The server takes the mail; the drainer dies before it can record so (it never returns).
        send: async (m, options) => {
          await realMailer().send(m, options);
          await new Promise(() => {});
        },
      } satisfies Mailer,
    });
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    await seenElsewhere(person.id, crashed.clock.now());
    expect((await signIn(crashed, account)).body.approved).toBe(true);
    const [entry] = await entriesAbout(person.id);
    void deliver(crashed, entry!.id, crashed.clock.now(), handlers);
    await waitForMail(account.email);
    const survivor = testDeps({ mailQueue: quiet });
    survivor.clock.set(new Date(crashed.clock.now().getTime() + LEASE_MS));
    const retries = await Promise.all(
      Array.from({ length: 5 }, () => deliver(survivor, entry!.id, survivor.clock.now(), handlers)),
    );
    expect(retries.filter((r) => r === "sent")).toHaveLength(1);
    expect(await deliver(survivor, entry!.id, survivor.clock.now(), handlers)).toBe("skipped");
    await allTasksIdle();
    const mails = await mailTo(account.email);
    expect(mails).toHaveLength(2);
    expect(new Set(mails.map((m) => m.headers["message-id"]))).toEqual(new Set([`<${entry!.id}@example.test>`]));
    expect((await outbox.findById(db, entry!.id))!.state).toBe("sent");
  });
});

describe("GET and PATCH /auth/session/notices", () => {
  it("turns off the notices of new browsers, and only them: a passkey added is still mailed", async () => {
    const deps = testDeps();
    const { account, person } = await knownPerson(deps);
    const app = appFor(sessions, deps);
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    expect((await request(app).get("/auth/session/notices").set("Cookie", cookie)).body).toEqual({ newBrowser: true });
    const off = await request(app)
      .patch("/auth/session/notices")
      .set("Origin", ID_URL)
      .set("Cookie", cookie)
      .send({ newBrowser: false });
    expect(off.status).toBe(200);
    expect((await request(app).get("/auth/session/notices").set("Cookie", cookie)).body).toEqual({ newBrowser: false });
    // Turning them off is itself told, once: a stolen session that does it is heard of.
    const [told] = await waitForMail(account.email);
    expect(told!.subject).toBe("Your access changed");
    expect(told!.text).toContain("Notices of sign-ins from new browsers were turned off");
    const elsewhere = await signIn(deps, account);
    expect(elsewhere.body.approved).toBe(true);
    expect(await settledCount(account.email)).toBe(1);
    // Still remembered, so turning them on again does not tell of this browser.
    expect(Object.keys((await people.findById(db, person.id))!.knownBrowsers ?? {})).toHaveLength(2);

    const w = passkeyWorld(deps);
    const browser = { session: await sessionCookieFor(deps, account.uid, person.id, ["otp"]), binding: null };
    expect((await w.register(browser, new SoftwareAuthenticator(), {}, "Work laptop")).status).toBe(201);
    const mail = (await waitForMail(account.email, 2))[1];
    expect(mail!.subject).toBe("A way into your account changed");
    expect(mail!.text).toContain("A passkey was added: “Work laptop”.");
  });

  it("turns them off only after a recent sign-in, on again at any time, and tells only of turning off", async () => {
    const deps = testDeps();
    const { account, person } = await knownPerson(deps);
    const app = appFor(sessions, deps);
    const choose = (cookie: string, newBrowser: boolean) =>
      request(app).patch("/auth/session/notices").set("Origin", ID_URL).set("Cookie", cookie).send({ newBrowser });
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    deps.clock.advance(5 * 60_000 + 1000);
    const stale = await choose(cookie, false);
    expect(stale.status).toBe(403);
    expect(stale.body).toMatchObject({ reason: "step_up_required" });
    expect((await people.findById(db, person.id))!.newBrowserNotices).toBeUndefined();
    expect(await settledCount(account.email)).toBe(0);
    const fresh = await sessionCookieFor(deps, account.uid, person.id);
    expect((await choose(fresh, false)).status).toBe(200);
    // Off again changes nothing and tells nothing more; on needs no recent sign-in, and is not told.
    expect((await choose(fresh, false)).status).toBe(200);
    expect((await choose(cookie, true)).status).toBe(200);
    expect((await people.findById(db, person.id))!.newBrowserNotices).toBeUndefined();
    expect(await settledCount(account.email)).toBe(1);
  });

  it("refuses a foreign page, a browser with no session, and a body it does not take", async () => {
    const deps = testDeps();
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const app = appFor(sessions, deps);
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const foreign = await request(app)
      .patch("/auth/session/notices")
      .set("Origin", "https://evil.test")
      .set("Cookie", cookie)
      .send({ newBrowser: false });
    expect(foreign.status).toBe(403);
    const anonymous = await request(app)
      .patch("/auth/session/notices")
      .set("Origin", ID_URL)
      .send({ newBrowser: false });
    expect(anonymous.status).toBe(401);
    const wrong = await request(app)
      .patch("/auth/session/notices")
      .set("Origin", ID_URL)
      .set("Cookie", cookie)
      .send({ waysIn: false });
    expect(wrong.status).toBe(400);
    expect((await people.findById(db, person.id))!.newBrowserNotices).toBeUndefined();
  });
});

describe("a provider's account linked by a sign-in", () => {
  it("tells the person that an account at the provider now signs in as them, from which browser", async () => {
    const deps = testDeps();
    const { account, person } = await knownPerson(deps);
    // A second account for the same address at the provider (another way to sign in with it).
    await auth().deleteUser(account.uid);
    const other = await signedUp({ email: account.email });
    const res = await signIn(deps, other);
    expect(res.body).toMatchObject({ approved: true, personId: person.id, uid: other.uid });
    // Its own mail, whichever comes first: the new browser is told of too.
    const linked = await waitForSubject(account.email, "A way into your account changed");
    expect(linked.text).toContain(
      `A sign-in by email and password (${account.email}) was linked to your account, and now signs in as you.`,
    );
    expect(linked.text).toContain("Firefox on Windows");
    // Its next sign-in is of an account already linked: nothing more about ways in.
    await signIn(deps, other);
    await allTasksIdle();
    expect((await mailTo(account.email)).filter((m) => m.subject === "A way into your account changed")).toHaveLength(
      1,
    );
  });
});

describe("ways in and access changed by an administrator", () => {
  async function admin(deps: TestDeps) {
    const account = await signedUp();
    const person = await personFor(account, { role: "admin", projects: ["*"] });
    return sessionCookieFor(deps, account.uid, person.id);
  }

  it("tells a removed address that it was removed, and nothing of what the account holds now", async () => {
    const deps = testDeps();
    const cookie = await admin(deps);
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    // Not a longer form of the person's address: the inbox is read by what an address contains.
    const old = `${unique("old")}@example.test`;
    await db.runTransaction(async (tx) => {
      const current = (await people.findById(db, person.id, tx))!;
      people.replace(db, tx, current, { ...current, emails: [...current.emails, old] });
    });
    const phone = randomPhone();
    const res = await request(appFor(peopleRoutes, deps))
      .patch(`/auth/people/${person.id}`)
      .set("Origin", ID_URL)
      .set("Cookie", cookie)
      .set("User-Agent", FIREFOX)
      .send({ emails: [account.email], phones: [phone], projects: ["startpage", "calendar"] });
    expect(res.status).toBe(200);
    // The person hears all of it, at their address alone.
    const [own] = await waitForMail(account.email);
    expect(own!.envelope.to.map((t) => t.address)).toEqual([account.email]);
    expect(own!.subject).toBe("A way into your account changed");
    expect(own!.text).toContain(`Address removed: ${old}.`);
    expect(own!.text).toContain(`Phone number added: ${phone}.`);
    expect(own!.text).toContain("Access given to project: calendar.");
    expect(own!.text).toContain("From: an administrator, from Firefox on Windows");
    // The removed address hears that it was removed, and when: nothing of the address, number or
    // projects that remain, and no link into the account.
    const [removed] = await waitForMail(old);
    expect(removed!.envelope.to.map((t) => t.address)).toEqual([old]);
    expect(removed!.subject).toBe("This address was removed from an account");
    expect(removed!.text).toMatch(/When: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    for (const told of [removed!.text, removed!.html])
      for (const secret of [account.email, phone, "calendar", "startpage", "Firefox", "/account"])
        expect(told).not.toContain(secret);
    expect(await settledCount(account.email)).toBe(1);
    expect(await settledCount(old)).toBe(1);
  });

  it("tells a removed address apart even when the person's notices are past the limit", async () => {
    const deps = testDeps();
    const cookie = await admin(deps);
    const { account, person } = await knownPerson(deps);
    // Not a longer form of the person's address: the inbox is read by what an address contains.
    const old = `${unique("old")}@example.test`;
    await db.runTransaction(async (tx) => {
      const current = (await people.findById(db, person.id, tx))!;
      people.replace(db, tx, current, { ...current, emails: [...current.emails, old] });
    });
    for (let i = 0; i < NOTICES_PER_HOUR; i++) await signIn(deps, account);
    await noticesSettled(deps, person.id);
    const res = await request(appFor(peopleRoutes, deps))
      .patch(`/auth/people/${person.id}`)
      .set("Origin", ID_URL)
      .set("Cookie", cookie)
      .send({ emails: [account.email] });
    expect(res.status).toBe(200);
    await noticesSettled(deps, person.id);
    // The removed address is not the person's: its notice takes none of their places.
    const [removed] = await waitForMail(old);
    expect(removed!.subject).toBe("This address was removed from an account");
    const summary = (await outbox.findOf(db, "security-notice", (await waitingSummary(person.id))!))!;
    expect(summary.notice!.folded).toEqual({ waysIn: 1 });
    deps.clock.set(summary.nextAttemptAt);
    expect(await deliver(deps, summary.id, deps.clock.now(), handlers)).toBe("sent");
    const mails = await mailTo(account.email);
    const last = mails.find((m) => m.subject === "More changes to your account")!;
    expect(last.envelope.to.map((t) => t.address)).toEqual([account.email]);
    expect(last.text).toContain("1 change to your ways in");
    expect(await settledCount(old)).toBe(1);
  });

  it("mails the person when an administrator ends their sessions", async () => {
    const deps = testDeps();
    const cookie = await admin(deps);
    const { account, person } = await knownPerson(deps);
    const res = await request(appFor(peopleRoutes, deps))
      .delete(`/auth/people/${person.id}/sessions`)
      .set("Origin", ID_URL)
      .set("Cookie", cookie);
    expect(res.body.ended).toBe(1);
    const [mail] = await waitForMail(account.email);
    expect(mail!.subject).toBe("Your access changed");
    expect(mail!.text).toContain("One of your sessions was ended");
  });
});

describe("the operator's NOTIFY_* settings", () => {
  it("each turned off stops its kind, and writes nothing for it", async () => {
    const off = (notices: Partial<TestDeps["config"]["notices"]>) =>
      testDeps({ config: testConfig({ notices: { newBrowser: true, waysIn: true, access: true, ...notices } }) });
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    await seenElsewhere(person.id, testDeps().clock.now());

    expect((await signIn(off({ newBrowser: false }), account)).body.approved).toBe(true);
    await allTasksIdle();
    expect(await entriesAbout(person.id)).toEqual([]);

    const noWays = off({ waysIn: false });
    const adminCookie = await (async () => {
      const a = await signedUp();
      const p = await personFor(a, { role: "admin", projects: ["*"] });
      return sessionCookieFor(noWays, a.uid, p.id);
    })();
    const patch = (deps: TestDeps, body: object) =>
      request(appFor(peopleRoutes, deps))
        .patch(`/auth/people/${person.id}`)
        .set("Origin", ID_URL)
        .set("Cookie", adminCookie)
        .send(body);
    expect((await patch(noWays, { phones: [randomPhone()] })).status).toBe(200);
    await allTasksIdle();
    expect(await entriesAbout(person.id)).toEqual([]);

    const noAccess = off({ access: false });
    expect((await patch(noAccess, { projects: ["startpage", "calendar"] })).status).toBe(200);
    const ended = await request(appFor(peopleRoutes, noAccess))
      .delete(`/auth/people/${person.id}/sessions`)
      .set("Origin", ID_URL)
      .set("Cookie", adminCookie);
    expect(ended.status).toBe(200);
    await allTasksIdle();
    expect(await entriesAbout(person.id)).toEqual([]);
    expect(await settledCount(account.email)).toBe(0);

    // And on, the same change is told.
    expect((await patch(testDeps(), { projects: ["startpage"] })).status).toBe(200);
    const [mail] = await waitForMail(account.email);
    expect(mail!.subject).toBe("Your access changed");
    expect(mail!.text).toContain("Access taken away from project: calendar.");
  });
});
