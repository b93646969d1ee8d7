/**
 * 10c, the earn-back attacker: the catch-all attacker of 10a, from one client, which also mints
 * sign-in codes of its own to spend. Each pending person it made is an address on a person, so a
 * sign-in code is mailed there; the attacker reads it and verifies it, and tries to sign in with it
 * (refused: the person is pending). A code earns its client room only once it signs an approved
 * person in, so none of these earns anything, and the requests for access have a bound of their
 * own besides: at most OTP_SENDS_PER_CLIENT_HOUR new people in the queue, however it paces its
 * requests. It asks five requests every ten seconds, and a sign-in code for each pending person a
 * minute after it was asked for (an address takes one code a minute), for ROUNDS rounds.
 * Meanwhile people of other networks sign in with their codes.
 */
import { call, firstUnavailable, now, type Answer } from "./measure.ts";
import { budgetKey, freshMinute, ledger } from "./ledger.ts";
import { attack, NEIGHBOURS, neighbours, pending, perClientHour, refusedBy } from "./catch-all.ts";
import { check, count, send, settle, snapshot, summary, type Context, type Result } from "./context.ts";
import { service } from "../lib/functions.ts";

const { systemClock } = service<any>("clock");

export const EARN_BACK = {
  client: "10.82.0.9",
  rounds: 12,
  everyMs: 10_000,
  /** An address takes one code a minute: the sign-in code follows its request this long after. */
  followMs: 61_000,
};

/** The lead of a sign-in code's mail (core/email-codes/code-mail), to tell it from the request's. */
const SIGN_IN_LEAD = "Your sign-in code is";

interface Minted {
  sends: Answer[];
  verifies: Answer[];
  signIns: Answer[];
}

/** A sign-in code to each of `addresses` (pending people of the attacker's): each verified, then tried. */
async function mint(ctx: Context, addresses: string[], out: Minted): Promise<void> {
  const ip = EARN_BACK.client;
  const answers = await Promise.all(addresses.map((a) => send(ctx, a, ip)));
  out.sends.push(...answers);
  const sent = addresses.filter((_, k) => answers[k]?.status === 200);
  const { codes } = await ctx.inbox.codesFor(sent, 30_000, SIGN_IN_LEAD);
  for (const [email, otp] of codes) {
    const headers = { "x-forwarded-for": ip };
    out.verifies.push(await call(ctx.svc.base, "POST", "/auth/otp/verify", { body: { email, otp }, headers }));
    out.signIns.push(await call(ctx.svc.base, "POST", "/auth/otp/sign-in", { body: { email, otp }, headers }));
  }
}

/** The rounds: requests for access (verified, as 10a's), and sign-in codes for the people they made. */
async function earnBack(ctx: Context) {
  const requests = { sends: [] as Answer[], verifies: [] as Answer[], unmailed: 0 };
  const minted: Minted = { sends: [], verifies: [], signIns: [] };
  const made: Array<{ address: string; at: number }> = [];
  const t = now();
  for (let round = 0; round <= EARN_BACK.rounds; round++) {
    const startAt = t + round * EARN_BACK.everyMs;
    if (now() < startAt) await new Promise((resolve) => setTimeout(resolve, startAt - now()));
    const ready = made.filter((m) => now() - m.at >= EARN_BACK.followMs);
    made.splice(0, ready.length);
    if (ready.length > 0)
      await mint(
        ctx,
        ready.map((m) => m.address),
        minted,
      );
    if (round === EARN_BACK.rounds) break;
    const asked = await attack(ctx, `e${round}`, 5, () => EARN_BACK.client);
    requests.sends.push(...asked.sends);
    requests.verifies.push(...asked.verifies);
    requests.unmailed += asked.unmailed;
    const askedAt = now();
    asked.sends.forEach(
      (a, k) => a.status === 200 && made.push({ address: `applicant-e${round}-${k}@catch-all.example`, at: askedAt }),
    );
  }
  // The last requests' people get their sign-in codes too.
  const last = made.at(-1);
  if (last !== undefined) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, last.at + EARN_BACK.followMs - now())));
    await mint(
      ctx,
      made.map((m) => m.address),
      minted,
    );
  }
  return { requests, minted };
}

export async function earnBackAttacker(ctx: Context): Promise<Result> {
  const waited = await freshMinute(ctx);
  await ctx.inbox.clear();
  const since = systemClock.now();
  const queued = await pending(ctx);
  const before = snapshot(ctx.svc);
  const t = now();
  const [attacker, others] = await Promise.all([earnBack(ctx), neighbours(ctx)]);
  await settle(ctx.svc);
  const wallMs = now() - t;
  const grown = (await pending(ctx)) - queued;
  const { requests, minted } = attacker;
  const signInCodes = await ledger(ctx, since, { scope: "client", key: budgetKey(ctx, "client", EARN_BACK.client) });
  const earned = signInCodes.filter((s) => s.used === 1).length;
  const ok = count(requests.sends, 200);
  const verified = count(requests.verifies, 200);
  const mintedOk = count(minted.sends, 200);
  const mintedValid = count(minted.verifies, 200);
  const refusedService = refusedBy(others.sends, "service_budget") + refusedBy(requests.sends, "service_budget");
  const tries = requests.sends.length;
  const result = summary(
    {
      id: "10c",
      title: `earn-back attacker, one client: ${tries} request-access codes at its own domain, each verified, and a sign-in code for each pending person it made, verified and tried, while ${NEIGHBOURS.people} people of other networks sign in`,
      expected: `${perClientHour} let through, OTP_SENDS_PER_CLIENT_HOUR=${perClientHour}`,
    },
    [...requests.sends, ...requests.verifies, ...minted.sends, ...minted.verifies, ...minted.signIns, ...others.sends],
    ok,
    ok === perClientHour,
    before,
    snapshot(ctx.svc),
    [
      check(
        "the queue held to the client's bound",
        grown <= perClientHour && grown === verified,
        `${grown} pending people added (bound ${perClientHour}), ${verified} requests verified, ${ok} let through`,
      ),
      check(
        "no sign-in code of a pending person earned room",
        earned === 0,
        `${earned} of the client's ${signInCodes.length} sign-in codes marked used; ${mintedValid} verified`,
      ),
      check(
        "each minted code was right, and signed nobody in",
        minted.signIns.every((a) => a.status === 403) && mintedValid === count(minted.signIns, 403),
        `${mintedOk} sign-in codes sent, ${mintedValid} verified, ${count(minted.signIns, 403)} sign-ins refused as pending`,
        false,
      ),
      check(
        "the neighbours all signed in",
        others.signedIn === NEIGHBOURS.people,
        `${others.signedIn} of ${NEIGHBOURS.people} signed in`,
        false,
      ),
      check("none refused by the service's minute", refusedService === 0, `${refusedService} refused`),
    ],
    wallMs,
  );
  const facts = {
    waitedS: waited / 1000,
    tries,
    accepted: ok,
    verified,
    queueGrown: grown,
    minted: mintedOk,
    mintedVerified: mintedValid,
    earned,
    neighboursSignedIn: others.signedIn,
    refusedService,
    elapsedS: wallMs / 1000,
  };
  return { ...result, first503: firstUnavailable(requests.sends), facts };
}
