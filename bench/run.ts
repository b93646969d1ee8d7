/**
 * `npm run bench`: every benchmark of this project in one invocation, each reported as a ratio
 * against a baseline measured in the same run, written to bench/RESULTS.md.
 * The machine is shared and noisy: absolute figures move ±30% between runs; ratios hold.
 *
 *   BENCH_SECTIONS=2,5   some sections only (1 to 5); the others stay in RESULTS.md as they were
 *   --no-write           print, leave RESULTS.md alone
 * Sections 2 and 5 run on the Firestore the stack would choose (bench/lib/procs.ts benchFirestore:
 * Google's emulator where found; FIRESTORE_STAND_IN=1 for the stand-in). Section 3 counts on the
 * stand-in always.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "./lib/functions.ts";
import { RESULTS_PATH, sectionOf } from "./lib/results.ts";
import { GATED_AND_SESSIONS, runColdStart } from "./cold-start.ts";
import { RS256, type runVerifyBench } from "./verify.ts";
import { LAYERS, runHttpBench, type GateSteps, type Layer } from "./http.ts";
import { CONNECTIONS, OURS, PEER_IN_MEMORY, PEER_ON_FIRESTORE, RACE_CODES, RACE_TRIES, runOidcBench } from "./oidc.ts";
import { lifecycleLines } from "./oidc-lifecycle-report.ts";
import { operationsTable, runOperations } from "./operations.ts";
import type { LoadResult } from "./lib/load.ts";
import { benchFirestore, machineLoad, stopAll, type BenchFirestore } from "./lib/procs.ts";
import { fmt, median, range } from "./lib/stats.ts";

const started = new Date();
const loadAtStart = machineLoad();
process.env.GCLOUD_PROJECT ??= "demo-bench";
const ALL = [1, 2, 3, 4, 5];
const selected = (process.env.BENCH_SECTIONS ?? "")
  .split(",")
  .filter((s) => s.trim() !== "")
  .map(Number);
if (selected.some((n) => !ALL.includes(n)))
  throw new Error(`BENCH_SECTIONS names sections 1 to 5, not "${process.env.BENCH_SECTIONS}"`);
const sections = selected.length === 0 ? ALL : ALL.filter((n) => selected.includes(n));
const runs = (n: number) => sections.includes(n);
process.env.METADATA_SERVER_DETECTION = "none";

function verifyBench(): Awaited<ReturnType<typeof runVerifyBench>> {
  const out = spawnSync("taskset", ["-c", "0", process.execPath, join(root, "bench", "verify.ts"), "--json"], {
    encoding: "utf8",
  });
  if (out.status !== 0) throw new Error(`verify bench failed: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split("\n").pop() as string);
}

const lines: string[] = [];
const verdict = (met: boolean) => (met ? "met" : "not met");
const say = (line = "") => {
  console.log(line);
  lines.push(line);
};

/** Load results by target: medians and ranges over the rounds, errors and non-2xx summed. */
function loadTable(rows: Record<string, LoadResult[]>): void {
  say("| Target | req/s, median | range | p99 ms, median | errors | non-2xx |");
  say("|---|---|---|---|---|---|");
  for (const [name, results] of Object.entries(rows)) {
    const rps = results.map((r) => r.rps);
    say(
      `| ${name} | ${fmt(median(rps))} | ${range(rps)} | ${median(results.map((r) => r.p99))} | ${results.reduce((a, r) => a + r.errors, 0)} | ${results.reduce((a, r) => a + r.non2xx, 0)} |`,
    );
  }
}

/** Where a gated GET's CPU goes, layer by layer (bench/http.ts LAYERS), then the gate's own steps in process. */
function layersTable(layers: Record<Layer, { rps: number; cpuUs: number }[]>, steps: GateSteps): string[] {
  const us = (layer: Layer) => median(layers[layer].map((r) => r.cpuUs));
  const names = Object.keys(LAYERS) as Layer[];
  const lines = [
    "Where a gated GET's time goes: the same answer built up a layer at a time, each its own server on core 0, in the same",
    "rounds; the server's CPU per request is read from /proc around each round (all its threads), so a layer's cost is its",
    "difference from the one before (on this shared machine a round's CPU per request varies by several µs: small or",
    "negative differences are within it).",
    "",
    "| Layer | req/s, median | server CPU µs per request, median | added µs |",
    "|---|---|---|---|",
  ];
  names.forEach((layer, i) => {
    const before = i === 0 ? null : us(names[i - 1] as Layer);
    const added = before === null ? "" : (us(layer) - before).toFixed(1);
    lines.push(
      `| ${LAYERS[layer]} | ${fmt(median(layers[layer].map((r) => r.rps)))} | ${us(layer).toFixed(1)} | ${added} |`,
    );
  });
  const floor = us("express");
  const whole = us("gate");
  const micro = (n: number) => `${n.toFixed(2)} µs`;
  lines.push(
    "",
    `A gated GET costs ${whole.toFixed(1)} µs of CPU against the bare route's ${floor.toFixed(1)} µs: ${((100 * floor) / whole).toFixed(0)}% of its rate by CPU. ` +
      `At 85% everything the service adds would have to fit in ${(floor / 0.85 - floor).toFixed(1)} µs.`,
    "",
    "The gate's steps, each called in a loop in one process on core 0 (bench/servers/gate-steps.ts), each call given a new copy of",
    "the cookie header as a request is (the copy's own cost taken off):",
    "",
    "| Step | µs per call | why it stays |",
    "|---|---|---|",
    `| the whole gate (requireAccess) | ${micro(steps.whole)} | |`,
    `| reading \`__session\` from the header | ${micro(steps.cookie)} | two cookies of that name are refused (cookie tossing), so every one is read |`,
    `| the token, verified before: a map lookup | ${micro(steps.token)} | keyed by the whole token, so no two tokens share an entry: a request's new string is hashed whole, once |`,
    `| the clock, read for the token's expiry | ${micro(steps.clock)} | a verified token still ends at its \`exp\` |`,
    `| the person, cached | ${micro(steps.person)} | the account's uid is checked against the person each time (an unlinked account no longer speaks for them) |`,
    `| ended sessions and the access rule | ${micro(steps.rules)} | logout, "sign out everywhere" and a removed address end a token still in its lifetime |`,
    `| the session's last use, noted before | ${micro(steps.seen)} | one write per session per period, decided by a cache lookup |`,
    `| an await, for each step that may leave the process | ${micro(steps.await)} | a person not cached, or a token not verified before, is read or checked out of process |`,
  );
  return lines;
}

/** The Firestore of sections 2 and 5, started only when one of them runs. */
let firestore: BenchFirestore | null = null;
const onFirestore = (what: string) =>
  what.startsWith("Google") ? "Google's Firestore emulator" : "the Firestore stand-in";

try {
  if (runs(2) || runs(5)) {
    firestore = await benchFirestore();
    process.env.FIRESTORE_EMULATOR_HOST = firestore.host;
    console.log(`Firestore for sections 2 and 5: ${firestore.what}`);
  }
  const host = firestore?.host ?? "";
  const official = firestore?.kind === "official";
  const firestoreName = onFirestore(firestore?.what ?? "");

  // Section 5 cites the signing cost section 1 measures: it runs for either.
  const v = runs(1) || runs(5) ? verifyBench() : null;
  if (runs(1) && v !== null) {
    say("## 1. Session-token verify, in-process (one core)");
    say();
    say("| Verifier | ops/s, median | range |");
    say("|---|---|---|");
    say(`| ours: RS256, keys imported once, synchronous check | ${fmt(median(v.ours))} | ${range(v.ours)} |`);
    say(`| firebase-admin \`verifySessionCookie\`, keys cached | ${fmt(median(v.baseline))} | ${range(v.baseline)} |`);
    say(
      `| ours, a token this instance verified before (bounded cache of verified tokens) | ${fmt(median(v.cached))} | ${range(v.cached)} |`,
    );
    const signature = v.algorithms[RS256]?.rates ?? [];
    say(
      `| the RSA-2048 signature check alone (node:crypto), same token and key: the ceiling | ${fmt(median(signature))} | ${range(signature)} |`,
    );
    say();
    const verifyRatio = median(v.ours) / median(v.baseline);
    say(
      `**Ratio, full check: ${verifyRatio.toFixed(2)}×** (target ≥ 4×: ${verdict(verifyRatio >= 4)}); ${fmt(median(v.ours))}/s per core (target ≥ 20,000/s: ${verdict(median(v.ours) >= 20_000)}). ` +
        `The full check runs at ${((100 * median(v.ours)) / median(signature)).toFixed(0)}% of the bare signature check it cannot skip.`,
    );
    say(
      `A token this instance has verified before costs a map lookup: ${fmt(median(v.cached) / median(v.baseline))}× the baseline.`,
    );
    say();
    say(
      "The bare signature check of each algorithm a session token could be signed with, same signing input, same rounds:",
    );
    say();
    say("| Algorithm | key can be published | ops/s, median | range | × baseline |");
    say("|---|---|---|---|---|");
    for (const [alg, { published, rates }] of Object.entries(v.algorithms))
      say(
        `| ${alg} | ${published ? "yes" : "no (shared secret)"} | ${fmt(median(rates))} | ${range(rates)} | ${(median(rates) / median(v.baseline)).toFixed(2)}× |`,
      );
    say();
    const publishable = Object.entries(v.algorithms).filter(([, a]) => a.published);
    const [fastestAlg, fastest] = publishable.reduce((best, next) =>
      median(next[1].rates) > median(best[1].rates) ? next : best,
    );
    const ceiling = median(fastest.rates) / median(v.baseline);
    say(
      `The fastest algorithm whose key can be published is ${fastestAlg}: its bare check is ${ceiling.toFixed(2)}× the baseline in this run, ` +
        (ceiling >= 4
          ? "so 4× is within reach of a verifier whose keys are published."
          : "so no verifier whose keys can be published reaches 4× here; only a shared secret could."),
    );
    say(
      "Session tokens stay RS256: their keys are the ones `GET /auth/oidc/jwks` publishes, so a backend on a sibling host can check `__session`",
    );
    say("offline, and no secret that can mint a session leaves this service.");
    say();
  }

  if (runs(2)) {
    say(
      `## 2. End to end over loopback (servers on core 0, autocannon on core 1, 16 connections; on ${firestoreName})`,
    );
    say();
    say(
      `Firestore: ${firestore?.what}, on core 1 beside autocannon. The conventional app reads the person from it on every request;`,
    );
    say(
      "ours reads nothing on these requests once the person is cached on its instance (section 3), so its figures hardly depend on which Firestore runs.",
    );
    say();
    const { rows, layers, steps } = await runHttpBench(host);
    loadTable(rows);
    const m = (name: string) => median((rows[name] ?? []).map((r) => r.rps));
    const p99Of = (name: string) => median((rows[name] ?? []).map((r) => r.p99));
    say();
    say(
      `**Refresh: ${(m("refresh, ours") / m("refresh, conventional")).toFixed(2)}× the conventional app** (target ≥ 2×).`,
    );
    say(
      `**Gated GET: ${(m("gated GET, ours") / m("gated GET, conventional")).toFixed(2)}× the conventional app** (target ≥ 2×); ` +
        `**${((100 * m("gated GET, ours")) / m("express /hello")).toFixed(0)}% of bare express /hello** (target ≥ 85%: ${verdict(m("gated GET, ours") >= 0.85 * m("express /hello"))}).`,
    );
    say(
      `At 16 connections a conventional gated GET takes ${fmt(16_000 / m("gated GET, conventional"))} ms on average (p99 ${p99Of("gated GET, conventional")} ms), ours ${(16_000 / m("gated GET, ours")).toFixed(1)} ms: ` +
        `the difference is the conventional app's ${official ? "read from Google's emulator" : "read from the stand-in"} and its verifier.`,
    );
    say();
    for (const line of layersTable(layers, steps)) say(line);
    say();
  }
  if (runs(3)) {
    say("## 3. Firestore operations per request (counted by the stand-in, one request at a time)");
    say();
    for (const line of operationsTable(await runOperations())) say(line);
    say();
    say("Counted around each request against the service as the soak runs it. Provider calls on the refresh and gated");
    say(
      "paths are counted by `functions/test/platform/operations.test.ts`, which also fails if a change adds a read to a hot path: 0.",
    );
    say(
      "POST /auth/verify writes the new session's record; a session's first request to an instance writes when it was",
    );
    say("last used (for the account page's list of sessions), at most once every 10 minutes per session and instance.");
    say(
      "From a browser the person has not signed in from, it writes one more document, the notice's outbox entry, and",
    );
    say(
      "reads nothing for it: whether the notice is mailed or folded into a summary is decided by the mail drainer, apart.",
    );
    say(
      "A delivered send writes its record in the send ledger, its claim of the address's minute, then its address's limits,",
    );
    say(
      "its code and its outbox record: 5 documents, none written by another send; before the ledger it wrote 7 (a client,",
    );
    say(
      "a network, a domain and a service shard's budget document besides), each shared by every send from there. A right",
    );
    say("code that signs its person in marks its send used.");
    say(
      "A send, a code sign-in and a first sign-in with a verified address read the address's invitation (one document, by",
    );
    say(
      "id) beside the person; a send reads both for every address, in parallel, so how long it takes tells no address apart.",
    );
    say(
      "**A delivered send: 2 queries and 6 reads (target ≤ 2 and ≤ 6; it was 6 and 9).** Who holds the address is one",
    );
    say(
      "document by id (it was a query of the people); the budgets are two counts far from their limits: the service's minute,",
    );
    say(
      "which holds every network's minute, and where the send came from and went, together; a budget neither vouches for",
    );
    say(
      "is counted alone, one query more. Sends racing for one address no longer count the address's minute: a send the",
    );
    say("budgets let through claims the address's minute, and the others are refused at once, as before.");
    say();
  }
  if (runs(4)) {
    say("## 4. Cold start: module load in a fresh process (one core)");
    say();
    const cold = runColdStart();
    say("| What loads | ms, median | range |");
    say("|---|---|---|");
    for (const [name, values] of Object.entries(cold)) say(`| ${name} | ${fmt(median(values))} | ${range(values)} |`);
    say();
    say(
      "An instance of function X loads `start X` when it starts: the runtime names X in FUNCTION_TARGET, and the entry",
    );
    say(
      "loads X's bundle alone (no other group, nothing from node_modules) with the code cache of the platform's build.",
    );
    say("Deploy reads the whole manifest, once, outside any instance. The first request whole: section 4b.");
    const worstStart = Math.max(...GATED_AND_SESSIONS.map((g) => median(cold[`start ${g}`] ?? [])));
    say(
      `**Start of the sessions, gated and email-code functions: at most ${fmt(worstStart)} ms vs eager ${fmt(median(cold.eager ?? []))} ms** (target < 100 ms: ${worstStart < 100 ? "met" : "not met"}).`,
    );
    say();
  }
  if (runs(5) && v !== null) {
    say(
      `## 5. OIDC provider vs oidc-provider: code grant, refresh, introspection, userinfo, revocation (servers on core 0, 16 connections, every request its own code or token; on ${firestoreName})`,
    );
    say();
    say(
      `Firestore: ${firestore?.what}, on core 1 beside the load generator; ours and oidc-provider on Firestore both store there.`,
    );
    say();
    const { rows: tokenRows, cpu, redeemed, lifecycle } = await runOidcBench(host);
    loadTable(tokenRows);
    const t = (name: string) => median((tokenRows[name] ?? []).map((r) => r.rps));
    const p99 = (name: string) => median((tokenRows[name] ?? []).map((r) => r.p99));
    const onPar = (peer: string) => verdict(t(OURS) >= t(peer) && p99(OURS) < p99(peer));
    const versus = (peer: string) =>
      `${(t(OURS) / t(peer)).toFixed(2)}× its req/s, p99 ${p99(OURS)} ms vs ${p99(peer)} ms`;
    say();
    say(
      `**Against oidc-provider storing in Firestore: ${versus(PEER_ON_FIRESTORE)}** (target ≥ 1×, lower p99: ${onPar(PEER_ON_FIRESTORE)}).`,
    );
    say(
      `**Against oidc-provider keeping its codes in process memory: ${versus(PEER_IN_MEMORY)}** (target ≥ 1×, lower p99: ${onPar(PEER_IN_MEMORY)}).`,
    );
    say();
    say(
      "Where the time went, from /proc during the same rounds (medians): the server's CPU per token, all its threads, and how",
    );
    const busyName = official ? "Firestore busy (the emulator's JVM)" : "Firestore stand-in busy";
    say(
      `busy its core was; and how busy ${official ? "Google's emulator was (its JVM, all threads" : "the Firestore stand-in was (its process"}; it has the other core, with the load generator), with its CPU per token.`,
    );
    say();
    say(`| Target | server CPU ms per token | server core busy | ${busyName} | Firestore CPU ms per token |`);
    say("|---|---|---|---|---|");
    const pct = (x: number) => `${Math.round(100 * x)}%`;
    for (const [name, uses] of Object.entries(cpu)) {
      const firestoreBusy = uses.map((u) => u.firestoreBusy ?? 0);
      const usesFirestore = name !== PEER_IN_MEMORY;
      const firestoreMs = median(uses.map((u) => u.firestoreMsPerRequest ?? 0)).toFixed(2);
      say(
        `| ${name} | ${median(uses.map((u) => u.msPerRequest)).toFixed(2)} | ${pct(median(uses.map((u) => u.serverBusy)))} | ${usesFirestore ? pct(median(firestoreBusy)) : "(not used)"} | ${usesFirestore ? firestoreMs : "(not used)"} |`,
      );
    }
    say();
    say(
      "Same flow on every side (PKCE S256, client_secret_basic, an RS256 ID token from a 2048-bit key; signing one costs",
    );
    say(
      `${(1000 / median(v.signing)).toFixed(2)} ms of CPU on this core, measured with section 1, on either side). Ours decides each code in a`,
    );
    say(
      "Firestore transaction; concurrent redemptions share one (group commit: one read of all their codes, one commit),",
    );
    say(
      "and each ID token is signed while its commit is on its way. oidc-provider on Firestore goes through its adapter interface, one plain call per step (find the code,",
    );
    say(
      `consume it, find the grant, store the access token), with no transaction: it is ${t(PEER_ON_FIRESTORE) < t(OURS) ? "slower" : "no slower here"} and, unlike ours, lets`,
    );
    say(
      "concurrent redemptions of one code succeed (the table below). In memory it stores nothing durably (its development",
    );
    say("mode: a restart or a second instance loses every code) and never waits for anything.");
    const cpuOf = (name: string) => median((cpu[name] ?? []).map((u) => u.msPerRequest)).toFixed(2);
    const busyOf = (name: string) => pct(median((cpu[name] ?? []).map((u) => u.serverBusy)));
    say(
      `Per token, ours spends ${cpuOf(OURS)} ms of CPU to its ${cpuOf(PEER_IN_MEMORY)} ms; at ${CONNECTIONS} connections ours keeps its core ${busyOf(OURS)} busy`,
    );
    say(
      `(the peer in memory ${busyOf(PEER_IN_MEMORY)}): the rest of the time each batch of redemptions is waiting for its read or its commit to come back.`,
    );
    say();
    say(
      `Redeemed once? ${RACE_CODES} codes, each presented ${RACE_TRIES} times at once; presentations that got tokens:`,
    );
    say();
    say("| Target | tokens issued | should be |");
    say("|---|---|---|");
    for (const [name, tokens] of Object.entries(redeemed)) say(`| ${name} | ${tokens} | ${RACE_CODES} |`);
    say();
    for (const line of lifecycleLines(lifecycle, {
      ours: OURS,
      inMemory: PEER_IN_MEMORY,
      onFirestore: PEER_ON_FIRESTORE,
    }))
      say(line);
  }
} finally {
  stopAll();
}

const day = started.toISOString().slice(0, 10);
const minutes = ((Date.now() - started.getTime()) / 60_000).toFixed(0);
const loads = `load average ${loadAtStart} at its start, ${machineLoad()} at its end`;
const header = `# Benchmark results

Produced by \`npm run bench\` (bench/run.ts) on ${day}, on this project's machine
(2 cores, shared; ${minutes} min, ${loads}). Each figure is the median of interleaved rounds with its range; each claim is a
ratio against a baseline measured in the same run.

`;
// The pages (bench/pages.ts), the soak (bench/soak.ts), the first read (bench/cold-start.ts
// --first-read, section 4b), the operator CLI (bench/operator.ts, section 7) and contention
// (bench/contention.ts, section 8) own their sections of the file; keep them as they are, and
// the comparison of the emulators (written by hand from runs on each).
const previous = existsSync(RESULTS_PATH) ? readFileSync(RESULTS_PATH, "utf8") : "";
const kept = (name: string, always = false) => {
  const found = sectionOf(previous, name) ?? (always ? `<!-- ${name}:start -->\n<!-- ${name}:end -->` : null);
  return found === null ? "" : `${found}\n\n`;
};

/** Sections 1 to 5 of a text, by their "## N." headings, each with the lines up to the next. */
function numbered(text: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const part of text.split(/^(?=## \d+\. )/m)) {
    const n = /^## (\d+)\. /.exec(part)?.[1];
    if (n !== undefined) found.set(Number(n), part.replace(/\n*$/, "\n"));
  }
  return found;
}

/** This run's sections; in a run of some of them, the others as the file had them. */
function body(): { head: string; text: string } {
  if (sections.length === ALL.length) return { head: header, text: lines.join("\n") };
  const top = previous.slice(0, previous.search(/^<!-- /m) < 0 ? previous.length : previous.search(/^<!-- /m));
  const before = numbered(top);
  const now = numbered(`${lines.join("\n")}\n`);
  const text = ALL.map((n) => (runs(n) ? now.get(n) : before.get(n)) ?? "")
    .filter((part) => part !== "")
    .map((part) => `${part}\n`)
    .join("")
    .replace(/\n+$/, "\n");
  const intro = top
    .slice(0, top.search(/^## /m) < 0 ? top.length : top.search(/^## /m))
    .replace(/\nSections? [\d, ]+ (?:was|were) run again[^\n]*\n/, "\n");
  const again = `Section${sections.length > 1 ? "s" : ""} ${sections.join(", ")} ${sections.length > 1 ? "were" : "was"} run again on ${day} (\`BENCH_SECTIONS=${sections.join(",")}\`, ${minutes} min, ${loads}).\n`;
  return { head: (intro === "" ? header : intro).replace(/\n\n$/, `\n${again}\n`), text };
}

// The header is not written, but its figures' context is still wanted beside the printed ones.
if (process.argv.includes("--no-write")) {
  console.log(`\n(${minutes} min, ${loads})`);
  process.exit(0);
}
const { head, text } = body();
writeFileSync(
  RESULTS_PATH,
  head +
    text +
    "\n" +
    kept("emulators") +
    kept("cold-start") +
    kept("pages", true) +
    kept("operator") +
    kept("contention") +
    kept("soak", true).replace(/\n$/, ""),
);
console.log("\nwritten to bench/RESULTS.md");
process.exit(0);
