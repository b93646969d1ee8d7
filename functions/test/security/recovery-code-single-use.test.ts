/**
 * Recovery codes, from outside: made only right after a sign-in with a passkey, ten, kept as keyed
 * hashes; each signs in once (concurrent uses of one code: one wins, on the official emulator's
 * transactions), its person is told of each use and of a used code presented again; the session
 * it opens has a member's powers and may add a passkey, which then signs in and acts; every guess
 * counts towards the address's recovery-code ceiling, which leaves email sign-in alone; a new set
 * ends the old.
 */
import request from "supertest";
import { STEP_UP_MS } from "../../src/core/model/step-up";
import { FAILURE_CEILING } from "../../src/core/email-codes/rules";
import * as passkeysGroup from "../../src/routes/passkeys/passkeys";
import * as peopleGroup from "../../src/routes/people/people";
import * as sessions from "../../src/routes/sessions/sessions";
import * as limits from "../../src/store/email-code-limits";
import { addressIds, parsePepper, recoveryRunIds } from "../../src/core/pepper";
import { SoftwareAuthenticator } from "../support/authenticator";
import { signInWithCustomToken } from "../support/auth";
import { appFor, TEST_CODE_PEPPER, testConfig, testDeps, unique } from "../support/deps";
import { mailAfter, mailTo } from "../support/inbox";
import { accountWithPerson, cookieFrom, sessionCookieFor } from "../support/people";
import { newBrowser, passkeyWorld } from "../support/passkeys";
import { expectRaced } from "../support/race";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(120_000);

const deps = testDeps({ config: testConfig({ passkeyRoles: ["admin"] }) });
const keys = passkeyWorld(deps);
const sessionsApp = appFor(sessions, deps);
const peopleApp = appFor(peopleGroup, deps);
const RACE_DEADLINE_MS = 60_000;
const racingApp = appFor(passkeysGroup, deps, { deadlineMs: RACE_DEADLINE_MS });

afterEach(() => allTasksIdle());

/** An administrator with a passkey, signed in with it just now: their session's cookie. */
async function adminWithPasskey() {
  const admin = await keys.withPasskey({ role: "admin", projects: ["*"] });
  const passkeyCookie = await sessionCookieFor(deps, admin.account.uid, admin.person.id, ["hwk", "user"]);
  return { ...admin, passkeyCookie };
}

const make = (cookie: string) => request(keys.app).post("/auth/passkeys/recovery-codes").set("Cookie", cookie).send({});
const useCode = (email: string, code: string, app = keys.app) =>
  request(app).post("/auth/passkeys/recovery/sign-in").send({ email, code });

/** The session a recovery code's custom token opens, as a browser would: its cookie. */
async function sessionFrom(customToken: string): Promise<string> {
  const idToken = await signInWithCustomToken(customToken);
  const verified = await request(sessionsApp).post("/auth/verify").send({ idToken, project: "account" });
  expect(verified.body).toMatchObject({ approved: true });
  return cookieFrom(verified.headers["set-cookie"]) as string;
}

/** What the security notices queued for a person say, sent or folded. */
async function noticesTo(personId: string): Promise<string[]> {
  const entries = await deps.store.collection("outbox").where("about", "==", personId).get();
  return entries.docs.flatMap((d) => (d.get("notice.lines") as string[] | undefined) ?? []);
}

const methodsOf = (cookie: string) =>
  JSON.parse(Buffer.from(cookie.split(".")[1] as string, "base64url").toString("utf8")).amr as string[];

describe("making recovery codes", () => {
  it("takes a sign-in with a passkey of the last 5 minutes: not an email code's, not an old one", async () => {
    const admin = await adminWithPasskey();
    const byCode = await sessionCookieFor(deps, admin.account.uid, admin.person.id, ["otp"]);
    expect((await make(byCode)).body.reason).toBe("passkey_required");
    const old = await deps.tokens.issue(
      {
        uid: admin.account.uid,
        personId: admin.person.id,
        sessionId: unique("s"),
        authTime: new Date(deps.clock.now().getTime() - STEP_UP_MS - 1000),
        amr: ["hwk", "user"],
      },
      deps.clock.now(),
      3600_000,
    );
    expect((await make(`__session=${old.token}`)).body.reason).toBe("passkey_required");
    const fresh = await sessionCookieFor(deps, admin.account.uid, admin.person.id, ["hwk", "user"]);
    const made = await make(fresh);
    expect(made.status).toBe(201);
    expect(made.body.codes).toHaveLength(10);
    expect(new Set(made.body.codes).size).toBe(10);
    for (const code of made.body.codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/);
    // Kept as keyed hashes: no code is in the store.
    const stored = JSON.stringify((await deps.store.collection("recoveryCodes").doc(admin.person.id).get()).data());
    for (const code of made.body.codes) expect(stored).not.toContain(code.replace("-", ""));
    for (const code of made.body.codes) expect(stored).not.toContain(code);
  });

  it("ends the old codes when new ones are made, and tells the person", async () => {
    const admin = await adminWithPasskey();
    const first = (await make(admin.passkeyCookie)).body.codes as string[];
    const second = (await make(admin.passkeyCookie)).body.codes as string[];
    expect((await useCode(admin.account.email, first[0] as string)).body.reason).toBe("code_invalid");
    expect((await useCode(admin.account.email, second[0] as string)).status).toBe(200);
    const told = await mailAfter(admin.account.email, 0, (m) => m.text.includes("New recovery codes were made"));
    expect(told.text).toContain("any you had before work no more");
  });
});

describe("POST /auth/passkeys/recovery/sign-in", () => {
  it("signs in once with a code, refuses it the second time, and tells the person each time", async () => {
    const admin = await adminWithPasskey();
    const [code] = (await make(admin.passkeyCookie)).body.codes as string[];
    const seen = (await mailTo(admin.account.email)).length;
    const first = await useCode(admin.account.email, (code as string).toUpperCase().replace("-", " "));
    expect(first.status).toBe(200);
    const cookie = await sessionFrom(first.body.customToken);
    expect(methodsOf(cookie)).toEqual(["rec"]);
    const used = await mailAfter(admin.account.email, seen, (m) => m.text.includes("recovery codes was used"));
    expect(used.text).toContain("9 are left");

    const second = await useCode(admin.account.email, code as string);
    expect(second.status).toBe(400);
    expect(second.body.reason).toBe("code_invalid");
    // Told too: its fourth notice of the hour (the passkey, the codes, the use), so in the summary
    // that folds the rest, as every security notice past three an hour is.
    expect(await noticesTo(admin.person.id)).toContainEqual(
      expect.stringContaining("that was already used, and was refused"),
    );
  });

  it("tells of a use at once when the hour's notices are spent: never folded into the summary", async () => {
    const admin = await adminWithPasskey();
    // The passkey, and two sets of codes: the hour's three notices taken.
    await make(admin.passkeyCookie);
    const [code] = (await make(admin.passkeyCookie)).body.codes as string[];
    await allTasksIdle();
    const seen = (await mailTo(admin.account.email)).length;
    expect((await useCode(admin.account.email, code as string)).status).toBe(200);
    const used = await mailAfter(admin.account.email, seen, (m) => m.text.includes("recovery codes was used"));
    expect(used.text).toContain("9 are left");
    const entries = await deps.store.collection("outbox").where("about", "==", admin.person.id).get();
    const use = entries.docs.find((d) => (d.get("notice.lines") as string[])[0]?.includes("recovery codes was used"));
    expect(use?.get("state")).toBe("sent");
    // What is not urgent still waits for the summary: a used code presented again.
    expect((await useCode(admin.account.email, code as string)).body.reason).toBe("code_invalid");
    await allTasksIdle();
    const again = (await deps.store.collection("outbox").where("about", "==", admin.person.id).get()).docs.find((d) =>
      (d.get("notice.lines") as string[] | undefined)?.[0]?.includes("already used"),
    );
    expect(again?.get("state")).toBe("folded");
  });

  it("opens a member's session that may add a passkey, which then signs in and acts as an administrator", async () => {
    const admin = await adminWithPasskey();
    const [code] = (await make(admin.passkeyCookie)).body.codes as string[];
    const cookie = await sessionFrom((await useCode(admin.account.email, code as string)).body.customToken);
    // A member's powers: no administrators' route.
    const listed = await request(peopleApp).get("/auth/people").set("Cookie", cookie);
    expect(listed.body.reason).toBe("passkey_required");
    // The one thing more: the lost device's passkey removed, and a new one added.
    expect((await request(keys.app).delete(`/auth/passkeys/${admin.passkeyId}`).set("Cookie", cookie)).status).toBe(
      200,
    );
    const device = new SoftwareAuthenticator();
    expect((await keys.register({ session: cookie, binding: null }, device)).status).toBe(201);
    // The new passkey works: it signs in, and that session acts as an administrator.
    const browser = newBrowser();
    const signedIn = await keys.signIn(browser, device);
    expect(signedIn.status).toBe(200);
    const keyed = await sessionFrom(signedIn.body.customToken);
    expect(methodsOf(keyed)).toEqual(["hwk", "user"]);
    expect((await request(peopleApp).get("/auth/people").query({ limit: 1 }).set("Cookie", keyed)).status).toBe(200);
  });

  it("lets one of concurrent uses of one code win, and marks it used once", async () => {
    const admin = await adminWithPasskey();
    const [code] = (await make(admin.passkeyCookie)).body.codes as string[];
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => useCode(admin.account.email, code as string, racingApp)),
    );
    expectRaced(
      answers,
      (a) => a.status === 200,
      (a) => a.status === 400 && a.body.reason === "code_invalid",
    );
    const stored = (await deps.store.collection("recoveryCodes").doc(admin.person.id).get()).get("codes") as Array<{
      usedAt: unknown;
    }>;
    expect(stored.filter((c) => c.usedAt !== null)).toHaveLength(1);
  });

  it("counts every wrong code towards the address's recovery ceiling, after which even a right one is refused", async () => {
    const admin = await adminWithPasskey();
    const [code] = (await make(admin.passkeyCookie)).body.codes as string[];
    const [id] = recoveryRunIds(parsePepper(TEST_CODE_PEPPER), admin.account.email);
    // The run so far: one short of the ceiling, as 99 wrong guesses would leave it.
    await deps.transaction(async (tx) =>
      limits.save(
        deps.store,
        tx,
        id as string,
        "test-pepper-1",
        { sends: [], failures: FAILURE_CEILING - 2, lockedUntil: null, lockouts: 0, noticeAt: null },
        new Date(deps.clock.now().getTime() + 3600_000),
        [],
      ),
    );
    expect((await useCode(admin.account.email, "00000-00000")).body.reason).toBe("code_invalid");
    const [counted] = await limits.findAll(deps.store, [id as string]);
    expect(counted?.failures).toBe(FAILURE_CEILING - 1);
    expect((await useCode(admin.account.email, "00000-00001")).body.reason).toBe("code_invalid");
    const locked = await useCode(admin.account.email, code as string);
    expect(locked.status).toBe(429);
    expect(locked.body.reason).toBe("address_locked");
    // For the first lock's 15 minutes; and recovery codes' own: email sign-in is not locked.
    expect(Number(locked.headers["retry-after"])).toBe(15 * 60);
    const [email] = addressIds(parsePepper(TEST_CODE_PEPPER), admin.account.email);
    expect(await limits.findAll(deps.store, [email as string])).toEqual([]);
  });

  it("answers an address on nobody, and a person with no codes, as a wrong code", async () => {
    const stranger = await useCode(`${unique("nobody")}@example.test`, "k3m9q-x2v7d");
    const admin = await adminWithPasskey();
    const none = await useCode(admin.account.email, "k3m9q-x2v7d");
    expect([stranger.status, stranger.body]).toEqual([none.status, none.body]);
    expect(none.body.reason).toBe("code_invalid");
    expect((await useCode(admin.account.email, "not a code")).body.reason).toBe("code_malformed");
  });

  it("counts no guess against a member's email sign-in: a stranger cannot lock it by guessing at codes", async () => {
    const { account } = await accountWithPerson({}, deps.store);
    for (let i = 0; i < 5; i++)
      expect((await useCode(account.email, `0000${i}-00000`)).body.reason).toBe("code_invalid");
    const [id] = addressIds(parsePepper(TEST_CODE_PEPPER), account.email);
    expect(await limits.findAll(deps.store, [id as string])).toEqual([]);
    // Counted where recovery codes count them, as at every address, codes or none.
    const [run] = recoveryRunIds(parsePepper(TEST_CODE_PEPPER), account.email);
    expect((await limits.findAll(deps.store, [run as string]))[0]?.failures).toBe(5);
  });
});
