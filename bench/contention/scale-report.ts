/**
 * The paragraphs under section 8's table, from each run's figures, for the scenarios a row cannot
 * tell: the send budgets at scale (6 to 10) and the events to the apps (11).
 */
import type { Phase, Result } from "./context.ts";

const n = (x: number | undefined, digits = 0) =>
  x === undefined || !Number.isFinite(x)
    ? "–"
    : x.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** `official: …; stand-in: …` for the phases that ran scenario `id`. */
function perPhase(
  phases: Phase[],
  id: string,
  say: (r: Result, f: Record<string, number>, p: Phase) => string,
): string {
  const parts = phases.flatMap((p) => {
    const r = p.results.find((x) => x.id === id);
    return r?.facts === undefined ? [] : [`${p.name}: ${say(r, r.facts, p)}`];
  });
  return parts.join("; ");
}

const refusals = (r: Result) =>
  Object.entries(r.statuses)
    .filter(([k]) => k.startsWith("429"))
    .map(([k, v]) => `${k.slice(4)} ×${n(v)}`)
    .join(", ") || "none";

function monday(phases: Phase[]): string {
  const figures = perPhase(
    phases,
    "6",
    (r, f) =>
      `${n(r.successes)} of ${n(r.requests)} codes sent and ${n(f.signedIn)} signed in, in ${n(f.elapsedS)} s ` +
      `(${n(f.sendsPerS, 1)} sends/s; send p50 ${n(r.p50)} ms, p99 ${n(r.p99)} ms; sign-in p50 ${n(f.signInP50)} ms), ` +
      `refused: ${refusals(r)}; busiest service minute ${n(f.busiest)} sends; of the time, ${n(f.askingS)} s ` +
      `asking, ${n(f.mailS)} s waiting for the mails, ${n(f.signingInS)} s signing in`,
  );
  return (
    "**6, Monday morning.** A thousand people behind one office address (one client, one network) at one " +
    "company domain ask ten at a time, and each signs in with the mailed code before the next ten ask, as fast " +
    "as it goes up to 290 sends a minute (one network may send 300 in any minute, used codes or not). A used code stops counting against the client (20 an hour), network (30 a minute) and domain " +
    "(200 an hour) budgets and earns one more place, so at most ten unused codes ever count against them, " +
    "and none of these budgets should refuse anyone; the service's minute (600) counts every send, used or " +
    `not, and would refuse only sends past 600 in a minute. ${figures}.`
  );
}

function spray(phases: Phase[]): string {
  const figures = perPhase(
    phases,
    "7",
    (r, f) =>
      `${n(f.sends)} sends in ${n(f.elapsedS)} s (${n(r.rate, 1)}/s, so 10,000 would take ` +
      `${n(10_000 / r.rate / 60, 1)} min; p50 ${n(r.p50)} ms), ${n(f.accepted)} let through (overshoot ` +
      `${n(f.overshoot)}), refused: ${refusals(r)}; ${n(f.recorded)} sends of the client in the ledger, ` +
      `${n(f.codes)} codes issued`,
  );
  return (
    "**7, spray from one network.** One client address asks for sign-in codes for addresses on no account " +
    "(no mail goes, the answer is the same 200) at one domain, twenty at a time; none of the codes is ever " +
    "used, so the client's budget of 20 an hour holds it: exactly 20 let through, never more. It sends up " +
    "to 10,000 but starts none after 60 s, which bounds the run; every send past the twentieth takes the " +
    `same refusal path. ${figures}.`
  );
}

function distributed(phases: Phase[]): string {
  const figures = perPhase(
    phases,
    "8",
    (r, f) =>
      `${n(f.accepted)} of ${n(f.sends)} let through in ${n(f.elapsedS)} s (${n(r.rate, 1)}/s), refused: ` +
      `${refusals(r)}; busiest minute ${n(f.byLedger)} sends in the ledger, ${n(f.byAnswers)} by the answers' times`,
  );
  return (
    "**8, distributed spray.** Sends from 500 networks (a /24 each, three sends from each) to addresses on no " +
    "account at 250 domains, twenty at a time, for up to 90 s, starting with the service's minute " +
    "empty: no client, network or domain budget comes near its limit, so only the service's minute (600) " +
    "holds it. The busiest minute is counted over the ledger, every send recorded at the time the service " +
    "counted it (the bound the budget keeps), and over the times of the answers, which follow by up to a " +
    `request's latency. ${figures}.`
  );
}

function rates(phases: Phase[]): string {
  const figures = perPhase(phases, "9a", (_, first, phase) => {
    const steps = phase.results.filter((r) => r.id.startsWith("9") && r.facts !== undefined);
    const best = steps.reduce((a, b) => (count200(b) > count200(a) ? b : a));
    const fail = steps.find(
      (r) => r.statuses["503 deadline"] !== undefined || r.statuses["503 contention"] !== undefined,
    );
    const cpu = steps
      .map(
        (r) =>
          `${n(r.facts?.offered)}/s, the machine ${n((r.facts?.machineBusy ?? 0) * 100)}% busy, ` +
          `service and load ${n(r.facts?.serviceCores, 2)} cores, emulator ${n(r.facts?.firestoreCores, 2)}, ` +
          `one count of the service's minute ${n(r.facts?.minuteCountMs)} ms over ${n(r.facts?.minuteRecords)} records`,
      )
      .join("; ");
    // Answers keep pace with what is offered: within 5% of 50 a second (a step's answers end after its sends do).
    const top = steps.at(-1);
    const met = fail === undefined && steps.length === 7 && top !== undefined && count200(top) >= 0.95 * 50;
    const unavailable = (r: Result) => (r.statuses["503 deadline"] ?? 0) + (r.statuses["503 contention"] ?? 0);
    return (
      `at most ${n(count200(best), 1)} sends/s answered 200, at ${n(best.facts?.offered)}/s offered ` +
      `(p50 ${n(best.p50)} ms, p99 ${n(best.p99)} ms); ` +
      (fail === undefined
        ? "no 503 at any step run; "
        : `the first 503 at ${n(fail.facts?.offered)}/s offered (${n(unavailable(fail))} of its ${n(fail.requests)} sends); `) +
      `${steps.length < 7 ? `no step above ${n(steps.at(-1)?.facts?.offered)}/s (saturated)` : "every step run"}; ` +
      `busiest minute ${n(first.busiest)} sends; **target of 50 sends a second answered with no 503: ${met ? "met" : "not met"}**; ` +
      `CPU per step, and what one send's count of the service's minute costs once the step is over: ${cpu}`
    );
  });
  return (
    "**9, service-wide at rising rates.** Sends from a network of their own each to addresses on no account " +
    "at 500 domains, offered at 2, 5, 10, 20, 30, 40 and 50 a second, 15 s a step, on a second service with " +
    "OTP_SENDS_PER_MINUTE=3000 (50 a second, five times the default) and a CODE_PEPPER of its own, so no " +
    "budget is reached and only the machine limits the rate, and on a project of its own in the emulator, whose " +
    "store starts empty: Google's emulator reads a collection whole for every query (a count of 30 records took " +
    "22 ms beside no other records and 324 ms beside 20,000 that match nothing), where production reads only the " +
    "index's entries, so the other scenarios' records would make this a measure of the emulator's scans. " +
    "A step starts once the previous one's answers " +
    "are in and its work done; none starts after a step in which fewer than half the sends succeeded. The target: 50 sends a " +
    "second answered 200 (within 5%) with no 503. What bounds the rate here is each send's work in the emulator " +
    "(bench §3: 2 queries, 6 reads, 3 commits), whose share of the machine the CPU per step gives; one count of the " +
    "service's minute, which every send asks for (sends asking at once share one), is timed after each step, as " +
    "the records it counts grow. " +
    "On this shared 2-core machine " +
    "the service, the load and the emulator share two cores with whatever else runs; `per s` in the table is " +
    `answers a second. ${figures}.`
  );
}

function catchAll(phases: Phase[]): string {
  const say = (r: Result, f: Record<string, number>) =>
    `${n(f.accepted)} of ${n(f.tries)} let through, ${n(f.verified)} verified, the queue ${n(f.queueGrown)} longer; ` +
    `refused: ${refusals(r)}; ${n(f.neighboursSignedIn)} of 50 neighbours signed in, ${n(f.refusedService)} refused ` +
    `by the service's minute`;
  const earn = (r: Result, f: Record<string, number>) =>
    `${say(r, f)}; ${n(f.minted)} sign-in codes minted for its pending people, ${n(f.mintedVerified)} of them ` +
    `verified, ${n(f.earned)} earning room`;
  return (
    "**10, the catch-all attacker.** The owner of a domain that takes every address asks for request-access " +
    "codes to fresh addresses there, five at a time, and verifies each as it is mailed: each verified code is " +
    "a pending person in the reviewers' queue. Requests for access have bounds of their own that count every " +
    "request and that nothing earns back: one client (10a) is held to 20 in 70 minutes, and a client per request " +
    "across one /24 (10b, 25 a minute) to the network's 60. The earn-back attacker (10c) asks five requests " +
    "every ten seconds for two minutes from one client, and a minute after each, mails a sign-in code to the " +
    "pending person it made, verifies it and tries to sign in with it: a code earns room only by signing an " +
    "approved person in, so it should earn nothing, and the queue should grow by 20 at most. Meanwhile 50 " +
    `approved people of other networks sign in with their codes, ten at a time. 10a: ${perPhase(phases, "10a", say)}. ` +
    `10b: ${perPhase(phases, "10b", say)}. 10c: ${perPhase(phases, "10c", earn)}.`
  );
}

function events(phases: Phase[]): string {
  const figures = perPhase(phases, "11", (r, f) => {
    const apps = ["app-a", "app-b", "app-c"]
      .map(
        (a) =>
          `${a} ${n(f[`${a} received`])} (p50 ${n(f[`${a} p50`])} ms, p99 ${n(f[`${a} p99`])} ms, ` +
          `${n(f[`${a} duplicates`])} twice)`,
      )
      .join(", ");
    return (
      `${n(r.successes)} of ${n(3 * (f.events ?? 0))} delivered in ${n(f.drainS)} s (${n(r.rate, 1)}/s), the first ` +
      `${n(f.firstArrivalS, 1)} s after the last event was published; a mail queued just after the events ` +
      `sent after ${n(f.behindEventsS, 1)} s, one queued as the first delivery arrived after ` +
      `${n(f.behindDeliveriesS, 1)} s; ${apps}; ${n(f.badSignatures)} signatures that did not verify; ` +
      `${n(f.retried)} deliveries to these apps tried more than once; app-d: ${n(f.downRequests)} requests ` +
      `(${n(f.downFailures)} failures on its subscription), its ${n(f.events)} deliveries handled ` +
      `${n(f.downTries)} times, ${n(f.downPending)} still pending` +
      (f.ownDrain
        ? `; ${n(f.ownDrain)} of the requests made by a round of the service's own mail task, woken for later by an earlier drain`
        : "")
    );
  });
  return (
    "**11, a thousand events to four apps, one of them down.** Four apps subscribe to every event: app-a, " +
    "app-b and app-c answer 204 at receivers in the bench's process, which check each delivery's Standard " +
    "Webhooks signature and note its `webhook-id` and when it came; app-d is subscribed at a port where " +
    "nothing listens. A thousand events (a profile change each, of a thousand people) are published fifty " +
    "to a transaction, and then 4 workers each run the `mail` task's work until the three apps have every " +
    "event, for at most five minutes; a mail queued as a code is, just after the events, and another as " +
    "the first delivery arrives, show how long mail waits behind them. Each event must reach each of the " +
    "three once, signed, none of them waiting on app-d: a failed request pauses app-d's endpoint (30 s, " +
    "doubling), and while it rests its deliveries wait for the end of its rest without a request, so it " +
    "should cost one request per pause, not one per event. The apps' entries (the events and their " +
    "deliveries) wait in a lane of their own behind mail for people: each drain takes the mail that is " +
    "due first, so the mail queued among the events should not wait for them. " +
    "Latency is from the event's publishing (its transaction's commit) to its arrival; the rate is " +
    `deliveries a second. ${figures}.`
  );
}

/** Sends answered 200, a second, over the step. */
const count200 = (r: Result) => ((r.statuses["200"] ?? 0) / Math.max(1, r.requests)) * r.rate;

export function scaleNotes(phases: Phase[]): string[] {
  const ran = (id: string) => phases.some((p) => p.results.some((r) => r.id === id && r.facts !== undefined));
  const paragraphs = [
    ran("6") ? monday(phases) : null,
    ran("7") ? spray(phases) : null,
    ran("8") ? distributed(phases) : null,
    ran("10a") ? catchAll(phases) : null,
    ran("9a") ? rates(phases) : null,
    ran("11") ? events(phases) : null,
  ];
  return paragraphs.flatMap((p) => (p === null ? [] : [p, ""]));
}
