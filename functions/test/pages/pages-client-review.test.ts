/**
 * The apps waiting for review, on the reviewers' page in a real browser over https on the real
 * host names: an empty queue said in one line; a waiting app shown with what it says of itself
 * (marked unverified), how it registered, where it sends people, its home page, when it came and
 * who tried it, approved with one press (and the person who tried it mailed); another blocked
 * once the reviewer confirms. With the keyboard alone and on a phone's screen, checked by axe-core.
 *
 * @stack-project a browser reaches the stack's functions, and the test empties the stack's queues
 */
import type { Page } from "playwright-core";
import { signInWithCustomToken } from "../support/auth";
import { ID_HOST, openSessionIn, useBrowserWorld } from "../support/browser";
import { auth, firestore, unique } from "../support/deps";
import { mailAfter } from "../support/inbox";
import { accountWithPerson, personFor } from "../support/people";
import { selfRegisteredClient } from "../support/consent";
import { MODES, useJourneys } from "../support/visitor";
import * as clients from "../../src/store/oidc-clients";
import { systemClock } from "../../src/clock";
import { stackCookie } from "../support/stack-sessions";

const db = firestore();
const world = useBrowserWorld();
const stackId = () => process.env.STACK_ID_URL as string;

/**
 * The stack's queues are every test file's: the reviewer here starts from empty ones, as after a
 * day's reviewing, so what the page shows is this test's alone (people waiting are rejected, apps
 * waiting blocked).
 */
async function emptyQueues(): Promise<void> {
  const { account } = await accountWithPerson({ role: "admin", projects: ["*"], name: "Queue Sweeper" });
  const cookie = await stackCookie(account.uid);
  const post = (path: string, body: object) =>
    fetch(`${stackId()}${path}`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  for (let round = 0; round < 50; round++) {
    const [people, apps] = await Promise.all(
      ["/auth/people/queue?limit=100", "/auth/clients/queue?limit=100"].map(async (path) =>
        (await fetch(`${stackId()}${path}`, { headers: { cookie } })).json(),
      ),
    );
    const personIds = (people as { people: Array<{ personId: string }> }).people.map((p) => p.personId);
    const clientIds = (apps as { clients: Array<{ clientId: string }> }).clients.map((c) => c.clientId);
    if (personIds.length === 0 && clientIds.length === 0) return;
    if (personIds.length > 0) await post("/auth/people/review", { personIds, status: "rejected" });
    if (clientIds.length > 0) await post("/auth/clients/review", { clientIds, status: "blocked" });
  }
}

const HOUR_MS = 3600_000;

describe.each(MODES)("the apps on the reviewers' page, %s", (mode) => {
  const t = useJourneys(world, mode);

  const openSessionAs = async (page: Page, uid: string) =>
    openSessionIn(page, await signInWithCustomToken(await auth().createCustomToken(uid)));

  it("shows a waiting app's details and who tried it, approves one and blocks another once confirmed", async () => {
    t.name = "review-apps";
    const { account } = await accountWithPerson({ role: "admin", projects: ["*"], name: "Rita Reviewer" });
    await emptyQueues();
    await openSessionAs(t.page, account.uid);
    await t.page.goto(`${ID_HOST}/review`);
    await t.visitor.reaches("Review requests (none waiting)");
    const apps = t.page.locator("section[aria-labelledby=apps]");
    await apps.getByText("No apps are waiting for review.").waitFor();

    const email = `${unique("tess")}@example.test`;
    const tessUid = unique("u");
    const tess = await personFor({ uid: tessUid, email }, { name: "Tess Tried" });
    const name = `Field Notes ${unique("n")}`;
    const notes = `dyn_${unique("c")}`;
    const now = systemClock.now().getTime();
    await selfRegisteredClient({ store: db, clock: systemClock }, notes, {
      name,
      review: "waiting",
      redirectUris: ["https://notes.example.test/callback", "http://127.0.0.1:8765/callback"],
      clientUri: "https://notes.example.test/",
      triedBy: [tess.id],
      createdAt: new Date(now - 2 * HOUR_MS),
    });
    const agentName = `Agent ${unique("a")}`;
    const agent = `https://agent.example.test/${unique("c")}/client.json`;
    await selfRegisteredClient({ store: db, clock: systemClock }, agent, {
      name: agentName,
      review: "waiting",
      registeredBy: "document",
      redirectUris: ["https://agent.example.test/cb"],
      createdAt: new Date(now - HOUR_MS),
    });

    await t.page.reload();
    await t.visitor.reaches("Review requests (none waiting)");
    const item = apps.locator("li.app", { hasText: name });
    await item.waitFor();
    const text = await item.innerText();
    for (const words of [
      "Unverified",
      "Through the registration endpoint",
      "notes.example.test, 127.0.0.1:8765",
      "https://notes.example.test/callback",
      "http://127.0.0.1:8765/callback",
      "Its home page\nhttps://notes.example.test/",
      "2 hours ago",
      `Tess Tried (${email})`,
    ])
      expect(text).toContain(words);
    const other = apps.locator("li.app", { hasText: agentName });
    expect(await other.innerText()).toContain("By its metadata document at https://agent.example.test");
    expect(await other.innerText()).toContain("Nobody yet.");
    // Oldest first; and nothing an app gave is a link.
    expect(await apps.locator("li.app h3.who").allInnerTexts()).toEqual([
      `${name}Unverified`,
      `${agentName}Unverified`,
    ]);
    expect(await apps.locator("a").count()).toBe(0);
    await t.visitor.audit();
    await t.visitor.screenshot("review-apps-waiting");

    await t.visitor.press(`Approve ${name}`);
    await item.locator(".outcome", { hasText: "Approved: it can sign people in now." }).waitFor();
    expect(await item.locator(".outcome").innerText()).toContain("1 person who tried it will be told by email.");
    expect((await clients.findById(db, notes))?.review).toBe("approved");
    const told = await mailAfter(email, 0, (m) => m.subject === "An app you tried can be used now", 30);
    expect(told.text).toContain(`“${name}”`);

    await t.visitor.press(`Block ${agentName}`);
    await t.page.getByRole("heading", { level: 3, name: `Block ${agentName}?` }).waitFor();
    expect((await clients.findById(db, agent))?.review).toBe("waiting");
    await t.visitor.audit();
    await t.visitor.screenshot("review-apps-block-asked");
    await t.visitor.press("Block this app");
    await other.locator(".outcome", { hasText: "Blocked: it can't sign anyone in." }).waitFor();
    expect((await clients.findById(db, agent))?.review).toBe("blocked");

    // And the app Tess tried now takes her as far as its consent page, where it only waited before.
    await openSessionAs(t.page, tessUid);
    const asked = new URLSearchParams({
      client_id: notes,
      redirect_uri: "http://127.0.0.1:49200/callback",
      response_type: "code",
      scope: "openid",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    await t.page.goto(`${ID_HOST}/auth/oidc/authorize?${asked}`);
    await t.page.getByRole("heading", { level: 1, name: `Let ${name} use your account?` }).waitFor();
  }, 180_000);
});
