/**
 * The soak's section of bench/RESULTS.md: each run (one per Firestore emulator) side by side,
 * then what was sent and answered in each (overall and inside each fault window) and every
 * invariant with its numbers, a column per run. Only the text between the soak's
 * markers is replaced; the rest of the file belongs to bench/run.ts.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { Exchange } from "./client.ts";
import { GRACE_MS, type Window } from "./faults.ts";
import type { Check } from "./invariants.ts";
import { windowOf } from "./invariants.ts";
import type { LostCode } from "./lost-codes.ts";

const START = "<!-- soak:start -->";
const END = "<!-- soak:end -->";

/** One run of the battery, on one Firestore emulator. */
export interface RunFacts {
  firestore: "official" | "stand-in";
  /** Why this emulator: the choice's own words. */
  why: string;
  plannedSeconds: number;
  seconds: number;
  users: number;
  people: number;
  /** What varied the fault timings; SOAK_SEED=<it> repeats them. */
  seed: string;
  /** The machine's 1-minute load average as the run began and ended (the soak shares the machine). */
  load: [number, number];
  helpers: Record<string, number>;
  skipped: Map<string, number>;
}

export interface Run {
  facts: RunFacts;
  exchanges: Exchange[];
  windows: Window[];
  checks: Check[];
  /** For a code sent just before each fault, when it reached the inbox (lost-codes.ts). */
  beforeFaults: string[];
  /** Each code that never came, explained. */
  lost: LostCode[];
}

const s = (ms: number) => (ms / 1000).toFixed(1);
const cell = (text: string) => text.replaceAll("|", "\\|");
const NAMES = { official: "Official emulator", "stand-in": "Stand-in" } as const;
const ON = { official: "Google's official Cloud Firestore emulator", "stand-in": "the Firestore stand-in" } as const;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** "200: 41 · 401: 3 (Code already used)": statuses with the errors seen under each. */
function answers(list: Exchange[]): string {
  const byStatus = new Map<number, Exchange[]>();
  for (const e of list) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e]);
  return [...byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, es]) => {
      const errors = [...new Set(es.map((e) => e.error).filter((x): x is string => x !== null))];
      const label = status === 0 ? "no answer" : String(status);
      return `${label}: ${es.length}${errors.length ? ` (${errors.slice(0, 3).join("; ")})` : ""}`;
    })
    .join(" · ");
}

function byEndpoint(list: Exchange[]): Map<string, Exchange[]> {
  const map = new Map<string, Exchange[]>();
  for (const e of list) map.set(e.endpoint, [...(map.get(e.endpoint) ?? []), e]);
  return new Map([...map.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

const failedOf = (run: Run) => run.checks.filter((c) => !c.pass).length;
const verdict = (run: Run) =>
  failedOf(run) === 0
    ? `all invariants held (${run.checks.length} checked)`
    : `${failedOf(run)} of ${run.checks.length} invariants FAILED`;

/** The figures of every run in one table, a column each. */
function sideBySide(runs: Run[]): string[] {
  const head = `| | ${runs.map((r) => NAMES[r.facts.firestore]).join(" | ")} |`;
  const rule = `|---|${runs.map(() => "---|").join("")}`;
  const row = (label: string, value: (r: Run) => string) =>
    `| ${label} | ${runs.map((r) => cell(value(r))).join(" | ")} |`;
  const lines = [
    head,
    rule,
    row("Why this emulator", (r) => r.facts.why),
    row("Load", (r) => `${s(r.facts.seconds * 1000)} s (planned ${r.facts.plannedSeconds} s)`),
    row("Fault timings' seed (SOAK_SEED)", (r) => r.facts.seed),
    row("Requests", (r) => `${r.exchanges.length} (${(r.exchanges.length / r.facts.seconds).toFixed(1)} a second)`),
    row("Answers ≥ 500 or none", (r) => String(r.exchanges.filter((e) => e.status >= 500 || e.status === 0).length)),
    row(
      "Machine load (1-min average, start → end)",
      (r) => `${r.facts.load[0].toFixed(1)} → ${r.facts.load[1].toFixed(1)}`,
    ),
    row("Invariants", (r) => `${r.checks.length - failedOf(r)} of ${r.checks.length} held`),
    "",
    `Per endpoint: requests sent, then p50 / p99 / max in ms.`,
    "",
    `| Endpoint | ${runs.map((r) => NAMES[r.facts.firestore]).join(" | ")} |`,
    rule,
  ];
  const endpoints = [...new Set(runs.flatMap((r) => r.exchanges.map((e) => e.endpoint)))].sort();
  for (const endpoint of endpoints)
    lines.push(
      `| ${endpoint} | ${runs
        .map((r) => {
          const ms = r.exchanges.filter((e) => e.endpoint === endpoint).map((e) => e.end - e.start);
          return ms.length === 0
            ? "–"
            : `${ms.length}: ${percentile(ms, 50).toFixed(0)} / ${percentile(ms, 99).toFixed(0)} / ${Math.max(...ms).toFixed(0)}`;
        })
        .join(" | ")} |`,
    );
  return lines;
}

/** Every invariant once, with each run's result and numbers beside it. */
function invariants(runs: Run[]): string[] {
  const names = [...new Set(runs.flatMap((r) => r.checks.map((c) => c.name)))];
  const lines = [
    `| Invariant | ${runs.map((r) => NAMES[r.facts.firestore]).join(" | ")} |`,
    `|---|${runs.map(() => "---|").join("")}`,
  ];
  for (const name of names)
    lines.push(
      `| ${cell(name)} | ${runs
        .map((r) => {
          const c = r.checks.find((x) => x.name === name);
          return c === undefined ? "not checked" : `${c.pass ? "PASS" : "**FAIL**"}: ${cell(c.numbers)}`;
        })
        .join(" | ")} |`,
    );
  return lines;
}

/** One run's answers, overall and in each fault window. */
function details(run: Run): string[] {
  const { facts, exchanges, windows } = run;
  const lines = [
    `### On ${ON[facts.firestore]}`,
    "",
    `${s(facts.seconds * 1000)} s of load, ${exchanges.length} requests; ${verdict(run)}.`,
    "",
    "| Endpoint | Sent | Answers by status (errors seen) | p50 ms | p99 ms | max ms |",
    "|---|---|---|---|---|---|",
  ];
  for (const [endpoint, list] of byEndpoint(exchanges)) {
    const ms = list.map((e) => e.end - e.start);
    lines.push(
      `| ${endpoint} | ${list.length} | ${answers(list)} | ${percentile(ms, 50).toFixed(0)} | ${percentile(ms, 99).toFixed(0)} | ${Math.max(...ms).toFixed(0)} |`,
    );
  }
  lines.push(`| **total** | ${exchanges.length} | | | | |`, "");
  for (const w of windows) {
    const inside = exchanges.filter((e) => windowOf(e, windows) === w);
    lines.push(
      `**${w.name}**, ${s(w.start)}–${s(w.end)} s: ${w.action}.${w.notes.length ? ` ${w.notes.join("; ")}.` : ""} ${inside.length} requests:`,
      "",
    );
    for (const [endpoint, list] of byEndpoint(inside)) lines.push(`- ${endpoint}: ${answers(list)}`);
    lines.push("");
  }
  lines.push("Codes sent just before a fault:", "", ...run.beforeFaults.map((line) => `- ${line}`), "");
  if (run.lost.length) {
    lines.push(`**Codes that never came** (${run.lost.length}):`, "");
    for (const code of run.lost) lines.push(...lostLines(code));
    lines.push("");
  }
  const helpers = Object.entries(facts.helpers)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  const skipped = [...facts.skipped.entries()].map(([what, n]) => `${n}× ${what}`).join("; ");
  lines.push(
    `Harness calls besides the service (not judged): ${helpers}. Scenario steps the harness could not complete: ${skipped || "none"}.`,
    "",
  );
  return lines;
}

/** The runs one after another (SOAK_RUNS), a row each, and every lost code of any of them. */
function inARow(all: Run[]): string[] {
  const lines = [
    "### Runs in a row",
    "",
    "| Run | Emulator | Seed (SOAK_SEED) | Load | Requests | Invariants | Codes waited for, never came | Codes held up by a fault: the slowest after its end |",
    "|---|---|---|---|---|---|---|---|",
  ];
  all.forEach((run, i) => {
    const check = (start: string) => run.checks.find((c) => c.name.startsWith(start))?.numbers ?? "";
    lines.push(
      `| ${i + 1} | ${NAMES[run.facts.firestore]} | ${run.facts.seed} | ${s(run.facts.seconds * 1000)} s | ${run.exchanges.length} | ${verdict(run)} | ${cell(check("Every code sent reached the inbox").split(";")[0] ?? "")} | ${cell(check("A code held up by a fault"))} |`,
    );
  });
  const lost = all.flatMap((run, i) => run.lost.map((code) => ({ run: i + 1, code })));
  if (lost.length) {
    lines.push("", `**Codes that never came**, over all runs (${lost.length}):`, "");
    for (const { run, code } of lost) lines.push(...lostLines(code, `run ${run}: `));
  }
  return [...lines, ""];
}

function lostLines(code: LostCode, prefix = ""): string[] {
  return [
    `- ${prefix}${code.address}, sent at ${code.sent}.`,
    `  - Outbox: ${code.entry}.`,
    `  - The mail task's wakes since: ${code.wakes}. Inbox at the end: ${code.inbox}.`,
    ...code.log.map((line) => `  - Log: ${cell(line)}`),
  ];
}

export function renderReport(meta: { command: string; date: string }, all: Run[]): string {
  // Side by side and in detail: the last run on each emulator; every run in the table of runs.
  const runs = (["official", "stand-in"] as const)
    .map((name) => all.filter((r) => r.facts.firestore === name).at(-1))
    .filter((r): r is Run => r !== undefined);
  const first = runs[0]?.facts;
  const order = runs.map((r) => ON[r.facts.firestore]).join(", then on ");
  const lines = [
    "## Reliability soak (`npm run soak`)",
    "",
    `Run on ${meta.date} with \`${meta.command}\`: the battery on ${order}, one run after the other, each with a fresh service, maildev and Auth emulator on loopback. ` +
      `Each run: mixed load for a planned ${first?.plannedSeconds ?? 0} s from ${first?.users ?? 0} virtual users over ${first?.people ?? 0} fixture people, ` +
      "against the service's sessions, otp, oidc, bridge, startpage, people and claims apps in one process that was never restarted, while the faults below act on its Firestore, mail server and gaming provider.",
    "",
    all.length > runs.length
      ? `**${all.length} runs in a row: ${all.filter((r) => failedOf(r) === 0).length} held every invariant.**`
      : `**${runs.map((r) => `${NAMES[r.facts.firestore]}: ${verdict(r)}`).join(". ")}.**`,
    "",
    ...(all.length > runs.length ? inARow(all) : []),
    "### Side by side",
    "",
    ...sideBySide(runs),
    "",
    "### Invariants",
    "",
    ...invariants(runs),
    "",
    "### Sent and answered, and fault windows",
    "",
    `A request belongs to a fault window when it overlaps it or the ${GRACE_MS / 1000} s after it.`,
    "",
    ...runs.flatMap(details),
  ];
  return lines.join("\n").trimEnd();
}

/** Replaces the soak's section of RESULTS.md, adding the markers at the end when absent. */
export function writeSection(path: string, section: string): void {
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  const block = `${START}\n${section}\n${END}`;
  const next =
    start >= 0 && end > start
      ? text.slice(0, start) + block + text.slice(end + END.length)
      : `${text.replace(/\n*$/, "\n\n")}${block}\n`;
  writeFileSync(path, next);
}
