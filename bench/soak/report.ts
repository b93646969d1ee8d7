/**
 * The soak's section of bench/RESULTS.md: what was sent, what was answered (overall and inside
 * each fault window) and every invariant with its numbers. Only the text between the soak's
 * markers is replaced; the rest of the file belongs to bench/run.ts.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { Exchange } from "./client.ts";
import { GRACE_MS, type Window } from "./faults.ts";
import type { Check } from "./invariants.ts";
import { windowOf } from "./invariants.ts";

const START = "<!-- soak:start -->";
const END = "<!-- soak:end -->";

export interface RunFacts {
  command: string;
  date: string;
  plannedSeconds: number;
  seconds: number;
  users: number;
  people: number;
  helpers: Record<string, number>;
  skipped: Map<string, number>;
}

const s = (ms: number) => (ms / 1000).toFixed(1);

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

export function renderReport(facts: RunFacts, exchanges: Exchange[], windows: Window[], checks: Check[]): string {
  const failed = checks.filter((c) => !c.pass).length;
  const lines = [
    "## Reliability soak (`npm run soak`)",
    "",
    `Run on ${facts.date} with \`${facts.command}\`: ${s(facts.seconds * 1000)} s of mixed load (planned ${facts.plannedSeconds} s) from ${facts.users} virtual users over ${facts.people} fixture people, ` +
      "against the service's sessions, otp, oidc, bridge, startpage, people and claims apps in one process that was never restarted, with a real Firestore stand-in, maildev and Auth emulator on loopback.",
    "",
    `**${failed === 0 ? "All invariants held" : `${failed} of ${checks.length} invariants FAILED`}** (${checks.length} checked).`,
    "",
    "### Sent and answered",
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
  lines.push(
    `| **total** | ${exchanges.length} | | | | |`,
    "",
    "### Fault windows",
    "",
    `A request belongs to a window when it overlaps it or the ${GRACE_MS / 1000} s after it.`,
    "",
  );
  for (const w of windows) {
    const inside = exchanges.filter((e) => windowOf(e, windows) === w);
    lines.push(
      `**${w.name}**, ${s(w.start)}–${s(w.end)} s: ${w.action}.${w.notes.length ? ` ${w.notes.join("; ")}.` : ""} ${inside.length} requests:`,
      "",
    );
    for (const [endpoint, list] of byEndpoint(inside)) lines.push(`- ${endpoint}: ${answers(list)}`);
    lines.push("");
  }
  lines.push("### Invariants", "", "| Invariant | Result | Numbers |", "|---|---|---|");
  for (const c of checks)
    lines.push(`| ${c.name} | ${c.pass ? "PASS" : "**FAIL**"} | ${c.numbers.replaceAll("|", "\\|")} |`);
  const helpers = Object.entries(facts.helpers)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  const skipped = [...facts.skipped.entries()].map(([what, n]) => `${n}× ${what}`).join("; ");
  lines.push(
    "",
    `Harness calls besides the service (not judged): ${helpers}. Scenario steps the harness could not complete: ${skipped || "none"}.`,
  );
  return lines.join("\n");
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
