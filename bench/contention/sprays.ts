/**
 * Sprays: sign-in codes asked for addresses on no account (no mail goes; the code is issued all
 * the same, so the answer says nothing), whose codes are never used. 7: from one client address
 * to one domain, as fast as it goes, held to the client's budget. 8: from 500 networks to many
 * domains, more than the service's minute allows, held to that minute, which it starts with
 * empty (it waits until earlier sends have left it). What was let through is read back from the
 * ledger and the codes issued.
 */
import { service } from "../lib/functions.ts";
import { burst, firstUnavailable, now, type Answer } from "./measure.ts";
import { added, busiestMinute, budgetKey, freshMinute, ledger, serviceKey } from "./ledger.ts";
import { check, count, send, settle, snapshot, summary, type Context, type Result } from "./context.ts";

const { DEFAULTS } = service<{ DEFAULTS: Record<string, string> }>("config/defaults");
const { systemClock } = service<any>("clock");

const perClientHour = Number(DEFAULTS.OTP_SENDS_PER_CLIENT_HOUR);
const perMinute = Number(DEFAULTS.OTP_SENDS_PER_MINUTE);

export const SPRAY = {
  sends: 10_000,
  /** No send starts after this: every send past the budget takes the same refusal path. */
  limitMs: 60_000,
  width: 20,
  ip: "10.70.0.9",
  address: (i: number) => `nobody-${i}@spray-target.example`,
};

export const DISTRIBUTED = {
  sends: 1_500,
  limitMs: 90_000,
  networks: 500,
  domains: 250,
  width: 20,
  /** Each network a /24 of its own, one client in it. */
  ip: (i: number) => {
    const n = i % 500;
    return `10.${100 + Math.floor(n / 256)}.${n % 256}.7`;
  },
  address: (i: number) => `nobody-${i}@d${i % 250}.spread.example`,
};

/** Refusals by their reason, e.g. `client_budget ×9980`. */
const refusals = (answers: Answer[]): Map<string, number> => {
  const by = new Map<string, number>();
  for (const a of answers.filter((x) => x.status === 429)) by.set(a.reason, (by.get(a.reason) ?? 0) + 1);
  return by;
};

/**
 * The answers' times (ms on the run's clock) of the sends let through. A send is counted at the
 * time the service recorded it, which its answer follows by up to its latency: a minute of
 * answers can hold a few more than any minute of the ledger.
 */
const acceptedAt = (answers: Answer[]) => answers.filter((a) => a.status === 200).map((a) => a.start + a.ms);

/** 7: one client address sprays one domain; accepted must be exactly its hourly budget, never more. */
export async function sprayOneNetwork(ctx: Context): Promise<Result> {
  const since = systemClock.now();
  const before = snapshot(ctx.svc);
  const t = now();
  const [answers, codes] = await added(ctx, "emailCodes", async () => {
    const stopAt = now() + SPRAY.limitMs;
    const list = await burst(SPRAY.sends, SPRAY.width, (i) => send(ctx, SPRAY.address(i), SPRAY.ip), stopAt);
    await settle(ctx.svc);
    return list;
  });
  const wallMs = now() - t;
  const recorded = (await ledger(ctx, since, { scope: "client", key: budgetKey(ctx, "client", SPRAY.ip) })).length;
  const ok = count(answers, 200);
  const refused = refusals(answers);
  const other = [...refused].filter(([r]) => r !== "client_budget").reduce((n, [, k]) => n + k, 0);
  const result = summary(
    {
      id: "7",
      title: `spray from one network: up to ${SPRAY.sends.toLocaleString("en")} sends in ${SPRAY.limitMs / 1000} s, ${SPRAY.width} at a time, from one client address to addresses on no account at one domain`,
      expected: `exactly ${perClientHour}, OTP_SENDS_PER_CLIENT_HOUR=${perClientHour}`,
    },
    answers,
    ok,
    ok === perClientHour,
    before,
    snapshot(ctx.svc),
    [
      check("no overshoot", ok <= perClientHour, `${ok} answered 200 (overshoot ${ok - perClientHour})`),
      check(
        "the ledger holds no more than the budget",
        recorded <= perClientHour,
        `${recorded} sends of the client recorded`,
      ),
      check(
        "a code for each send let through, and none for a refused one",
        codes === recorded && codes >= ok,
        `${codes} codes issued, ${recorded} sends recorded, ${ok} answered 200`,
      ),
      check("refused by the client's budget only", other === 0, `${other} refused for another reason`, false),
    ],
    wallMs,
  );
  const facts = {
    sends: answers.length,
    accepted: ok,
    overshoot: ok - perClientHour,
    recorded,
    codes,
    clientRefused: refused.get("client_budget") ?? 0,
    otherRefused: other,
    elapsedS: wallMs / 1000,
  };
  return { ...result, first503: firstUnavailable(answers), facts };
}

/** 8: 500 networks spray many domains, more than the service's minute: at most 600 in any minute. */
export async function distributedSpray(ctx: Context): Promise<Result> {
  const d = DISTRIBUTED;
  const waited = await freshMinute(ctx);
  const since = systemClock.now();
  const before = snapshot(ctx.svc);
  const t = now();
  const [answers, codes] = await added(ctx, "emailCodes", async () => {
    const stopAt = now() + d.limitMs;
    const list = await burst(d.sends, d.width, (i) => send(ctx, d.address(i), d.ip(i)), stopAt);
    await settle(ctx.svc);
    return list;
  });
  const wallMs = now() - t;
  // Every send of this service counts towards its minute, whichever scenario made it.
  const recorded = await ledger(ctx, new Date(since.getTime() - 60_000), serviceKey(ctx));
  const ours = recorded.filter((s) => s.at > since.getTime()).length;
  const byLedger = busiestMinute(recorded.map((s) => s.at));
  const byAnswers = busiestMinute(acceptedAt(answers));
  const ok = count(answers, 200);
  const refused = refusals(answers);
  const other = [...refused].filter(([r]) => r !== "service_budget").reduce((n, [, k]) => n + k, 0);
  const result = summary(
    {
      id: "8",
      title: `distributed spray: up to ${d.sends.toLocaleString("en")} sends in ${d.limitMs / 1000} s, ${d.width} at a time, from ${d.networks} networks to addresses on no account at ${d.domains} domains`,
      expected: `at most ${perMinute} in any minute, OTP_SENDS_PER_MINUTE=${perMinute}`,
    },
    answers,
    ok,
    byLedger <= perMinute,
    before,
    snapshot(ctx.svc),
    [
      check(
        "the service's minute held",
        byLedger <= perMinute,
        `busiest minute ${byLedger} sends in the ledger, ${byAnswers} by the answers' times`,
      ),
      check(
        "a code for each send let through, and none for a refused one",
        codes === ours && codes >= ok,
        `${codes} codes issued, ${ours} sends recorded, ${ok} answered 200`,
      ),
      check("refused by the service's budget only", other === 0, `${other} refused for another reason`, false),
    ],
    wallMs,
  );
  const facts = {
    waitedS: waited / 1000,
    sends: answers.length,
    accepted: ok,
    byLedger,
    byAnswers,
    serviceRefused: refused.get("service_budget") ?? 0,
    otherRefused: other,
    elapsedS: wallMs / 1000,
  };
  return { ...result, first503: firstUnavailable(answers), facts };
}
