/**
 * 6, Monday morning: a thousand people of one company, all behind one client address (so one
 * network) and all at the company's domain, ask for sign-in codes ten at a time, and each of the
 * ten signs in with the code the moment it is mailed, before the next ten ask, the groups no
 * closer than 290 sends a minute (GROUP_EVERY_MS). A used code stops
 * counting against where it was asked from and sent to, and earns room for one more, so the
 * client, network and domain budgets should refuse none of them, as long as the office sends
 * fewer than half the service's minute (300) in any minute, used codes or not (TOTAL_SHARE). The
 * service's minute counts every send, used or not: it starts empty (the scenario waits until
 * earlier sends have left it).
 */
import { service } from "../lib/functions.ts";
import { call, firstUnavailable, now, percentile, type Answer } from "./measure.ts";
import { busiestMinute, budgetKey, freshMinute, ledger, serviceKey } from "./ledger.ts";
import { check, count, send, settle, snapshot, summary, type Context, type Result } from "./context.ts";

const { DEFAULTS } = service<{ DEFAULTS: Record<string, string> }>("config/defaults");
const { systemClock } = service<any>("clock");

export const OFFICE = {
  people: 1000,
  width: 10,
  ip: "10.60.0.9",
  address: (i: number) => `employee-${i}@acme-office.example`,
};

const perMinute = Number(DEFAULTS.OTP_SENDS_PER_MINUTE);
const { TOTAL_SHARE } = service<{ TOTAL_SHARE: number }>("core/email-codes/budget-rules");
/**
 * The office's groups start no closer than this: 290 sends a minute, just inside what one network
 * may send in any minute (TOTAL_SHARE of the service's minute, 300), which no office of people
 * outruns (1,000 of them in three and a half minutes). The official emulator is slower than that.
 */
const GROUP_EVERY_MS = (60_000 * OFFICE.width) / (Math.ceil(perMinute * TOTAL_SHARE) - 10);

/** Budgets of where the sends came from and went: none of them should refuse people who use their codes. */
const OFFICE_REFUSALS = ["client_budget", "domain_budget"];

export async function mondayMorning(ctx: Context): Promise<Result> {
  const waited = await freshMinute(ctx);
  await ctx.inbox.clear();
  const since = systemClock.now();
  const before = snapshot(ctx.svc);
  const t = now();
  const sends: Answer[] = [];
  const signIns: Answer[] = [];
  let unmailed = 0;
  let extraMails = 0;
  /** Where the time went: asking, waiting for the mails, signing in (ms, summed over the groups). */
  const spent = { asking: 0, mail: 0, signingIn: 0 };
  for (let first = 0; first < OFFICE.people; first += OFFICE.width) {
    const group = Array.from({ length: Math.min(OFFICE.width, OFFICE.people - first) }, (_, k) =>
      OFFICE.address(first + k),
    );
    const startAt = t + (first / OFFICE.width) * GROUP_EVERY_MS;
    if (now() < startAt) await new Promise((resolve) => setTimeout(resolve, startAt - now()));
    const asked = now();
    const answers = await Promise.all(group.map((a) => send(ctx, a, OFFICE.ip)));
    sends.push(...answers);
    const sent = group.filter((_, k) => answers[k]?.status === 200);
    const mailed = now();
    const { codes, mails } = await ctx.inbox.codesFor(sent, 30_000);
    unmailed += sent.length - codes.size;
    extraMails += mails - codes.size;
    await ctx.inbox.clear();
    const signing = now();
    spent.asking += mailed - asked;
    spent.mail += signing - mailed;
    const used = await Promise.all(
      [...codes].map(([email, otp]) =>
        call(ctx.svc.base, "POST", "/auth/otp/sign-in", {
          body: { email, otp },
          headers: { "x-forwarded-for": OFFICE.ip },
        }),
      ),
    );
    signIns.push(...used);
    spent.signingIn += now() - signing;
  }
  const elapsedMs = now() - t;
  await settle(ctx.svc);
  const wallMs = now() - t;
  const office = await ledger(ctx, since, { scope: "client", key: budgetKey(ctx, "client", OFFICE.ip) });
  const busiest = busiestMinute((await ledger(ctx, since, serviceKey(ctx))).map((s) => s.at));
  const ok = count(sends, 200);
  const refusedBy = (reason: string) => sends.filter((a) => a.status === 429 && a.reason === reason).length;
  const officeRefused = OFFICE_REFUSALS.reduce((n, r) => n + refusedBy(r), 0);
  const signedIn = signIns.filter((a) => a.status === 200 && typeof a.body?.customToken === "string").length;
  const rightRefused = signIns.filter((a) => a.status >= 400 && a.status < 500).length;
  const usedStored = office.filter((s) => s.used === 1).length;
  const refusedService = refusedBy("service_budget");
  const result = summary(
    {
      id: "6",
      title: `Monday morning: ${OFFICE.people} people of one office (one client address, one domain) ask ${OFFICE.width} at a time, each signs in`,
      expected: `all ${OFFICE.people}, no budget refusal`,
    },
    sends,
    ok,
    ok === OFFICE.people,
    before,
    snapshot(ctx.svc),
    [
      check(
        "none refused by the office's budgets",
        officeRefused === 0,
        `${officeRefused} refused by the client or domain budget`,
        false,
      ),
      check(
        "none refused by the service's minute",
        refusedService === 0,
        `${refusedService} refused by the service's budget, its busiest minute holding ${busiest} sends (budget ${perMinute})`,
        false,
      ),
      check("the service's minute held", busiest <= perMinute, `busiest minute ${busiest} sends`),
      check("every code sent was mailed", unmailed === 0, `${unmailed} not delivered within 30 s`, false),
      check("each code mailed once", extraMails === 0, `${extraMails} mails more than codes`),
      check(
        "every right code signs in",
        rightRefused === 0,
        `${rightRefused} sign-ins refused with the mailed code (${signedIn} of ${signIns.length} signed in)`,
      ),
      check(
        "every use recorded in the ledger",
        usedStored === signedIn && office.length >= ok,
        `${office.length} sends recorded for ${ok} answered 200, ${usedStored} marked used for ${signedIn} sign-ins`,
      ),
    ],
    wallMs,
  );
  const facts = {
    waitedS: waited / 1000,
    elapsedS: elapsedMs / 1000,
    sendsPerS: sends.length / (elapsedMs / 1000),
    signedIn,
    signInP50: percentile(
      signIns.map((a) => a.ms),
      50,
    ),
    refusedService,
    officeRefused,
    busiest,
    askingS: spent.asking / 1000,
    mailS: spent.mail / 1000,
    signingInS: spent.signingIn / 1000,
  };
  return { ...result, first503: firstUnavailable(sends), facts };
}
