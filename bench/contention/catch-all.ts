/**
 * 10, the catch-all attacker: whoever owns a domain that takes every address reads every
 * request-access code mailed there, verifies each one, and so adds a pending person to the
 * reviewers' queue with each. Requests for access have bounds of their own, which count every
 * request and which nothing earns back (budget-rules.ts): the attacker is held to its client's
 * (10a: one address, at most OTP_SENDS_PER_CLIENT_HOUR people in the queue) and its network's
 * (10b: every address of one /24, REQUEST_NETWORK_CLIENTS times that, asked at a pace its
 * network's minute lets through). 10c (earn-back.ts) mints sign-in codes for its pending people
 * besides. Meanwhile people of other networks sign in with their codes, and none of them is
 * refused by the service's budget.
 */
import { service } from "../lib/functions.ts";
import { call, firstUnavailable, now, type Answer } from "./measure.ts";
import { budgetKey, freshMinute, ledger } from "./ledger.ts";
import { check, count, send, settle, snapshot, summary, type Context, type Result } from "./context.ts";

const { DEFAULTS } = service<{ DEFAULTS: Record<string, string> }>("config/defaults");
const { REQUEST_NETWORK_CLIENTS } = service<{ REQUEST_NETWORK_CLIENTS: number }>("core/email-codes/budget-rules");
const { systemClock } = service<any>("clock");

export const perClientHour = Number(DEFAULTS.OTP_SENDS_PER_CLIENT_HOUR);
const perNetwork = REQUEST_NETWORK_CLIENTS * perClientHour;

export const CATCH_ALL = {
  /** Asked for by each attacker: twice its client's bound; its network's and a quarter more. */
  tries: { client: 2 * perClientHour, network: Math.ceil(1.25 * perNetwork) },
  width: 5,
  /** 10b asks five every 12 s, 25 a minute: inside what one network may ask in a minute (30). */
  networkPaceMs: 12_000,
  client: "10.80.0.9",
  /** 10b: a different client of one /24 for each request. */
  network: (i: number) => `10.81.0.${(i % 250) + 1}`,
  block: "10.81.0.0/24",
  address: (part: string, i: number) => `applicant-${part}-${i}@catch-all.example`,
};

/** Approved people of other networks (one /24 each), signing in while the attacker works. */
export const NEIGHBOURS = {
  people: 50,
  width: 10,
  ip: (i: number) => `10.90.${i}.7`,
  address: (i: number) => `neighbour-${i}@neighbours.example`,
};

export const pending = async (ctx: Context): Promise<number> =>
  (await ctx.svc.store.collection("people").where("status", "==", "pending").count().get()).data().count as number;

interface Attack {
  sends: Answer[];
  verifies: Answer[];
  unmailed: number;
}

/**
 * Asks `tries` request-access codes, `width` at a time from `ip(i)` (a group every `paceMs` at
 * most), and verifies each one mailed.
 */
export async function attack(
  ctx: Context,
  part: string,
  tries: number,
  ip: (i: number) => string,
  paceMs = 0,
): Promise<Attack> {
  const out: Attack = { sends: [], verifies: [], unmailed: 0 };
  const t = now();
  for (let first = 0; first < tries; first += CATCH_ALL.width) {
    const startAt = t + (first / CATCH_ALL.width) * paceMs;
    if (now() < startAt) await new Promise((resolve) => setTimeout(resolve, startAt - now()));
    const group = Array.from({ length: Math.min(CATCH_ALL.width, tries - first) }, (_, k) => first + k);
    const answers = await Promise.all(group.map((i) => send(ctx, CATCH_ALL.address(part, i), ip(i), "request-access")));
    out.sends.push(...answers);
    const sent = group.filter((_, k) => answers[k]?.status === 200).map((i) => CATCH_ALL.address(part, i));
    if (sent.length === 0) continue;
    const { codes } = await ctx.inbox.codesFor(sent, 30_000);
    out.unmailed += sent.length - codes.size;
    const verified = await Promise.all(
      [...codes].map(([email, otp], k) =>
        call(ctx.svc.base, "POST", "/auth/otp/verify", {
          body: { email, otp, purpose: "request-access", name: `Applicant ${part}${k}` },
          headers: { "x-forwarded-for": ip(first + k) },
        }),
      ),
    );
    out.verifies.push(...verified);
  }
  return out;
}

/** The neighbours ask for sign-in codes, ten at a time, and sign in with each as it comes. */
export async function neighbours(ctx: Context): Promise<{ sends: Answer[]; signedIn: number }> {
  const n = NEIGHBOURS;
  const sends: Answer[] = [];
  let signedIn = 0;
  for (let first = 0; first < n.people; first += n.width) {
    const group = Array.from({ length: Math.min(n.width, n.people - first) }, (_, k) => first + k);
    const answers = await Promise.all(group.map((i) => send(ctx, n.address(i), n.ip(i))));
    sends.push(...answers);
    const sent = group.filter((_, k) => answers[k]?.status === 200);
    const { codes } = await ctx.inbox.codesFor(
      sent.map((i) => n.address(i)),
      30_000,
    );
    const used = await Promise.all(
      sent
        .filter((i) => codes.has(n.address(i)))
        .map((i) =>
          call(ctx.svc.base, "POST", "/auth/otp/sign-in", {
            body: { email: n.address(i), otp: codes.get(n.address(i)) },
            headers: { "x-forwarded-for": n.ip(i) },
          }),
        ),
    );
    signedIn += used.filter((a) => a.status === 200 && typeof a.body?.customToken === "string").length;
  }
  return { sends, signedIn };
}

export const refusedBy = (answers: Answer[], reason: string) =>
  answers.filter((a) => a.status === 429 && a.reason === reason).length;

export async function catchAllAttacker(ctx: Context): Promise<Result[]> {
  const waited = await freshMinute(ctx);
  const results: Result[] = [];
  const parts = [
    {
      id: "10a",
      part: "c",
      tries: CATCH_ALL.tries.client,
      ip: () => CATCH_ALL.client,
      paceMs: 0,
      bound: perClientHour,
      budget: { scope: "requestClient", subject: CATCH_ALL.client },
      title: `catch-all attacker, one client: ${CATCH_ALL.tries.client} request-access codes to fresh addresses at its own domain, each verified, while ${NEIGHBOURS.people} people of other networks sign in`,
      expected: `${perClientHour} let through, OTP_SENDS_PER_CLIENT_HOUR=${perClientHour}`,
    },
    {
      id: "10b",
      part: "n",
      tries: CATCH_ALL.tries.network,
      ip: CATCH_ALL.network,
      paceMs: CATCH_ALL.networkPaceMs,
      bound: perNetwork,
      budget: { scope: "requestNetwork", subject: CATCH_ALL.block },
      title: `catch-all attacker, a client per request across one /24: ${CATCH_ALL.tries.network} request-access codes, 25 a minute, each verified, while ${NEIGHBOURS.people} people of other networks sign in`,
      expected: `${perNetwork} let through (REQUEST_NETWORK_CLIENTS × OTP_SENDS_PER_CLIENT_HOUR)`,
    },
  ];
  for (const p of parts) {
    if (p.id === "10b") await freshMinute(ctx);
    // The neighbours sign in again in 10b: the inbox holds only this part's codes.
    await ctx.inbox.clear();
    const since = systemClock.now();
    const queued = await pending(ctx);
    const before = snapshot(ctx.svc);
    const t = now();
    const [attacker, others] = await Promise.all([attack(ctx, p.part, p.tries, p.ip, p.paceMs), neighbours(ctx)]);
    await settle(ctx.svc);
    const wallMs = now() - t;
    const grown = (await pending(ctx)) - queued;
    const recorded = await ledger(ctx, since, {
      scope: p.budget.scope,
      key: budgetKey(ctx, p.budget.scope, p.budget.subject),
    });
    const ok = count(attacker.sends, 200);
    const verified = count(attacker.verifies, 200);
    const refusedService = refusedBy(others.sends, "service_budget") + refusedBy(attacker.sends, "service_budget");
    const refusedRequests = refusedBy(attacker.sends, "request_budget");
    const result = summary(
      { id: p.id, title: p.title, expected: p.expected },
      [...attacker.sends, ...attacker.verifies, ...others.sends],
      ok,
      ok === p.bound,
      before,
      snapshot(ctx.svc),
      [
        check(
          "the attacker held to its bound",
          recorded.length <= p.bound && ok <= p.bound,
          `${recorded.length} of its requests recorded, ${ok} answered 200 (bound ${p.bound})`,
        ),
        check(
          "refused by the request budget beyond it",
          refusedRequests === attacker.sends.length - ok,
          `${refusedRequests} refused by the request budget, ${attacker.sends.length - ok} not let through`,
          false,
        ),
        check(
          "the queue grew by no more than was let through",
          grown <= ok && grown === verified,
          `${grown} pending people added, ${verified} codes verified, ${ok} sent`,
        ),
        check(
          "the neighbours all signed in",
          others.signedIn === NEIGHBOURS.people,
          `${others.signedIn} of ${NEIGHBOURS.people} signed in`,
          false,
        ),
        check("none refused by the service's minute", refusedService === 0, `${refusedService} refused`),
        check(
          "every code let through was mailed",
          attacker.unmailed === 0,
          `${attacker.unmailed} not within 30 s`,
          false,
        ),
      ],
      wallMs,
    );
    const facts = {
      waitedS: waited / 1000,
      tries: attacker.sends.length,
      accepted: ok,
      verified,
      queueGrown: grown,
      neighboursSignedIn: others.signedIn,
      refusedService,
      elapsedS: wallMs / 1000,
    };
    results.push({ ...result, first503: firstUnavailable(attacker.sends), facts });
  }
  await ctx.inbox.clear();
  return results;
}
