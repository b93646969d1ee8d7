/**
 * The reviewer pages on the identity host, in a real browser over https on the real host names:
 * the whole loop (a stranger asks for access with a name and a note, the reviewers' digest leads
 * a reviewer to the queue, an approval mail leads the stranger to sign in and on to an app), a
 * rejection and several approved at once, a non-administrator turned away, confirming it's you
 * before making someone an administrator, finding people and changing what they may use, and
 * ending a person's session in another browser. With a pointer, the keyboard alone and on a
 * phone's screen, every page checked by axe-core.
 *
 * @stack-project a browser reaches the stack's functions, and the test counts its whole review queue
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { addressIds, parsePepper } from "../../src/core/pepper";
import * as limits from "../../src/store/email-code-limits";
import * as people from "../../src/store/people";
import { randomPhone, signInWithCustomToken } from "../support/auth";
import {
  ID_HOST,
  openSessionIn,
  scriptHeading,
  settledSignIns,
  SETTLING_JOURNEY_MS,
  useBrowserWorld,
} from "../support/browser";
import { auth, firestore, PARENT_DOMAIN, unique } from "../support/deps";
import { codeIn, hasCode, mailAfter, mailTo } from "../support/inbox";
import { accountWithPerson, personFor } from "../support/people";
import { MODES, secondVisitor, sessionCookie, useJourneys, type Visitor } from "../support/visitor";
import { type Person } from "../../src/core/model/person";
import { addHook, removeHook } from "../../src/core/events/hooks";
import { systemClock } from "../../src/clock";
import { cryptoRandom } from "../../src/random";
import { transactionRunner } from "../../src/store/db";
import { stackCookie, stackSecret, stackSessionTokens } from "../support/stack-sessions";

const db = firestore();
const world = useBrowserWorld();
const stackId = () => process.env.STACK_ID_URL as string;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const mailCount = async (address: string) => (await mailTo(address)).length;

/**
 * The stack's queue is every test file's: the reviewer here starts from an empty one, as after a
 * day's reviewing, so what it shows is this test's alone (whoever waits from other files is rejected).
 */
async function emptyQueue(): Promise<void> {
  const { account } = await accountWithPerson({ role: "admin", projects: ["*"], name: "Queue Sweeper" });
  const cookie = await stackCookie(account.uid);
  for (let round = 0; round < 50; round++) {
    const queue = await fetch(`${stackId()}/auth/people/queue?limit=100`, { headers: { cookie } });
    const ids = ((await queue.json()) as { people: Array<{ personId: string }> }).people.map((p) => p.personId);
    if (ids.length === 0) return;
    await fetch(`${stackId()}/auth/people/review`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ personIds: ids, status: "rejected" }),
    });
  }
}

/**
 * Moves the codes sent to `address` `ms` into the past, as the stack's functions see them: the
 * minute between codes to one address passes for this address alone, and no other file's.
 */
async function sendsAgo(address: string, ms: number): Promise<void> {
  const ids = addressIds(parsePepper(stackSecret("CODE_PEPPER")), address);
  const found = await limits.findAll(db, ids);
  expect(found.length).toBeGreaterThan(0);
  const ago = (at: Date) => new Date(at.getTime() - ms);
  for (const record of found)
    await db
      .collection("emailCodeLimits")
      .doc(record.addressId)
      .update({ sends: record.sends.map(ago) });
  // Each send claimed its address's minute (store/send-claims), which takes no second send: those
  // minutes are let go, as their passing would have.
  for (const record of found)
    for (const at of record.sends)
      await db
        .collection("sendClaims")
        .doc(`${record.addressId}~${Math.floor(at.getTime() / 60_000)}`)
        .delete();
}

/**
 * Makes this browser's session one whose sign-in was `minutesAgo` minutes ago: the same session
 * (its id, person and methods), as if the administrator had signed in then and kept the page open.
 */
async function signedInMinutesAgo(context: BrowserContext, page: Page, minutesAgo: number): Promise<void> {
  const held = await sessionCookie(page);
  if (held === null) throw new Error("no session to age");
  const claims = JSON.parse(Buffer.from(held.split(".")[1] as string, "base64url").toString("utf8"));
  // eslint-disable-next-line no-restricted-syntax -- the stack checks sign-in times on the real clock
  const now = new Date();
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
      domain: `.${PARENT_DOMAIN}`,
      path: "/",
      httpOnly: true,
      secure: true,
      sameSite: "Lax",
    },
  ]);
}

describe.each(MODES)("the reviewer pages, %s", (mode) => {
  const t = useJourneys(world, mode);

  /** On the sign-in page: an address, the code mailed to it, and on to where the page was sent from. */
  async function signInByCode(visitor: Visitor, email: string): Promise<void> {
    const seen = await mailCount(email);
    await visitor.reaches("Sign in");
    await visitor.fill("Email address", email);
    await visitor.press("Email me a code");
    await visitor.reaches("Check your email");
    await visitor.fill("Code from the email", codeIn(await mailAfter(email, seen, hasCode)));
    await visitor.press("Sign in");
  }

  const openSessionAs = async (page: Page, uid: string) =>
    openSessionIn(page, await signInWithCustomToken(await auth().createCustomToken(uid)));

  const reviewer = (name = "Rita Reviewer") => accountWithPerson({ role: "admin", projects: ["*"], name });

  /** What a section says it did (its status line). */
  const said = (page: Page, words: string | RegExp) => page.getByRole("status").filter({ hasText: words }).waitFor();

  it("takes a stranger's request through the digest, the queue and the approval mail to an app", async () => {
    t.name = "review-loop";
    const { account: rita } = await reviewer();
    await emptyQueue();
    // The stack's digest window (1 minute) is open again: this request is told of at once.
    await db.collection("reviewDigests").doc("last").delete();

    const stranger = await secondVisitor(world, mode);
    const email = `${unique("stranger")}@example.test`;
    const name = `Sam ${unique("Stranger")}`;
    const note = "I run the <b>x</b> team & need the calendar.";
    await stranger.page.goto(`${ID_HOST}/request-access`);
    await stranger.visitor.reaches("Request access");
    await stranger.visitor.fill("Email address", email);
    await stranger.visitor.fill("Your name", name);
    await stranger.visitor.fill(/^A note for the reviewer/, note);
    await stranger.page.getByText(`${500 - note.length} characters left`).waitFor();
    await stranger.visitor.press("Email me a code");
    await stranger.visitor.reaches("Check your email");
    await stranger.visitor.fill("Code from the email", codeIn(await mailAfter(email, 0, hasCode)));
    await stranger.visitor.press("Confirm my address");
    await stranger.visitor.reaches("Your request is in");
    expect(await people.findByEmail(db, email)).toMatchObject({ status: "pending", name, note });

    const digest = await mailAfter(
      rita.email,
      0,
      (m) => /waiting for review/.test(m.subject) && m.text.includes(name),
      90,
    );
    const queue = /Open the review queue: (\S+)/.exec(digest.text)?.[1];
    expect(queue).toBe("https://id.example.test/review");

    // Signed out: the queue sends the reviewer to sign in, and back.
    await t.page.goto(queue as string);
    await signInByCode(t.visitor, rita.email);
    await t.visitor.reaches("Review requests (1 waiting)");
    const item = t.page.locator("li.request", { hasText: name });
    expect(await item.innerText()).toContain(`Proved the address ${email}`);
    // The note is text: its markup is shown as typed, and makes no element.
    expect(await item.locator(".note").innerText()).toBe(note);
    expect(await item.locator(".note b").count()).toBe(0);
    await t.visitor.screenshot("review-queue");
    await t.visitor.press(`Approve ${name}`);
    await item.locator(".outcome", { hasText: "Approved." }).waitFor();
    await t.visitor.reaches("Review requests (none waiting)");

    await t.visitor.press(`Details of ${name}`);
    await t.visitor.reaches(name);
    await t.visitor.fill("Add a project", "startpage");
    await t.visitor.press("Add project");
    await said(t.page, "Added project startpage.");
    expect((await people.findByEmail(db, email))?.projects).toEqual(["startpage"]);

    // The approval mail leads to the sign-in page, which signs nobody in by itself.
    const approved = await mailAfter(email, 1, (m) => m.subject === "Your access is approved", 30);
    const signIn = /Sign in: (\S+)/.exec(approved.text)?.[1] as string;
    expect(signIn).toBe("https://id.example.test/");
    await stranger.page.goto(signIn);
    await stranger.visitor.reaches("Sign in");
    expect(await sessionCookie(stranger.page)).toBeNull();
    // A minute between codes to one address: the stranger comes back after it, as anyone approved later would.
    await sendsAgo(email, 61_000);
    await signInByCode(stranger.visitor, email);
    await stranger.visitor.reaches("Your account");
    await stranger.page.goto("https://startpage.example.test/");
    await stranger.page.getByText(`Signed in as ${email}.`).waitFor();
    await stranger.visitor.screenshot("review-loop-stranger");
    await stranger.context.close();
    expect(stranger.visitor.serious()).toEqual([]);
  }, 240_000);

  it("approves a person as the rule for their address's domain suggests, in one step", async () => {
    t.name = "review-suggested";
    const { account } = await reviewer();
    await emptyQueue();
    const name = `Sue ${unique("Suggested")}`;
    const sue = await personFor(
      { uid: unique("u"), email: `${unique("sue")}@partner.example` },
      {
        status: "pending",
        name,
        origin: { via: "email", address: "sue@partner.example" },
        suggestion: { rule: "partner.example", projects: ["location"], groups: ["partners"] },
      },
    );
    await openSessionAs(t.page, account.uid);
    await t.page.goto(`${ID_HOST}/review`);
    await t.visitor.reaches("Review requests (1 waiting)");
    const item = t.page.locator("li.request", { hasText: name });
    expect(await item.innerText()).toContain("The rule for partner.example suggests: location; groups partners");
    await t.visitor.screenshot("review-suggested");
    await t.visitor.press(`Approve as suggested for ${name}`);
    await item.locator(".outcome", { hasText: "Approved, with location, group partners." }).waitFor();
    await t.visitor.reaches("Review requests (none waiting)");
    const approved = await people.findById(db, sue.id);
    expect(approved).toMatchObject({ status: "approved", projects: ["location"], groups: ["partners"] });
    expect(approved?.suggestion).toBeUndefined();
  }, 120_000);

  it("rejects one request, and approves several at once, saying what became of each", async () => {
    t.name = "review-several";
    const { account } = await reviewer();
    await emptyQueue();
    const tag = unique("w");
    const waiting = async (name: string, origin: Person["origin"], note = "") =>
      personFor({ uid: unique("u"), email: `${unique("w")}@example.test` }, { status: "pending", name, origin, note });
    const [ann, ben, cat, dev] = [
      await waiting(`Ann ${tag}`, { via: "email", address: "ann@example.org" }, "From the design team."),
      await waiting(`Ben ${tag}`, {
        via: "account",
        bridge: "gaming",
        provider: "gaming",
        account: "76561197960287930",
        displayName: "Player One",
      }),
      await waiting(`Cat ${tag}`, {
        via: "account",
        bridge: "federated",
        provider: "github.com",
        account: "cat-codes",
        displayName: "Cat C.",
      }),
      await waiting(`Dev ${tag}`, null),
    ];
    await openSessionAs(t.page, account.uid);
    await t.page.goto(`${ID_HOST}/review`);
    await t.visitor.reaches("Review requests (4 waiting)");
    expect(await t.page.locator("li.request", { hasText: ben.name }).innerText()).toContain(
      "Signed in through the gaming sign-in with the account 76561197960287930 at gaming, named “Player One”",
    );
    await t.visitor.press(`Reject ${ann.name}`);
    await t.page.locator("li.request", { hasText: ann.name }).locator(".outcome", { hasText: "Rejected." }).waitFor();
    await t.visitor.reaches("Review requests (3 waiting)");
    for (const p of [ben, cat, dev]) await t.visitor.check(`Select ${p.name}`);
    await t.page.getByText("3 selected.").waitFor();
    await t.visitor.audit();
    await t.visitor.screenshot("review-selected");
    await t.visitor.press("Approve selected");
    await said(t.page, "Approved all 3.");
    await t.visitor.reaches("Review requests (none waiting)");
    for (const p of [ben, cat, dev])
      await t.page.locator("li.request", { hasText: p.name }).locator(".outcome", { hasText: "Approved." }).waitFor();
    const statuses = await Promise.all(
      [ann, ben, cat, dev].map(async (p) => (await people.findById(db, p.id))?.status),
    );
    expect(statuses).toEqual(["rejected", "approved", "approved", "approved"]);
  });

  it("shows an approval's event, signed, in the stack's webhook inbox", async () => {
    t.name = "review-event";
    const { account } = await reviewer();
    await emptyQueue();
    // An app of this test's own, subscribed to approvals at the stack's inbox, signing with the
    // secret the inbox verifies with (the seed's); for this test alone.
    const app = `walk-${cryptoRandom
      .token(6)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "0")}`;
    const inbox = process.env.STACK_HOOK_INBOX_URL as string;
    const seed = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "emulator-data", "seed.json"), "utf8")) as {
      hooks: Array<{ secret: string }>;
    };
    const hookDeps = {
      store: db,
      clock: systemClock,
      random: cryptoRandom,
      pepper: parsePepper(stackSecret("CODE_PEPPER")),
      transaction: transactionRunner(db),
      config: { loopbackHooks: true },
    };
    await addHook(hookDeps, {
      app,
      url: `${inbox}/${app}`,
      events: ["person.approved"],
      secret: seed.hooks[0]?.secret as string,
    });
    try {
      const name = `Eve ${unique("Event")}`;
      const waiting = await personFor(
        { uid: unique("u"), email: `${unique("eve")}@example.test` },
        { status: "pending", name, origin: { via: "email", address: "eve@example.org" } },
      );
      await openSessionAs(t.page, account.uid);
      await t.page.goto(`${ID_HOST}/review`);
      await t.visitor.reaches("Review requests (1 waiting)");
      await t.visitor.press(`Approve ${name}`);
      await t.page.locator("li.request", { hasText: name }).locator(".outcome", { hasText: "Approved." }).waitFor();

      // The outbox delivers it after the answer: the inbox has it within seconds, signed.
      type Delivered = { verified: boolean; body: { type: string; personId: string } };
      const deliveredFor = async (): Promise<Delivered | undefined> => {
        const listed = (await (await fetch(`${inbox}/deliveries?app=${app}`)).json()) as { deliveries: Delivered[] };
        return listed.deliveries.find((d) => d.body.personId === waiting.id);
      };
      let delivered = await deliveredFor();
      for (let waited = 0; delivered === undefined && waited < 30_000; waited += 250) {
        await pause(250);
        delivered = await deliveredFor();
      }
      expect(delivered).toMatchObject({ verified: true, body: { type: "person.approved", personId: waiting.id } });
      await t.page.goto(`${inbox}/`);
      const shown = t.page.locator("li", { hasText: waiting.id });
      await shown.getByRole("heading", { name: `person.approved to ${app}` }).waitFor();
      expect(await shown.innerText()).toContain("The signature verifies.");
      await t.visitor.audit();
      await t.visitor.screenshot("review-event-inbox");
    } finally {
      await removeHook(hookDeps, app);
    }
  });

  it("turns away someone who is not an administrator, and the API gives them nothing", async () => {
    t.name = "review-not-admin";
    const { account, person } = await accountWithPerson({ projects: ["*"], name: "Mo Member" });
    await openSessionAs(t.page, account.uid);
    for (const path of ["/people", `/person?id=${person.id}`, "/review"]) {
      await t.page.goto(`${ID_HOST}${path}`);
      await t.visitor.reaches("You need to be an administrator");
    }
    const answers = await t.page.evaluate(async () =>
      Promise.all(
        ["/auth/people/queue", "/auth/people"].map(async (path) => {
          const res = await fetch(path);
          return { status: res.status, keys: Object.keys((await res.json()) as object) };
        }),
      ),
    );
    expect(answers).toEqual([
      { status: 403, keys: ["error"] },
      { status: 403, keys: ["error"] },
    ]);
    await t.visitor.press("Go to your account");
    await t.visitor.reaches("Your account");
    expect(await t.visitor.control("Review requests").count()).toBe(0);
    await t.page.goto(`${ID_HOST}/review`);
    await t.visitor.reaches("You need to be an administrator");
  });

  it("asks an administrator who signed in over 5 minutes ago to confirm it's them, in place, then makes the admin", async () => {
    t.name = "review-step-up";
    const { account: admin } = await reviewer("Sue Stepup");
    const target = await personFor(
      { uid: unique("u"), email: `${unique("t")}@example.test` },
      { name: `Terry ${unique("T")}` },
    );
    await openSessionAs(t.page, admin.uid);
    await signedInMinutesAgo(t.context, t.page, 6);
    await t.page.goto(`${ID_HOST}/person?id=${target.id}`);
    await t.visitor.reaches(target.name);
    await t.visitor.press("Make administrator");
    await t.page.getByRole("heading", { level: 2, name: "Confirm it's you" }).waitFor();
    expect((await people.findById(db, target.id))?.role).toBe("user");
    await t.visitor.audit();
    await t.visitor.screenshot("review-step-up-asked");
    const seen = await mailCount(admin.email);
    await t.visitor.press("Email me a code");
    await t.visitor.fill("Code from the email", codeIn(await mailAfter(admin.email, seen, hasCode)));
    await t.visitor.press("Confirm");
    await said(t.page, "Now an administrator.");
    expect((await people.findById(db, target.id))?.role).toBe("admin");
    expect(await t.page.getByRole("heading", { level: 2, name: "Confirm it's you" }).count()).toBe(0);
    // The history says it, and who did it.
    const history = t.page.locator("section[aria-labelledby=history]");
    await history.getByText("Role: Member → Administrator").waitFor();
    expect(await history.locator("li.entry").first().innerText()).toContain(admin.email);
    // Taking it away again only narrows access: no question.
    await t.visitor.press("Make member");
    await said(t.page, "Now a member: no longer an administrator.");
  });

  it("deletes a person on their page after saying what goes, confirming it's the administrator first", async () => {
    t.name = "review-erase";
    const { account: admin } = await reviewer("Eve Eraser");
    const target = await personFor(
      { uid: unique("u"), email: `${unique("gone")}@example.test` },
      { name: `Gale ${unique("G")}` },
    );
    await openSessionAs(t.page, admin.uid);
    await signedInMinutesAgo(t.context, t.page, 6);
    await t.page.goto(`${ID_HOST}/person?id=${target.id}`);
    await t.visitor.reaches(target.name);
    await t.visitor.press("Delete this person…");
    await t.page.getByRole("heading", { level: 3, name: `Delete ${target.name}?` }).waitFor();
    await t.visitor.audit();
    await t.visitor.press("Delete this person");
    await t.page.getByRole("heading", { level: 2, name: "Confirm it's you" }).waitFor();
    await t.page.getByText(/Deleting someone can't be undone/).waitFor();
    expect(await people.findById(db, target.id)).not.toBeNull();
    await t.visitor.screenshot("review-erase-step-up");
    const seen = await mailCount(admin.email);
    await t.visitor.press("Email me a code");
    await t.visitor.fill("Code from the email", codeIn(await mailAfter(admin.email, seen, hasCode)));
    await t.visitor.press("Confirm");
    await t.visitor.reaches("Deleted");
    expect(await people.findById(db, target.id)).toBeNull();
    const left = await db.collection("personHistory").where("personId", "==", target.id).get();
    expect(left.docs.map((d) => [d.get("event"), d.get("by.personId")])).toEqual([["erased", expect.any(String)]]);
  });

  it("sends a signed-out visitor to sign in, then finds people by name, status, role and project, and changes one", async () => {
    t.name = "review-people";
    const { account: admin } = await reviewer("Pat People");
    const tag = unique("zq").replace(/[^a-z0-9]/g, "");
    const ada = await personFor(
      { uid: unique("u"), email: `ada.${tag}@analytical.example` },
      { name: `Ada ${tag}Lovelace`, projects: ["calendar"] },
    );
    const grace = await personFor(
      { uid: unique("u"), email: `grace.${tag}@navy.example` },
      { name: `Grace ${tag}Hopper`, status: "pending" },
    );
    const alan = await personFor(
      { uid: unique("u"), email: `alan.${tag}@bletchley.example` },
      { name: `Alan ${tag}Turing`, role: "admin" },
    );
    await t.page.goto(`${ID_HOST}/people`);
    await t.visitor.reaches("Sign in");
    expect(new URL(t.page.url()).searchParams.get("redirect")).toBe(`${ID_HOST}/people`);
    await signInByCode(t.visitor, admin.email);
    await t.visitor.reaches("People");

    /** Searches, and waits for the list to show `expected` (in any order). */
    const found = async (...expected: string[]) => {
      await t.visitor.press("Search");
      for (let waited = 0; ; waited += 100) {
        const shown = (await t.page.locator("ul.people > li a").allInnerTexts()).sort();
        if (JSON.stringify(shown) === JSON.stringify([...expected].sort())) return;
        if (waited > 10_000) expect(shown).toEqual([...expected].sort());
        await pause(100);
      }
    };
    await t.visitor.fill("Name or email address", tag);
    await found(ada.name, alan.name, grace.name);
    await t.visitor.choose("Status", "Waiting for review");
    await found(grace.name);
    await t.visitor.choose("Status", "Any status");
    await t.visitor.choose("Role", "Administrator");
    await found(alan.name);
    await t.visitor.choose("Role", "Any role");
    await t.visitor.fill("Project", "calendar");
    await found(ada.name);
    expect(new URL(t.page.url()).searchParams.get("project")).toBe("calendar");
    await t.visitor.screenshot("review-people-found");

    await t.visitor.press(ada.name);
    await t.visitor.reaches(ada.name);
    await t.visitor.press("Remove project calendar");
    await said(t.page, "Removed project calendar.");
    await t.visitor.press("Give every project");
    await said(t.page, "Added every project.");
    await t.visitor.fill("Add a group", "ops");
    await t.visitor.press("Add group");
    await said(t.page, "Added group ops.");
    // An address another person holds: refused, and said.
    await t.visitor.fill("Add an email address", `grace.${tag}@navy.example`);
    await t.visitor.press("Add address");
    await t.page.getByRole("alert").filter({ hasText: "already on another person" }).waitFor();
    // A number of this run's own: a number is one person's at most, across the stack.
    const phone = randomPhone();
    await t.visitor.fill("Add a phone number", `${phone.slice(0, 2)} ${phone.slice(2, 5)} ${phone.slice(5)}`);
    await t.visitor.press("Add number");
    await said(t.page, `Added number ${phone}.`);
    expect(await people.findById(db, ada.id)).toMatchObject({
      projects: ["*"],
      groups: ["ops"],
      phones: [phone],
      emails: [`ada.${tag}@analytical.example`],
    });
    const history = t.page.locator("section[aria-labelledby=history]");
    for (const line of [
      "Projects: removed calendar",
      "Projects: added Every project",
      "Groups: added ops",
      `Phone numbers: added ${phone}`,
    ])
      await history.getByText(line, { exact: true }).waitFor();
  }, 120_000);

  it(
    "ends a person's session in another browser from their page: it is signed out at its next request",
    async () => {
      t.name = "review-end-session";
      const { account: admin } = await reviewer("Eve Ender");
      const { account, person } = await accountWithPerson({ name: `Pip ${unique("P")}` });
      const elsewhere = await world().context();
      const theirs = await elsewhere.newPage();
      await openSessionAs(theirs, account.uid);
      await theirs.goto(`${ID_HOST}/account`);
      await scriptHeading(theirs, "Your account").waitFor();

      await openSessionAs(t.page, admin.uid);
      await t.page.goto(`${ID_HOST}/person?id=${person.id}`);
      await t.visitor.reaches(person.name);
      await t.visitor.press(/^End the session of /);
      await said(t.page, /^Ended the session of /);
      await t.page.getByText("None: they're not signed in anywhere.").waitFor();
      await t.page.locator("section[aria-labelledby=history]").getByText("Ended a session").waitFor();
      // The person's own browser is signed out at its next request (within the person cache's 10 s elsewhere).
      expect(await settledSignIns([theirs], 1)).toEqual([false]);
      await elsewhere.close();
    },
    SETTLING_JOURNEY_MS,
  );
});
