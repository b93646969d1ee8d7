/**
 * Bridge sign-ins through the identity host's pages in a real browser: the page's button, the
 * local provider's own page, and the landing that turns the custom token into a session; with a
 * pointer, the keyboard alone and on a phone's screen.
 *
 * @stack-project a browser reaches the stack's functions
 */
import type { Request } from "playwright-core";
import { cryptoRandom } from "../../src/random";
import * as people from "../../src/store/people";
import { ID_HOST, useBrowserWorld } from "../support/browser";
import { auth, firestore, unique } from "../support/deps";
import { personFor } from "../support/people";
import { MODES, sessionCookie, useJourneys } from "../support/visitor";

const db = firestore();
const APP = "https://startpage.example.test/";

const world = useBrowserWorld();

describe.each(MODES)("bridge sign-ins on the identity host's pages, %s", (mode) => {
  const t = useJourneys(world, mode);
  /** Every request the browser made, with the Referer it sent. */
  let sent: Request[];
  beforeEach(() => {
    sent = [];
    t.page.on("request", (r) => sent.push(r));
  });

  /** The landing took the custom token out of the address at once, and no request carried it in a Referer. */
  async function tokenNowhere(): Promise<void> {
    expect(t.page.url()).not.toContain("customToken");
    const referers = await Promise.all(sent.map(async (r) => (await r.allHeaders()).referer ?? ""));
    expect(referers.filter((r) => r.includes("customToken"))).toEqual([]);
    expect(await t.page.evaluate("window.location.href")).not.toContain("customToken");
  }

  it("signs a new gaming account in through the provider's page, ending on the pending page with no cookie", async () => {
    t.name = "gaming-bridge";
    const account = String(76561190000000000n + BigInt(cryptoRandom.int(0, 1_000_000_000)));
    await t.page.goto(`${ID_HOST}/?redirect=${encodeURIComponent(APP)}&project=startpage`);
    await t.visitor.reaches("Sign in");
    await t.visitor.press("Sign in with a gaming account");
    await t.page.waitForURL(/\/openid\/login/);
    await t.visitor.fill("Account number", account);
    await t.visitor.press("Sign in");
    await t.visitor.reaches("Your account is waiting for approval");
    await tokenNowhere();
    expect(await sessionCookie(t.page)).toBeNull();
    expect(await people.findByUid(db, `gaming:${account}`)).toMatchObject({ status: "pending" });
  });

  it("signs an approved person in through the federated bridge's provider (idp=search) and returns to the app they came from", async () => {
    t.name = "federated-bridge";
    const email = `${unique("fed")}@example.test`;
    await personFor({ uid: unique("uid"), email }, { projects: ["startpage"], name: "Fed Person" });
    const sub = String(cryptoRandom.int(1, 2_000_000_000));
    await t.page.goto(`${ID_HOST}/?redirect=${encodeURIComponent(APP)}&project=startpage`);
    await t.visitor.reaches("Sign in");
    await t.visitor.press("Sign in with Search");
    await t.page.waitForURL(/\/authorize\?/);
    await t.visitor.fill("Account", sub);
    await t.visitor.fill("Email", email);
    await t.visitor.press("Sign in");
    await t.page.waitForURL(APP);
    await t.page.getByText(`Signed in as ${email}.`).waitFor();
    await tokenNowhere();
    // The identity provider's account, linked to the provider's, now stands for the person who held the address.
    const person = await people.findByEmail(db, email);
    const linked = await Promise.all(
      (person?.uids ?? []).map((uid) =>
        auth()
          .getUser(uid)
          .catch(() => null),
      ),
    );
    expect(linked.flatMap((u) => u?.providerData.map((p) => [p.providerId, p.uid]) ?? [])).toContainEqual([
      "google.com",
      sub,
    ]);
  });

  it("shows the person a page of the service's when they cancel at the provider", async () => {
    t.name = "bridge-cancelled";
    await t.page.goto(`${ID_HOST}/`);
    await t.visitor.reaches("Sign in");
    await t.visitor.press("Sign in with a gaming account");
    await t.page.waitForURL(/\/openid\/login/);
    await t.visitor.press("Cancel");
    await t.visitor.reaches(/did not confirm/);
  });
});
