/**
 * The invariants, judged after the load from two sources: the log of every answer (what callers
 * saw) and the stored state read directly from Firestore (what the service left behind). Each
 * check returns its numbers as well as PASS/FAIL, so a pass says how much it covered.
 */
import { service } from "../lib/functions.ts";
import type { Exchange } from "./client.ts";
import { GRACE_MS, RECOVERY_MS, type Window } from "./faults.ts";
import {
  SOAK_BUDGETS,
  type ClaimsTrace,
  type CodeTrace,
  type ExchangeTrace,
  type LogoutTrace,
  type MailWait,
} from "./context.ts";

interface Budget {
  scope: string;
  subject: string;
  windowMs: number;
  limit: number;
  chargesUnusedOnly: boolean;
  total: number | null;
}
// The service's own rule: which budgets a send counts against, and the allowance used codes earn.
const { sendBudgets: budgetsOf, USED_ALLOWANCE_FACTOR } = service<{
  sendBudgets(
    origin: { client: string; network: string; edge: string | null },
    address: string,
    settings: unknown,
    purpose: string,
  ): Budget[];
  USED_ALLOWANCE_FACTOR: number;
}>("core/email-codes/budget-rules");
const { clientNetwork, widerNetwork } = service<{
  clientNetwork(address: string): string;
  widerNetwork(address: string): string;
}>("http/caller");

export interface Check {
  name: string;
  pass: boolean;
  numbers: string;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SLOW_MS = 10_000;
const GATED = new Set(["GET /startpage/notifications", "POST /auth/session/refresh"]);

/** The fault window (grace included) an exchange began in, else one it overlapped, else null. */
export function windowOf(e: Exchange, windows: Window[]): Window | null {
  return (
    windows.find((w) => e.start >= w.start && e.start <= w.end + GRACE_MS) ??
    windows.find((w) => e.start <= w.end + GRACE_MS && e.end >= w.start) ??
    null
  );
}

const is5xx = (e: Exchange) => e.status >= 500 || e.status === 0;
const tally = (items: string[]) =>
  [...items.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>())]
    .map(([k, n]) => `${n}× ${k}`)
    .join("; ");
const describe = (e: Exchange) => `${e.endpoint} ${e.status || "no answer"} ${e.error ?? ""}`.trim();

function exchangeOnce(traces: ExchangeTrace[]): Check {
  const wins = traces.map((t) => t.answers.filter((a) => a.status === 200).length);
  const concurrent = traces.filter((t) => t.answers.length > 1).length;
  const twice = wins.filter((n) => n > 1).length;
  return {
    name: "Each exchange code redeemed at most once (200s per code ≤ 1)",
    pass: twice === 0,
    numbers: `${traces.length} codes, ${traces.reduce((s, t) => s + t.answers.length, 0)} redemptions (${concurrent} codes redeemed 2–4 times, concurrently or again later); codes with more than one 200: ${twice}`,
  };
}

function authorizationOnce(traces: ExchangeTrace[]): Check {
  const wins = traces.map((t) => t.answers.filter((a) => a.status === 200).length);
  const concurrent = traces.filter((t) => t.answers.length > 1).length;
  const twice = wins.filter((n) => n > 1).length;
  return {
    name: "Each OIDC authorization code gets tokens at most once (200s per code ≤ 1)",
    pass: twice === 0,
    numbers: `${traces.length} codes, ${traces.reduce((s, t) => s + t.answers.length, 0)} redemptions with the right verifier (${concurrent} codes presented 2–4 times); codes with more than one 200: ${twice}`,
  };
}

function bridgeStateOnce(traces: ExchangeTrace[]): Check {
  const wins = traces.map((t) => t.answers.filter((a) => a.status === 302).length);
  const replayed = traces.filter((t) => t.answers.length > 1).length;
  const twice = wins.filter((n) => n > 1).length;
  return {
    name: "Each bridge state signs in at most once (302s per state ≤ 1)",
    pass: twice === 0,
    numbers: `${traces.length} bridge sign-ins, ${wins.reduce((a, b) => a + b, 0)} signed in (${replayed} callbacks delivered twice at once); states that signed in twice: ${twice}`,
  };
}

/**
 * While the provider hangs, the callback gives up on it before the request deadline (8 s) and says
 * so on a page of its own: the provider's failure, or (when the store was slow too, and the
 * callback's steps had used up the time they share) its own "Sign-in failed", never the deadline's 503.
 */
function bridgeHang(exchanges: Exchange[], windows: Window[]): Check {
  const w = windows.find((x) => x.name === "Bridge provider hanging");
  const inside = exchanges.filter(
    (e) => e.endpoint === "GET /auth/bridge/gaming/callback" && w && windowOf(e, windows) === w && e.status >= 500,
  );
  const wrong = inside.filter(
    (e) => e.status !== 500 || !e.html || !(e.error ?? "").startsWith("Sign-in failed") || e.end - e.start >= 8000,
  );
  const longest = Math.max(0, ...inside.map((e) => e.end - e.start));
  return {
    name: "While the bridge provider hangs, callbacks answer their own 500 (an HTML page) before the 8 s request deadline",
    pass: inside.length > 0 && wrong.length === 0,
    numbers: `${inside.length} callbacks failed in the window (longest ${(longest / 1000).toFixed(1)} s), ${wrong.length} otherwise${wrong.length ? `: ${tally(wrong.map(describe))}` : ""}${inside.length === 0 ? " (none seen: the fault was not exercised)" : ""}`,
  };
}

function emailCodeOnce(traces: CodeTrace[]): Check {
  const signIns = traces.map(
    (t) => t.right.filter((e) => e.endpoint === "POST /auth/otp/sign-in" && e.status === 200).length,
  );
  const doubles = traces.filter(
    (t) => t.right.filter((e) => e.endpoint === "POST /auth/otp/sign-in").length > 1,
  ).length;
  const twice = signIns.filter((n) => n > 1).length;
  return {
    name: "Each email code signs in at most once",
    pass: twice === 0,
    numbers: `${traces.length} codes read from the inbox, ${signIns.reduce((a, b) => a + b, 0)} sign-ins with them (${doubles} codes tried by two sign-ins at once); codes that signed in twice: ${twice}`,
  };
}

function attemptsBounded(traces: CodeTrace[]): Check[] {
  // A guess served by a later Firestore than its code's could not meet the code (its data was gone).
  const refused = (t: CodeTrace) => t.wrong.filter((e) => e.status === 400 && e.epoch === t.epoch);
  const compared = traces.map((t) => refused(t).filter((e) => e.error === "Invalid code").length);
  const exhausted = traces.filter((t) => refused(t).length >= 5);
  const lateWins = exhausted.filter((t) => t.right.some((e) => e.status === 200)).length;
  return [
    {
      name: "No more than five wrong guesses compared per code (answers `Invalid code`)",
      pass: compared.every((n) => n <= 5),
      numbers: `${traces.reduce((s, t) => s + t.wrong.length, 0)} wrong guesses at ${traces.length} codes; most compared for one code: ${Math.max(0, ...compared)}`,
    },
    {
      name: "After five wrong guesses the right code is refused",
      pass: lateWins === 0,
      numbers: `${exhausted.length} codes got ≥ 5 wrong guesses; right code accepted afterwards: ${lateWins}`,
    },
  ];
}

/** From the answers: a 200 send at `end` after one that began at `start` less than a minute before breaks the limit, whatever the clocks. */
function sendLimits(exchanges: Exchange[]): Check {
  const sends = exchanges.filter((e) => e.endpoint === "POST /auth/otp/send" && e.status === 200 && e.key);
  const byAddress = new Map<string, Exchange[]>();
  for (const e of sends) byAddress.set(`${e.epoch} ${e.key}`, [...(byAddress.get(`${e.epoch} ${e.key}`) ?? []), e]);
  let minute = 0;
  let hour = 0;
  let closest = Infinity;
  for (const list of byAddress.values()) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) {
      const [a, b] = [list[i - 1] as Exchange, list[i] as Exchange];
      closest = Math.min(closest, b.start - a.start);
      if (b.end - a.start < MINUTE) minute++;
    }
    for (let i = 5; i < list.length; i++)
      if ((list[i] as Exchange).end - (list[i - 5] as Exchange).start < HOUR) hour++;
  }
  const repeated = [...byAddress.values()].filter((l) => l.length > 1).length;
  const refused = exchanges.filter((e) => e.endpoint === "POST /auth/otp/send" && e.status === 429).length;
  return {
    name: "At most one successful send per address per 60 s and five per hour (from the answers)",
    pass: minute === 0 && hour === 0,
    numbers: `${sends.length} sends answered 200 to ${byAddress.size} addresses (${repeated} sent to more than once; closest two began ${Number.isFinite(closest) ? (closest / 1000).toFixed(1) : "–"} s apart); 429s: ${refused}; breaches: ${minute} of the minute, ${hour} of the hour`,
  };
}

/**
 * From the answers, by the service's own rule (budget-rules.sendBudgets, budget-rules.admits): a
 * send is let through a budget only while the sends recorded before it in the window number fewer
 * than its limit; for the budgets of where a send came from and went, only unused codes count, and
 * each used code earns room for one more, up to USED_ALLOWANCE_FACTOR times the limit. Judged
 * conservatively, as sendLimits is: a 200 send is a breach only if, of the sends that surely came
 * before it (answered before it began) and surely inside its window, those surely still unused then
 * (no use of their code began before it ended) reach the limit plus the allowance of every code
 * that may have been used by then. A Firestore restart (epoch) forgets the ledger.
 */
function sendBudgets(exchanges: Exchange[], codes: CodeTrace[]): Check {
  const sends = exchanges
    .filter((e) => e.endpoint === "POST /auth/otp/send" && e.status === 200 && e.key && e.network)
    .sort((a, b) => a.start - b.start);
  // When each send's code may first have been used: a sign-in with the right code answered 200, or
  // not answered at all (it may have committed). A verify, or a sign-in refused for a person who may
  // not sign in, uses nothing; a request-access code is never used.
  const firstUse = new Map<Exchange, number>();
  for (const t of codes) {
    if (t.sent.note === "request-access") continue;
    const uses = t.right.filter(
      (e) => e.endpoint === "POST /auth/otp/sign-in" && (e.status === 200 || e.status >= 500 || e.status === 0),
    );
    if (uses.length) firstUse.set(t.sent, Math.min(...uses.map((e) => e.start)));
  }
  const groups = new Map<string, { budget: Budget; list: Exchange[] }>();
  for (const e of sends) {
    const from = e.network as string;
    const origin = { client: clientNetwork(from), network: widerNetwork(from), edge: null };
    const purpose = e.note === "request-access" ? "request-access" : "signin";
    for (const budget of budgetsOf(origin, e.key as string, SOAK_BUDGETS, purpose)) {
      const id = `${e.epoch} ${budget.scope} ${budget.subject}`;
      const group = groups.get(id) ?? { budget, list: [] };
      group.list.push(e);
      groups.set(id, group);
    }
  }
  const breaches = new Map<string, number>();
  let mostAhead = 0;
  for (const { budget, list } of groups.values())
    for (const s of list) {
      const before = list.filter((a) => a.end < s.start && a.start > s.end - budget.windowMs);
      const mayBe = list.filter((a) => a !== s && a.start < s.end && a.end > s.start - budget.windowMs);
      const usedBy = (a: Exchange) => (firstUse.get(a) ?? Infinity) < s.end;
      const counted = budget.chargesUnusedOnly ? before.filter((a) => !usedBy(a)).length : before.length;
      const allowance = budget.chargesUnusedOnly
        ? Math.min(mayBe.filter(usedBy).length, USED_ALLOWANCE_FACTOR * budget.limit)
        : 0;
      mostAhead = Math.max(mostAhead, counted);
      const overTotal = budget.total !== null && before.length >= budget.total;
      if (counted >= budget.limit + allowance || overTotal)
        breaches.set(budget.scope, (breaches.get(budget.scope) ?? 0) + 1);
    }
  const limits = [...new Map([...groups.values()].map(({ budget: b }) => [b.scope, b])).values()]
    .map(
      (b) =>
        `${b.scope} ${b.limit} per ${b.windowMs / MINUTE} min${b.chargesUnusedOnly ? " unused" : ""}${b.total === null ? "" : ` (${b.total} in all)`}`,
    )
    .join(", ");
  const refusals = exchanges.filter(
    (e) => e.endpoint === "POST /auth/otp/send" && e.status === 429 && (e.reason ?? "").endsWith("_budget"),
  );
  const total = [...breaches.values()].reduce((a, b) => a + b, 0);
  return {
    name: "Send budgets hold as the service's rule has them (unused codes counted, sign-in codes used by a sign-in earning room, a network's minute capped in all, requests for access counted whatever is used; the service's own budget counts every send), from the answers",
    pass: total === 0,
    numbers: `${sends.length} sends answered 200 (budgets: ${limits}); ${firstUse.size} of their codes used; most surely counted ahead of one send: ${mostAhead}; refused by a budget: ${refusals.length}${refusals.length ? ` (${tally(refusals.map((e) => e.reason ?? ""))})` : ""}; breaches: ${total === 0 ? "none" : tally([...breaches].flatMap(([k, n]) => Array<string>(n).fill(k)))}`,
  };
}

/** After a logout answered 200, the cookie it ended is refused: 401, or 5xx only inside a fault window. */
function logoutReplay(traces: LogoutTrace[], windows: Window[]): Check {
  const replays = traces.flatMap((t) => t.replays);
  const accepted = replays.filter((r) => r.status >= 200 && r.status < 300);
  const wrong = replays.filter((r) => r.status !== 401 && !(is5xx(r) && windowOf(r, windows) !== null));
  return {
    name: "A cookie ended by logout is refused when replayed (refresh and a gated read)",
    pass: traces.length > 0 && wrong.length === 0,
    numbers: `${traces.length} logouts with a cookie, ${replays.length} replays; accepted: ${accepted.length}; other than 401 outside fault windows: ${wrong.length}${wrong.length > 0 ? ` (${tally(wrong.map(describe))})` : ""}`,
  };
}

function faultAnswers(exchanges: Exchange[], windows: Window[], mailWaits: MailWait[]): Check[] {
  // Requests the load fires together at one code, address or account contend for one document; on
  // real transaction semantics the losers wait, abort and retry, and when that outlasts the 8 s
  // request deadline the contract's answer is 503 with Retry-After. Counted, apart from failures.
  const raced = (e: Exchange) =>
    e.key !== undefined && exchanges.some((o) => o !== e && o.key === e.key && o.start < e.end && o.end > e.start);
  const unexplained = exchanges.filter((e) => is5xx(e) && windowOf(e, windows) === null);
  const races = unexplained.filter((e) => e.status === 503 && raced(e));
  const outside = unexplained.filter((e) => !races.includes(e));
  const failed = exchanges.filter((e) => e.status >= 500);
  // The authorise endpoint and the bridges are pages a browser shows: their refusals are HTML pages, the rest JSON.
  const page = (e: Exchange) => e.endpoint === "GET /auth/oidc/authorize" || e.endpoint.startsWith("GET /auth/bridge/");
  const unshaped = failed.filter((e) => (page(e) ? !e.html : !e.shaped));
  const gated = failed.filter((e) => GATED.has(e.endpoint));
  // Refresh reads nothing but the person, so its only 5xx is the gate's. A gated page may also
  // fail after the gate let a cached person in, when its own read cannot be made: that is the
  // request deadline's 503 `Service unavailable`, never a 500 and never an authentication failure.
  const allowed = (e: Exchange) =>
    e.error === "Authorization unavailable" ||
    (e.endpoint !== "POST /auth/session/refresh" && e.error === "Service unavailable");
  const gatedWrong = gated.filter((e) => e.status !== 503 || !allowed(e));
  const mailWindow = windows.find((w) => w.name === "Mail server down");
  const inMail = exchanges.filter(
    (e) => e.endpoint === "POST /auth/otp/send" && mailWindow && windowOf(e, windows) === mailWindow,
  );
  const mailWrong = inMail.filter((e) => e.status !== 200 && e.status !== 429);
  // Codes sent while the server was down: the outbox holds them until it is back.
  const held = mailWindow ? mailWaits.filter((w) => w.sentAt >= mailWindow.start && w.sentAt <= mailWindow.end) : [];
  // A mail still in the outbox when the restart wiped the store went with it, as every record did.
  const lost = lostCodes(mailWaits, windows);
  const wiped = mailWaits.filter((w) => w.arrivedAt === null && w.epoch !== w.endEpoch);
  const beforeSeed = mailWaits.filter((w) => w.arrivedAt === null && w.epoch === w.endEpoch && unseeded(w, windows));
  const slowest = Math.max(0, ...held.map((w) => (w.arrivedAt ?? w.sentAt) - w.sentAt));
  return [
    {
      name: "Zero 5xx (or unanswered requests) outside the fault windows and their grace, but a 503 (retry) to a request racing others at one code, address or account",
      pass: outside.length === 0,
      numbers: `${exchanges.length} requests, ${outside.length} outside any window failed${outside.length ? `: ${tally(outside.map(describe))}` : ""}; 503s to racing requests: ${races.length}${races.length ? ` (${tally(races.map(describe))})` : ""}`,
    },
    {
      name: "Every 5xx is in the contract's JSON shape `{ error }` (the OIDC authorise page and the bridges: an HTML page)",
      pass: unshaped.length === 0,
      numbers: `${failed.length} answers ≥ 500, ${unshaped.length} not shaped${unshaped.length ? `: ${tally(unshaped.map(describe))}` : ""}`,
    },
    {
      name: "Refresh fails only as 503 `Authorization unavailable`; gated reads as that or, past the gate, 503 `Service unavailable`",
      pass: gated.length > 0 && gatedWrong.length === 0,
      numbers: `${gated.length} such 5xx (${tally(gated.map(describe))}), ${gatedWrong.length} otherwise${gatedWrong.length ? `: ${tally(gatedWrong.map(describe))}` : ""}${gated.length === 0 ? " (none seen: the fault was not exercised)" : ""}`,
    },
    {
      name: "With the mail server down, sends answer as ever (200, or a limit's 429): the outbox holds the mail",
      pass: inMail.length > 0 && mailWrong.length === 0,
      numbers: `${inMail.length} sends answered in the window (${tally(inMail.map(describe))}), ${mailWrong.length} otherwise${mailWrong.length ? `: ${tally(mailWrong.map(describe))}` : ""}`,
    },
    comeBack(mailWaits, windows),
    {
      name: "Every code sent reached the inbox (within 2 minutes), those sent while the mail server was down once it was back; a mail the Firestore restart wiped from the outbox, and a send answered while the restarted store was still being re-seeded (its address on no one yet, so nothing mailed), are counted apart",
      pass: held.length > 0 && lost.length === 0,
      numbers: `${mailWaits.length} codes waited for, ${lost.length} never came${wiped.length ? ` (besides ${wiped.length} still queued when the Firestore restart wiped the outbox)` : ""}${beforeSeed.length ? ` (besides ${beforeSeed.length} sent before the re-seed, to addresses the new store did not hold yet)` : ""}; ${held.length} sent during the outage, the slowest arriving after ${(slowest / 1000).toFixed(1)} s`,
    },
  ];
}

/**
 * Sent while the restarted Firestore was being re-seeded: a scenario still in flight when the load
 * paused may send a code once the new, empty store answers and before the fixture is back in it.
 * Its address is then on no one, and the service answers 200 and mails nothing, by design (an
 * address on no account is answered as any other). Not a lost code: counted apart.
 */
function unseeded(wait: MailWait, windows: Window[]): boolean {
  const restart = windows.find((w) => w.name === "Firestore restarted");
  return restart !== undefined && wait.sentAt >= restart.start && wait.sentAt <= restart.end;
}

/** The codes that never came, but for those the restart wiped or sent before the re-seed. */
export function lostCodes(mailWaits: MailWait[], windows: Window[]): MailWait[] {
  return mailWaits.filter((w) => w.arrivedAt === null && w.epoch === w.endEpoch && !unseeded(w, windows));
}

/** How soon after a fault ends a code held up by it must arrive: its retry (at most 72 s away) and a drain. */
export const BACK_WITHIN_MS = 90_000;

/**
 * A code sent during a fault, or in the 20 s before it, that arrived after the fault ended arrived
 * within BACK_WITHIN_MS of its end (the mail server's or Firestore's return).
 */
function comeBack(mailWaits: MailWait[], windows: Window[]): Check {
  const held = windows.flatMap((w) =>
    mailWaits
      .filter((m) => m.sentAt >= w.start - 20_000 && m.sentAt <= w.end && m.epoch === m.endEpoch)
      .filter((m) => !(m.arrivedAt === null && unseeded(m, windows)))
      .filter((m) => m.arrivedAt === null || m.arrivedAt > w.end)
      .map((m) => ({ window: w.name, after: m.arrivedAt === null ? Infinity : m.arrivedAt - w.end })),
  );
  const late = held.filter((h) => h.after > BACK_WITHIN_MS);
  const slowest = Math.max(0, ...held.filter((h) => h.after !== Infinity).map((h) => h.after));
  return {
    name: `A code held up by a fault (sent in it or the 20 s before) reached the inbox within ${BACK_WITHIN_MS / 1000} s of the fault's end`,
    pass: late.length === 0,
    numbers: `${held.length} codes arrived after their fault ended (${tally(held.map((h) => h.window))}), the slowest ${(slowest / 1000).toFixed(1)} s after it; later or never: ${late.length}${late.length ? ` (${tally(late.map((h) => h.window))})` : ""}`,
  };
}

function answeredInTime(exchanges: Exchange[], windows: Window[]): Check {
  const slow = exchanges.filter((e) => e.status === 0 || e.end - e.start > SLOW_MS);
  const where = slow.map(
    (e) => `${windowOf(e, windows)?.name ?? "no fault"}: ${e.endpoint} ${e.status || "no answer"}`,
  );
  const longest = Math.max(0, ...exchanges.map((e) => e.end - e.start));
  return {
    name: "Every request answered within 10 s",
    pass: slow.length === 0,
    numbers: `longest ${(longest / 1000).toFixed(1)} s; over 10 s or unanswered: ${slow.length}${slow.length ? ` (${tally(where)})` : ""}`,
  };
}

/** A bridge callback succeeds with its 302 to the identity host; everything else with a 2xx. */
const succeeded = (e: Exchange) =>
  (e.status >= 200 && e.status < 300) || (e.endpoint === "GET /auth/bridge/gaming/callback" && e.status === 302);

/** The endpoints that must succeed again after every fault window. */
const MAIN_ENDPOINTS = [
  "POST /auth/verify",
  "POST /auth/session/refresh",
  "GET /startpage/notifications",
  "POST /auth/otp/send",
  "POST /auth/exchange",
  "POST /auth/oidc/token",
  "GET /auth/bridge/gaming/callback",
];

/** The main endpoints with no success among requests begun in [from, to). */
export function notRecovered(exchanges: Exchange[], from: number, to = Infinity): string[] {
  return MAIN_ENDPOINTS.filter(
    (endpoint) => !exchanges.some((e) => e.endpoint === endpoint && e.start >= from && e.start < to && succeeded(e)),
  );
}

/**
 * After each window (and its grace) until the next one: every main endpoint succeeds again. The
 * schedule waits for that (faults.ts, RECOVERY_MS), so a slow emulator's lower rate of requests
 * is given the time, and an endpoint that does not recover fails here.
 */
function recovered(exchanges: Exchange[], windows: Window[], serviceRestarted: boolean): Check {
  const missing = windows.flatMap((w, i) =>
    notRecovered(exchanges, w.end + GRACE_MS, windows[i + 1]?.start).map((endpoint) => `${endpoint} after ${w.name}`),
  );
  const slowest = Math.max(
    0,
    ...windows.map((w, i) => (windows[i + 1]?.start ?? Infinity) - w.end).filter((ms) => Number.isFinite(ms)),
  );
  return {
    name: `Everything recovers without restarting the service: every main endpoint succeeds again within ${RECOVERY_MS / 1000} s of each window's end and grace`,
    pass: !serviceRestarted && missing.length === 0,
    numbers: `service process ${serviceRestarted ? "RESTARTED or gone" : "the same throughout"}; longest wait from a window's end to the next fault ${(slowest / 1000).toFixed(1)} s; endpoints with no success after a window: ${missing.length ? missing.join(", ") : "none"}`,
  };
}

/**
 * The claims callback never fails the provider's sign-in: a signed request gets the account's
 * person and standing, or (only while Firestore is faulted) no claims; a forged one gets 401.
 */
function claimsAnswers(traces: ClaimsTrace[], windows: Window[]): Check {
  const signed = traces.filter((t) => !t.forged);
  const forged = traces.filter((t) => t.forged);
  const person = signed.filter((t) => t.outcome === "person").length;
  const none = signed.filter((t) => t.outcome === "none");
  const noneOutside = none.filter((t) => windowOf(t.answer, windows) === null).length;
  const wrong = signed.filter((t) => t.outcome !== "person" && t.outcome !== "none");
  const forgedPassed = forged.filter((t) => t.answer.status !== 401);
  return {
    name: "Claims callback: a signed request gets its account's person and standing (no claims only in a fault window), never a 5xx; a forged one 401",
    pass:
      signed.length > 0 && forged.length > 0 && wrong.length === 0 && noneOutside === 0 && forgedPassed.length === 0,
    numbers: `${signed.length} signed: ${person} with the person's claims, ${none.length} with none (${noneOutside} outside a window), ${wrong.length} otherwise${wrong.length ? ` (${tally(wrong.map((t) => describe(t.answer)))})` : ""}; ${forged.length} forged: ${forgedPassed.length} not refused`,
  };
}

export function logChecks(
  log: {
    exchanges: Exchange[];
    codes: CodeTrace[];
    redemptions: ExchangeTrace[];
    authorizations: ExchangeTrace[];
    bridges: ExchangeTrace[];
    claims: ClaimsTrace[];
    mailWaits: MailWait[];
    logouts: LogoutTrace[];
  },
  windows: Window[],
  serviceRestarted: boolean,
): Check[] {
  return [
    exchangeOnce(log.redemptions),
    authorizationOnce(log.authorizations),
    bridgeStateOnce(log.bridges),
    claimsAnswers(log.claims, windows),
    emailCodeOnce(log.codes),
    ...attemptsBounded(log.codes.filter((c) => c.wrong.length > 0 || c.right.length > 0)),
    sendLimits(log.exchanges),
    sendBudgets(log.exchanges, log.codes),
    logoutReplay(log.logouts, windows),
    ...faultAnswers(log.exchanges, windows, log.mailWaits),
    bridgeHang(log.exchanges, windows),
    answeredInTime(log.exchanges, windows),
    recovered(log.exchanges, windows, serviceRestarted),
  ];
}
