/**
 * The audit trail's page, in a real browser over https on the identity host: an administrator's
 * approval of a person, made through the API, shows as one record naming what changed and who did
 * it; filtered by whom it was about, it is the only one; the CSV the page offers opens as columns.
 * A member is told the page is not for them, and their asking is itself a refusal on the trail.
 * With the keyboard alone and on a phone's screen, checked by axe-core.
 *
 * @stack-project a browser reaches the stack's functions
 */
import { signInWithCustomToken } from "../support/auth";
import { ID_HOST, openSessionIn, useBrowserWorld } from "../support/browser";
import { auth } from "../support/deps";
import { accountWithPerson } from "../support/people";
import { stackCookie } from "../support/stack-sessions";
import { MODES, useJourneys } from "../support/visitor";

const world = useBrowserWorld();
const stackId = () => process.env.STACK_ID_URL as string;

describe.each(MODES)("the audit trail's page, %s", (mode) => {
  const t = useJourneys(world, mode);

  it("shows an administrator's approval, filters to the person it was about, and offers it as CSV", async () => {
    t.name = "audit";
    const { account, person: admin } = await accountWithPerson({ role: "admin", projects: ["*"], name: "Ava Auditor" });
    const { person: waiting } = await accountWithPerson({ status: "pending", projects: [], name: "Will Waiting" });
    const approved = await fetch(`${stackId()}/auth/people/review`, {
      method: "POST",
      headers: { cookie: await stackCookie(account.uid), "content-type": "application/json" },
      body: JSON.stringify({ personIds: [waiting.id], status: "approved" }),
    });
    expect(approved.status).toBe(200);

    await openSessionIn(t.page, await signInWithCustomToken(await auth().createCustomToken(account.uid)));
    await t.page.goto(`${ID_HOST}/people`);
    await t.visitor.reaches("People");
    await t.visitor.press("Audit trail");
    await t.visitor.reaches("Audit trail");
    await t.visitor.fill("About whom", waiting.id);
    await t.visitor.press("Show");
    const records = t.page.locator("ul.entries > li");
    await t.page.getByRole("status").filter({ hasText: "1 record." }).waitFor();
    expect(await records.count()).toBe(1);
    const said = (await records.first().textContent()) ?? "";
    expect(said).toContain("Changed a person");
    expect(said).toContain(`Administrator ${admin.id}`);
    expect(said).toContain("Status: pending → approved");
    expect(said).not.toContain("Will Waiting");
    expect(t.page.url()).toContain(`person=${waiting.id}`);
    await t.visitor.audit();

    // The download: the same record, as columns a spreadsheet opens.
    const href = (await t.page.getByRole("link", { name: "Download as CSV" }).getAttribute("href")) as string;
    // Fetched by the page itself, as the link's download is: same origin, with its session.
    const csv = await t.page.evaluate(async (address) => {
      const res = await fetch(address);
      return { type: res.headers.get("content-type") ?? "", text: await res.text() };
    }, href);
    expect(csv.type).toMatch(/^text\/csv/);
    const lines = csv.text.split("\r\n");
    expect(lines[0]).toBe('"at","actor","action","subjects","outcome","via","detail","trace","id"');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`"admin:${admin.id}","person.changed","${waiting.id}","done"`);
  }, 120_000);

  it("tells a member it is not for them, and records that they asked", async () => {
    t.name = "audit-member";
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    await openSessionIn(t.page, await signInWithCustomToken(await auth().createCustomToken(account.uid)));
    await t.page.goto(`${ID_HOST}/audit`);
    await t.visitor.reaches("You need to be an administrator");
    const asked = await fetch(`${stackId()}/auth/audit`, { headers: { cookie: await stackCookie(account.uid) } });
    expect(asked.status).toBe(403);

    const { account: admin } = await accountWithPerson({ role: "admin", projects: ["*"] });
    const trail = await fetch(`${stackId()}/auth/audit?actor=person:${person.id}`, {
      headers: { cookie: await stackCookie(admin.uid) },
    });
    const { records } = (await trail.json()) as { records: Array<{ kind: string; detail: { route: string } }> };
    expect(records).toEqual([
      expect.objectContaining({ kind: "refusal", detail: expect.objectContaining({ route: "/auth/audit" }) }),
    ]);
  }, 120_000);
});
