/**
 * The passkey rule on the identity host's pages, in Chromium with its virtual authenticator, the
 * rule on for the stack's administrators: a reviewer signed in by email code is walked through
 * adding a passkey, is refused at the queue with `passkey_required` until they use one, adds it in
 * place, and approves; an administrator's step-up by email code is refused, and by passkey
 * accepted, with no email code offered; an administrator signed in by code who changes where
 * their mail goes is asked for their passkey in place on `/account`; and a lost passkey is
 * replaced by signing in with a recovery code. With the keyboard alone and on a phone's screen,
 * every page checked by axe-core.
 *
 * @stack-project a browser reaches the stack's functions, with the passkey rule on for the file
 */
import type { BrowserContext, Page } from "playwright-core";
import * as people from "../../src/store/people";
import { personHistory } from "../../src/core/people/history";
import { systemClock } from "../../src/clock";
import { signInWithCustomToken } from "../support/auth";
import { ID_HOST, openSessionIn, useBrowserWorld } from "../support/browser";
import { auth, firestore, unique } from "../support/deps";
import { codeIn, hasCode, mailAfter, mailTo } from "../support/inbox";
import { accountWithPerson, personFor } from "../support/people";
import { passkeyWorld } from "../support/passkeys";
import type { SoftwarePasskey } from "../support/authenticator";
import { credentialOf, virtualAuthenticator } from "../support/virtual-authenticator";
import { usePasskeyRuleOnStack } from "../support/stack-rule";
import { stackCookie, stackSessionTokens } from "../support/stack-sessions";
import { MODES, sessionCookie, useJourneys, type Visitor } from "../support/visitor";

const db = firestore();
const world = useBrowserWorld();
const w = passkeyWorld();
usePasskeyRuleOnStack(db);

const mailCount = async (address: string) => (await mailTo(address)).length;

/** What the page's own fetch of `path` answers: its status, reason and body. */
async function fetchFromPage(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const res = await fetch(path, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      return { status: res.status, reason: (json.reason as string | undefined) ?? null, body: json };
    },
    { method, path, body },
  );
}

const askFromPage = async (page: Page, method: string, path: string, body?: unknown) => {
  const { status, reason } = await fetchFromPage(page, method, path, body);
  return { status, reason };
};

/** A session cookie for the stack's functions, begun with a passkey: for the test's own API calls. */
const passkeySessionCookie = (uid: string) => stackCookie(uid, { sign_in_methods: ["hwk", "user"] });

/** The stack's queue is every file's: the reviewer here starts from an empty one (the others rejected). */
async function emptyQueue(): Promise<void> {
  const { account } = await accountWithPerson({ role: "admin", projects: ["*"], name: "Queue Sweeper" });
  const cookie = await passkeySessionCookie(account.uid);
  const stack = process.env.STACK_ID_URL as string;
  for (let round = 0; round < 50; round++) {
    const queue = await fetch(`${stack}/auth/people/queue?limit=100`, { headers: { cookie } });
    const ids = ((await queue.json()) as { people: Array<{ personId: string }> }).people.map((p) => p.personId);
    if (ids.length === 0) return;
    await fetch(`${stack}/auth/people/review`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ personIds: ids, status: "rejected" }),
    });
  }
}

/** What this browser's session says of how its sign-in was made. */
async function sessionMethods(page: Page): Promise<string[]> {
  const cookie = (await sessionCookie(page)) as string;
  return JSON.parse(Buffer.from(cookie.split(".")[1] as string, "base64url").toString("utf8")).amr ?? [];
}

/** The same session, as if its sign-in had been `minutesAgo` minutes ago. */
async function signedInMinutesAgo(context: BrowserContext, page: Page, minutesAgo: number): Promise<void> {
  const claims = JSON.parse(
    Buffer.from(((await sessionCookie(page)) as string).split(".")[1] as string, "base64url").toString("utf8"),
  );
  const now = systemClock.now();
  const { token } = await stackSessionTokens().issue(
    {
      uid: claims.sub,
      personId: claims.pid,
      sessionId: claims.sid,
      authTime: new Date(now.getTime() - minutesAgo * 60_000),
      amr: claims.amr ?? [],
    },
    now,
    3600_000,
  );
  await context.clearCookies({ name: "__session" });
  await context.addCookies([
    {
      name: "__session",
      value: token,
      domain: ".example.test",
      path: "/",
      httpOnly: true,
      secure: true,
      sameSite: "Lax",
    },
  ]);
}

describe.each(MODES)("the passkey rule on the pages, %s", (mode) => {
  const t = useJourneys(world, mode);

  async function signInByCode(visitor: Visitor, email: string): Promise<void> {
    const seen = await mailCount(email);
    await visitor.reaches("Sign in");
    await visitor.fill("Email address", email);
    await visitor.press("Email me a code");
    await visitor.reaches("Check your email");
    await visitor.fill("Code from the email", codeIn(await mailAfter(email, seen, hasCode)));
    await visitor.press("Sign in");
  }

  it("walks a reviewer signed in by code to a passkey: refused at the queue, a passkey added in place, then approves", async () => {
    t.name = "passkey-rule-reviewer";
    // Made an administrator just now: their first passkey may follow an email code.
    const { account: rita } = await accountWithPerson({ role: "admin", projects: ["*"], name: "Rita Reviewer" });
    await emptyQueue();
    const name = `Wes ${unique("Waiting")}`;
    const waiting = await personFor(
      { uid: unique("u"), email: `${unique("w")}@example.test` },
      { status: "pending", name, origin: { via: "email", address: "wes@example.org" } },
    );
    const authenticator = await virtualAuthenticator(t.page);
    await t.page.goto(`${ID_HOST}/?redirect=${encodeURIComponent(`${ID_HOST}/review`)}`);
    await signInByCode(t.visitor, rita.email);
    // Walked through it at sign-in; this one goes on without, to meet the rule where they act.
    await t.visitor.reaches("Add a passkey");
    await t.visitor.screenshot("passkey-rule-enrolment");
    await t.visitor.press("Not now");
    await t.visitor.reaches("Use your passkey to go on");
    expect(await sessionMethods(t.page)).toEqual(["otp"]);
    // The queue, and every administrators' endpoint, refuses this session.
    expect(await askFromPage(t.page, "GET", "/auth/people/queue")).toEqual({ status: 403, reason: "passkey_required" });
    await t.page.getByRole("heading", { level: 2, name: "Use your passkey" }).waitFor();
    await t.visitor.audit();
    await t.visitor.screenshot("passkey-rule-door");
    await t.visitor.press("Add a passkey");
    // Added, signed in with, and the queue opens for the administrator.
    await t.visitor.reaches("Review requests (1 waiting)");
    expect(await authenticator.credentials()).toHaveLength(1);
    expect(await sessionMethods(t.page)).toEqual(["hwk", "user"]);
    await t.visitor.press(`Approve ${name}`);
    await t.page.locator("li.request", { hasText: name }).locator(".outcome", { hasText: "Approved." }).waitFor();
    expect((await people.findById(db, waiting.id))?.status).toBe("approved");
    const [entry] = (await personHistory({ store: db }, waiting.id, 1, null)).entries;
    expect(entry?.by).toMatchObject({ kind: "admin", amr: ["hwk", "user"] });
  }, 180_000);

  it("refuses an administrator's step-up by email code, and takes it by passkey, offering no code", async () => {
    t.name = "passkey-rule-step-up";
    const admin = await w.withPasskey({ role: "admin", projects: ["*"], name: "Sue Stepup" });
    const target = await personFor(
      { uid: unique("u"), email: `${unique("t")}@example.test` },
      { name: `Terry ${unique("T")}` },
    );
    // A fresh sign-in by email code: refused the widening, however fresh.
    await t.page.goto(`${ID_HOST}/`);
    await signInByCode(t.visitor, admin.account.email);
    await t.visitor.reaches("Your account");
    expect(await askFromPage(t.page, "PATCH", `/auth/people/${target.id}`, { role: "admin" })).toEqual({
      status: 403,
      reason: "passkey_required",
    });
    expect((await people.findById(db, target.id))?.role).toBe("user");
    // A passkey sign-in, grown old: the widening asks for the passkey again, in place. (The device
    // holds it from here: on the sign-in page, its autofill would have signed in with it at once.)
    await virtualAuthenticator(t.page, [credentialOf(admin.authenticator.passkeys[0] as SoftwarePasskey)]);
    await t.page.goto(`${ID_HOST}/person?id=${target.id}`);
    await t.visitor.reaches("Use your passkey to go on");
    await t.visitor.press("Use your passkey");
    await t.visitor.reaches(target.name);
    await signedInMinutesAgo(t.context, t.page, 6);
    await t.visitor.press("Make administrator");
    await t.page.getByRole("heading", { level: 2, name: "Use your passkey" }).waitFor();
    expect(await t.visitor.control("Email me a code").count()).toBe(0);
    expect((await people.findById(db, target.id))?.role).toBe("user");
    await t.visitor.audit();
    await t.visitor.screenshot("passkey-rule-step-up-asked");
    await t.visitor.press("Use your passkey");
    await t.page.getByRole("status").filter({ hasText: "Now an administrator." }).waitFor();
    expect((await people.findById(db, target.id))?.role).toBe("admin");
  }, 180_000);

  it("asks for the passkey in place when an administrator signed in by code changes where their mail goes", async () => {
    t.name = "passkey-rule-ways-in";
    const admin = await w.withPasskey({ role: "admin", projects: ["*"], name: "Wade Waysin" });
    const second = `${unique("second")}@example.test`;
    await db.runTransaction(async (tx) => {
      const current = (await people.findById(db, admin.person.id, tx))!;
      people.replace(db, tx, current, { ...current, emails: [admin.account.email, second] });
    });
    await t.page.goto(`${ID_HOST}/`);
    await signInByCode(t.visitor, admin.account.email);
    await t.visitor.reaches("Your account");
    // Their ways in are an administrator's: a code's session is asked for the passkey first.
    await virtualAuthenticator(t.page, [credentialOf(admin.authenticator.passkeys[0] as SoftwarePasskey)]);
    await t.visitor.press(new RegExp(`^Make this the address we mail\\W*${second.replace(/[.+]/g, "\\$&")}$`));
    await t.page.getByRole("heading", { level: 2, name: "Use your passkey" }).waitFor();
    expect((await people.findById(db, admin.person.id))?.emails[0]).toBe(admin.account.email);
    await t.visitor.audit();
    await t.visitor.screenshot("passkey-rule-ways-in-asked");
    await t.visitor.press("Use your passkey");
    await t.page
      .getByRole("status")
      .filter({ hasText: `We'll email ${second} from now on.` })
      .waitFor();
    expect(await sessionMethods(t.page)).toEqual(["hwk", "user"]);
    expect((await people.findById(db, admin.person.id))?.emails[0]).toBe(second);
  }, 180_000);

  it("replaces a lost passkey by signing in with a recovery code, and the new passkey acts", async () => {
    t.name = "passkey-rule-recovery";
    const admin = await w.withPasskey({ role: "admin", projects: ["*"], name: "Rae Recovery" });
    // Their codes, made right after a sign-in with the passkey (the one they will lose).
    const session = await signInWithCustomToken(
      await auth().createCustomToken(admin.account.uid, { sign_in_methods: ["hwk", "user"] }),
    );
    await openSessionIn(t.page, session);
    const made = await fetchFromPage(t.page, "POST", "/auth/passkeys/recovery-codes", {});
    expect(made.status).toBe(201);
    const codes = made.body.codes as string[];
    await t.context.clearCookies({ name: "__session" });
    // The passkey is lost: this device holds none.
    await virtualAuthenticator(t.page);
    await t.page.goto(`${ID_HOST}/?recovery=1&redirect=${encodeURIComponent(`${ID_HOST}/account`)}`);
    await t.visitor.reaches("Sign in with a recovery code");
    await t.visitor.fill("Email address", admin.account.email);
    await t.visitor.fill("Recovery code", codes[0] as string);
    await t.visitor.press("Sign in");
    // Walked to a new passkey: a recovery code's session may add one.
    await t.visitor.reaches("Add a passkey");
    await t.visitor.press("Add a passkey");
    await t.visitor.reaches("Your account");
    expect(await sessionMethods(t.page)).toEqual(["hwk", "user"]);
    expect(await askFromPage(t.page, "GET", "/auth/people?limit=1")).toMatchObject({ status: 200 });
    const told = await mailAfter(admin.account.email, 0, (m) => m.text.includes("recovery codes was used"));
    expect(told.text).toContain("9 are left");
  }, 180_000);
});
