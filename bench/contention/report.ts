/** Section 8 of bench/RESULTS.md: every scenario on each emulator, side by side, and what broke. */
import type { Phase, Result } from "./context.ts";
import { scaleNotes } from "./scale-report.ts";

const ms = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en") : "–");

function statuses(r: Result): string {
  return Object.entries(r.statuses)
    .sort(([, a], [, b]) => b - a)
    .map(([k, n]) => `${k} ×${n}`)
    .join(", ");
}

function first503(r: Result): string {
  if (r.first503 === undefined) return "";
  return r.first503 === null ? "none" : `${r.first503.rate.toFixed(1)} req/s (${r.first503.sent} sent)`;
}

function transactions(r: Result): string {
  const { runs, attempts, failed } = r.transactions;
  return `${runs} (${attempts - runs} retries, ${failed} failed)`;
}

/** Each scenario's p50 on Google's emulator over the stand-in's, e.g. `1a 11×`. */
function ratios(official: Phase | undefined, stand: Phase): string[] {
  const results = [...(official?.results ?? [])].sort((a, b) => a.id.localeCompare(b.id));
  return results.flatMap((r) => {
    const other = stand.results.find((x) => x.id === r.id);
    const ratio = other === undefined ? NaN : r.p50 / other.p50;
    return Number.isFinite(ratio) ? [`${r.id} ${ratio < 10 ? ratio.toFixed(1) : Math.round(ratio)}×`] : [];
  });
}

/** Broken contracts: a check marked as a bug that did not hold, or a 500. */
export function bugs(phases: Phase[]): string[] {
  return phases.flatMap((p) =>
    p.results.flatMap((r) =>
      r.checks.filter((c) => !c.ok && c.bug).map((c) => `${r.id} on ${p.name}: ${c.what}: ${c.detail}`),
    ),
  );
}

/** `official`: whether Google's emulator was found, and which copy it is or why there is none. */
export function section(
  phases: Phase[],
  official: { found: boolean; why: string },
  settings: Record<string, string>,
  minutes: number,
  code: string,
): string[] {
  const ids = [...new Set(phases.flatMap((p) => p.results.map((r) => r.id)))].sort();
  const rows: string[] = [];
  for (const id of ids)
    for (const p of phases) {
      const r = p.results.find((x) => x.id === id);
      if (r === undefined) continue;
      const success = `**${r.successes}** of ${r.requests}, expected ${r.expected} ${r.exact ? "✓" : "✗"}`;
      rows.push(
        `| ${r.id} ${r.title} | ${p.name} | ${statuses(r)} | ${success} | ${ms(r.p50)} | ${ms(r.p99)} | ${Number.isFinite(r.rate) ? r.rate.toFixed(1) : "–"} | ${first503(r)} | ${transactions(r)} |`,
      );
    }
  const notes = phases.flatMap((p) =>
    p.results.flatMap((r) =>
      r.checks
        .filter((c) => !c.ok)
        .map((c) => `- ${r.id} on ${p.name}${c.bug ? " (**broken**)" : ""}: ${c.what}: ${c.detail}.`),
    ),
  );
  const broken = bugs(phases);
  const stand = phases.find((p) => p.name === "stand-in");
  const slower =
    official.found && stand !== undefined
      ? ratios(
          phases.find((p) => p.name === "official"),
          stand,
        )
      : [];
  const logged = phases.map(
    (p) =>
      `${p.name}: ${
        Object.entries(p.logged)
          .filter(([k]) => !k.startsWith("INFO"))
          .map(([k, n]) => `${k} ×${n}`)
          .join(", ") || "no warning or error"
      }`,
  );
  return [
    "## 8. Contention: Google's Firestore emulator beside the stand-in (`npm run bench:contention`)",
    "",
    "The service in one process (the email-code, sessions and people groups through the service's own",
    "`createApp` and `buildDeps`), its settings read by its own `readConfig` with every setting at its default",
    `(${Object.entries(settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(", ")}), real firebase-admin on the`,
    "emulator, the Auth emulator, maildev; requests over loopback from the same process, each naming its",
    "client alone in X-Forwarded-For (so the client, network, domain and service budgets apply, and no CDN",
    "edge's share). Each emulator runs alone, in turn, the same workload on fresh data, after a warm-up of ten",
    "sends.",
    "The mail task runs in the same process, dispatched as its task queue dispatches it (at most five at once,",
    "a failed one tried again after 1, 2, 4 s, five attempts). The events to the apps (11) follow the drain (5),",
    "while nothing else is queued. The send budgets at scale (6 to 10) come last, on the same store, in the",
    "order 7, 6, 10, 9, 8; the send ledger keeps every send of the run (a record is forgotten an hour on).",
    official.found
      ? `Google's emulator: ${official.why}. The stand-in: one global FIFO transaction lock, never aborts.`
      : `**No official emulator on this machine** (${official.why}): the stand-in alone (one global FIFO transaction lock, never aborts).`,
    "",
    "A 503 is named by its Retry-After: `contention` (1 s) when a transaction outlasted the client's retries",
    "(ABORTED), `deadline` (5 s) when the request's 8 s deadline answered for it (its work goes on). Latency is",
    "per request; for 5, per drain round, and the rate is mails sent per second; for 11, per delivery, from the",
    "event's publishing to its arrival at the app, and the rate is deliveries per second. Transactions are every",
    "`runTransaction` the scenario caused, the mail task's included, with the client library's retries.",
    "Google's emulator locks the documents a transaction reads and times the waits out: how long a race on",
    "one document takes there, and how many of its requests meet the deadline, varies from one run to the next.",
    "",
    "| Scenario | Emulator | Answers | Succeeded | p50 ms | p99 ms | per s | First 503 at | Transactions |",
    "|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    ...scaleNotes(phases),
    "Checks that did not hold (the rest held: no 500, every request answered, and the stored state as",
    "expected: one code spent, five guesses compared, one send, no 200 without its code, budgets kept, one",
    "history entry and one notice per approval, each mail once, each event once to each app that answers,",
    "signed):",
    "",
    ...(notes.length ? notes : ["- none."]),
    "",
    ...(slower.length
      ? [`Median latency on Google's emulator, as a multiple of the stand-in's: ${slower.join(", ")}.`, ""]
      : []),
    broken.length === 0
      ? "**No broken contract** (no 500, no double success, no lost write, no budget exceeded)."
      : `**Broken contracts: ${broken.length}.**`,
    "",
    `Service log (warnings and errors): ${logged.join("; ")}.`,
    "",
    `Measured on ${code}, ${new Date().toISOString().slice(0, 10)}; the whole run took ${minutes.toFixed(1)} min on this 2-core machine (shared).`,
    "",
  ];
}
