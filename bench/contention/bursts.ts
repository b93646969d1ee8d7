/**
 * Bursts of sign-in code sends, 100 sends 10 at a time, each to a person of its own: from one
 * office (one client address, one company domain), from many networks to one domain, and from many
 * networks to many domains. Each send either stored a code (and its mail) or did not, whatever it
 * was answered: the stored codes are read back and held against the answers.
 */
import { service } from "../lib/functions.ts";
import { burst, firstUnavailable, now, type Answer } from "./measure.ts";
import {
  addressId,
  check,
  count,
  docs,
  send,
  settle,
  snapshot,
  summary,
  type Context,
  type Result,
} from "./context.ts";
import { duplicates } from "./inbox.ts";

const { DEFAULTS } = service<{ DEFAULTS: Record<string, string> }>("config/defaults");

export const SENDS = 100;
const WIDTH = 10;

export interface Burst {
  id: string;
  title: string;
  address: (i: number) => string;
  ip: (i: number) => string;
  /** How many the default budgets let through, and which budget stops the rest. */
  expected: number;
  because: string;
}

const perClientHour = Number(DEFAULTS.OTP_SENDS_PER_CLIENT_HOUR);

export const BURSTS: Burst[] = [
  {
    id: "3a",
    title: "one office: one client address, one domain",
    address: (i) => `person-${i}@corp.example`,
    ip: () => "10.31.0.9",
    expected: Math.min(SENDS, perClientHour),
    because: `OTP_SENDS_PER_CLIENT_HOUR=${perClientHour}`,
  },
  {
    id: "3b",
    title: "many networks, one domain",
    address: (i) => `person-${i}@bigcorp.example`,
    ip: (i) => `10.32.${i}.9`,
    expected: Math.min(SENDS, Number(DEFAULTS.OTP_SENDS_PER_DOMAIN_HOUR)),
    because: `OTP_SENDS_PER_DOMAIN_HOUR=${DEFAULTS.OTP_SENDS_PER_DOMAIN_HOUR}`,
  },
  {
    id: "3c",
    title: "many networks, many domains",
    address: (i) => `person@d${i}.example`,
    ip: (i) => `10.33.${i}.9`,
    expected: SENDS,
    because: "no budget reached",
  },
];

export async function sendBurst(ctx: Context, b: Burst): Promise<Result> {
  const addresses = Array.from({ length: SENDS }, (_, i) => b.address(i));
  await ctx.inbox.clear();
  const before = snapshot(ctx.svc);
  const t = now();
  const answers = await burst(SENDS, WIDTH, (i) => send(ctx, addresses[i] as string, b.ip(i)));
  await settle(ctx.svc);
  const wallMs = now() - t;
  const codes = await docs(
    ctx,
    "emailCodes",
    addresses.map((a) => addressId(ctx, a)),
  );
  const stored = (i: number) => codes[i]?.state === "ready";
  const where = (pick: (a: Answer, i: number) => boolean) =>
    answers.map((a, i) => (pick(a, i) ? i : -1)).filter((i) => i >= 0);
  const lost = where((a, i) => a.status === 200 && !stored(i));
  const refusedStored = where((a, i) => a.status === 429 && stored(i));
  const lateStored = where((a, i) => a.status === 503 && stored(i));
  const storedCount = addresses.filter((_, i) => stored(i)).length;
  const mails = await ctx.inbox.atLeast(storedCount, 60_000);
  const mailed = new Set(mails.flatMap((m) => m.to));
  const unmailed = addresses.filter((a, i) => stored(i) && !mailed.has(a)).length;
  const doubled = duplicates(mails);
  const ok = count(answers, 200);
  const first = firstUnavailable(answers);
  return {
    ...summary(
      { id: b.id, title: `${SENDS} sends, ${WIDTH} at a time: ${b.title}`, expected: `${b.expected}, ${b.because}` },
      answers,
      ok,
      ok === b.expected,
      before,
      snapshot(ctx.svc),
      [
        check(
          "no 200 without its code",
          lost.length === 0,
          lost.length === 0 ? "none" : `${lost.length} (${lost.slice(0, 5).join(", ")}…)`,
        ),
        check("no 429 with a code", refusedStored.length === 0, `${refusedStored.length}`),
        check("the budget held", storedCount <= b.expected, `${storedCount} codes stored`),
        check(
          "answered 503, yet sent",
          lateStored.length === 0,
          `${lateStored.length} (the request's deadline answered; its transaction committed after)`,
          false,
        ),
        check("every stored code mailed", unmailed === 0, `${unmailed} not delivered within 60 s`, false),
        check("each mail once", doubled.length === 0, doubled.length === 0 ? "yes" : doubled.slice(0, 3).join(", ")),
      ],
      wallMs,
    ),
    first503: first,
  };
}
