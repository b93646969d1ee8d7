/**
 * The service health page, in a real browser over https on the identity host: an administrator
 * goes from People to "Service health", whose tables say what GET /auth/health answered the page
 * itself (each way in's sign-ins hour by hour and in all, after sign-ins by a password, an email
 * code and the administrator's own; the email codes by outcome; code requests and sign-ins
 * refused, reason by reason); "Last 7 days" puts the period in
 * the address and a row a day in the tables, with at least the last 24 hours' sign-ins; the
 * numbers behind a chart open under it. A member is told the page is not for them, and the
 * endpoint refuses them. With the keyboard alone and on a phone's screen, checked by axe-core at
 * each state.
 *
 * @stack-project a browser reaches the stack's functions
 */
import type { Locator } from "playwright-core";
import { signInWithCustomToken } from "../support/auth";
import { ID_HOST, openSessionIn, useBrowserWorld } from "../support/browser";
import { auth, unique } from "../support/deps";
import { accountWithPerson } from "../support/people";
import { stackCookie } from "../support/stack-sessions";
import { MODES, secondVisitor, useJourneys } from "../support/visitor";

const world = useBrowserWorld();
const stackId = () => process.env.STACK_ID_URL as string;

/** What the page reads of GET /auth/health's answer. */
interface Report {
  buckets: string[];
  signIns: Array<{ way: string; counts: number[] }>;
  codes: { sent: number[]; givenUp: number[]; notNeeded: number[] };
  refused: { codes: Array<{ reason: string; counts: number[] }>; signIns: Array<{ reason: string; counts: number[] }> };
}

/** The page's table whose caption starts with `caption`: its column heads, its rows' cells, and its totals. */
async function tableOf(table: Locator): Promise<{ heads: string[]; rows: string[][]; totals: string[] }> {
  const heads = await table.locator("thead th").allTextContents();
  const rows: string[][] = [];
  for (const row of await table.locator("tbody tr").all()) rows.push(await row.locator("td").allTextContents());
  const totals = await table.locator("tfoot td").allTextContents();
  return { heads, rows, totals };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
/** The counts as the table has them: a row a bucket, a column a series, then the bucket's total. */
const asRows = (series: number[][], buckets: number) =>
  Array.from({ length: buckets }, (_, i) => {
    const cells = series.map((counts) => counts[i] ?? 0);
    return [...cells, sum(cells)].map(String);
  });
const asTotals = (series: number[][]) => {
  const totals = series.map(sum);
  return [...totals, sum(totals)].map(String);
};

describe.each(MODES)("the service health page, %s", (mode) => {
  const t = useJourneys(world, mode);

  it("shows an administrator the numbers GET /auth/health answers, over 24 hours and over 7 days", async () => {
    t.name = "health";
    const { account } = await accountWithPerson({ role: "admin", projects: ["*"], name: "Hana Health" });
    // Two others sign in: one with a password at the identity provider, one with an email code.
    const { account: byPassword } = await accountWithPerson({ projects: ["startpage"] });
    const { account: byCode } = await accountWithPerson({ projects: ["startpage"] });
    const others = await secondVisitor(world, mode);
    await openSessionIn(others.page, byPassword.idToken);
    await others.context.clearCookies();
    const codeToken = await auth().createCustomToken(byCode.uid, { sign_in_methods: ["otp"] });
    await openSessionIn(others.page, await signInWithCustomToken(codeToken));
    // And every other way in, so the tables have every column they can have (and still fit a phone).
    for (const methods of [["hwk", "user"], ["fed"], ["rec"]]) {
      await others.context.clearCookies();
      const token = await auth().createCustomToken(byCode.uid, { sign_in_methods: methods });
      await openSessionIn(others.page, await signInWithCustomToken(token));
    }
    await others.context.close();

    await openSessionIn(t.page, await signInWithCustomToken(await auth().createCustomToken(account.uid)));
    // A code asked for an address no account has: none is sent.
    const asked = await t.page.evaluate(
      async (email) =>
        (
          await fetch("/auth/otp/send", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ email, purpose: "signin" }),
          })
        ).status,
      `${unique("nobody")}@example.test`,
    );
    expect(asked).toBe(200);

    await t.page.goto(`${ID_HOST}/people`);
    await t.visitor.reaches("People");
    // The answer the page itself draws from: the stack is every test file's, so a second request
    // could count a sign-in another file made in between.
    const drawn = (window: string) =>
      t.page
        .waitForResponse((r) => r.url().endsWith(`/auth/health?window=${window}`) && r.status() === 200)
        .then(async (r) => (await r.json()) as Report);
    const dayAnswer = drawn("24h");
    await t.visitor.press("Service health");
    await t.visitor.reaches("Service health");
    const status = t.page.getByRole("status").filter({ hasText: /^Last 24 hours: from/ });
    await status.waitFor();
    expect(t.page.url()).toBe(`${ID_HOST}/health`);
    await t.visitor.audit();

    const table = (caption: string) =>
      t.page.locator("table.numbers").filter({ has: t.page.locator("caption", { hasText: caption }) });
    const signIns = table("Sign-ins by way in");
    const codes = table("Email codes");

    const day = await dayAnswer;
    expect(day.buckets).toHaveLength(24);
    const ways = day.signIns.map((s) => s.counts);
    const shown = await tableOf(signIns);
    expect(shown.heads).toEqual(expect.arrayContaining(["Hour", "Password", "Email code", "Other", "All"]));
    expect(shown.heads).toHaveLength(day.signIns.length + 2);
    expect(shown.rows).toEqual(asRows(ways, 24));
    expect(shown.totals).toEqual(asTotals(ways));
    // Each way's total beside its name in the legend, and the chart's summary names them.
    const legend = (await t.page.locator(".legend").first().textContent()) ?? "";
    expect(legend).toContain(`Password: ${sum(day.signIns.find((s) => s.way === "password")?.counts ?? [])}`);
    const chart = t.page.getByRole("img", { name: /^Sign-ins by way in, last 24 hours: \d+ in all/ });
    expect(await chart.count()).toBe(1);

    const outcomes = [day.codes.sent, day.codes.givenUp, day.codes.notNeeded];
    const shownCodes = await tableOf(codes);
    expect(shownCodes.heads).toEqual(["Hour", "Sent", "Given up", "Not needed", "All"]);
    expect(shownCodes.rows).toEqual(asRows(outcomes, 24));
    expect(shownCodes.totals).toEqual(asTotals(outcomes));

    // The refusals counted as they happened, reason by reason, as the answer has them (the stack is
    // every file's: whatever it counted by then, none included).
    for (const [caption, series] of [
      ["Code requests refused", day.refused.codes],
      ["Sign-ins refused", day.refused.signIns],
    ] as const) {
      const refused = await tableOf(table(caption));
      expect(refused.heads).toHaveLength(series.length + 2);
      expect(refused.rows).toEqual(
        asRows(
          series.map((r) => r.counts),
          24,
        ),
      );
      expect(refused.totals).toEqual(asTotals(series.map((r) => r.counts)));
    }

    // The last 24 hours, as an administrator sees them (the journey ends on the last 7 days).
    await t.visitor.screenshot("health-24h");

    // Seven days: in the address, a row a day, the same sign-ins in all.
    await t.visitor.choose("Period", "Last 7 days");
    const weekAnswer = drawn("7d");
    await t.visitor.press("Show");
    await t.page
      .getByRole("status")
      .filter({ hasText: /^Last 7 days: from/ })
      .waitFor();
    expect(t.page.url()).toBe(`${ID_HOST}/health?window=7d`);
    const week = await weekAnswer;
    expect(week.buckets).toHaveLength(7);
    const weekShown = await tableOf(signIns);
    expect(weekShown.heads[0]).toBe("Day");
    expect(weekShown.rows).toHaveLength(7);
    expect(weekShown.rows).toEqual(
      asRows(
        week.signIns.map((s) => s.counts),
        7,
      ),
    );
    // At least the last 24 hours' sign-ins, way by way (others' may have come since).
    const weekTotals = asTotals(week.signIns.map((s) => s.counts));
    expect(weekShown.totals).toEqual(weekTotals);
    for (const s of day.signIns)
      expect(sum(week.signIns.find((w) => w.way === s.way)?.counts ?? [])).toBeGreaterThanOrEqual(sum(s.counts));
    expect((await tableOf(codes)).rows).toHaveLength(7);
    await t.visitor.audit();

    // Reloaded, the page keeps the period the address names.
    await t.page.reload();
    await t.visitor.reaches("Service health");
    await t.page
      .getByRole("status")
      .filter({ hasText: /^Last 7 days: from/ })
      .waitFor();
    expect(await t.page.getByLabel("Period", { exact: true }).inputValue()).toBe("7d");

    // The numbers behind the sign-ins chart, opened under it.
    const numbers = t.page.locator("summary").first();
    if (mode === "phone") await numbers.tap();
    else {
      await numbers.focus();
      await t.page.keyboard.press("Enter");
    }
    await signIns.waitFor({ state: "visible" });
    await t.visitor.audit();
  }, 120_000);

  it("tells a member it is not for them", async () => {
    t.name = "health-member";
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    await openSessionIn(t.page, await signInWithCustomToken(await auth().createCustomToken(account.uid)));
    await t.page.goto(`${ID_HOST}/health`);
    await t.visitor.reaches("You need to be an administrator");
    const asked = await fetch(`${stackId()}/auth/health?window=24h`, {
      headers: { cookie: await stackCookie(account.uid) },
    });
    expect(asked.status).toBe(403);
  }, 120_000);
});
