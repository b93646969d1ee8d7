/**
 * Section 5's tables for the rest of a grant's life (bench/oidc-lifecycle.ts), as run.ts prints
 * them under the code grant's: the figures, ours as a ratio of each peer, the refresh race, and
 * ours per core beside what two anchors publish of theirs.
 */
import type { Lifecycle, Race } from "./oidc-lifecycle.ts";
import { RACE_PRESENTATIONS, RACE_REFRESH_TOKENS } from "./oidc-lifecycle.ts";
import { fmt, median, range } from "./lib/stats.ts";

/** The anchors' own figures, from their own machines; never measured here. */
const KEYCLOAK_REFRESHES_PER_VCPU = 120;
const HYDRA_INTROSPECTIONS = 7934;
const HYDRA_CPUS = 2;

/** A side's name as the lifecycle's rows say it: the code grant's row name without its endpoint. */
const side = (name: string) => name.replace(/^token endpoint, /, "");

export function lifecycleLines(l: Lifecycle, sides: { ours: string; inMemory: string; onFirestore: string }): string[] {
  const lines: string[] = [];
  const say = (line = "") => lines.push(line);
  const rps = (op: string, name: string) => median((l.rows[op]?.[name] ?? []).map((r) => r.rps));
  const p99 = (op: string, name: string) => median((l.rows[op]?.[name] ?? []).map((r) => r.p99));
  const cpuMs = (op: string, name: string) => median((l.cpu[op]?.[name] ?? []).map((u) => u.msPerRequest));
  const pct = (x: number) => `${Math.round(100 * x)}%`;

  say(
    "The rest of a grant's life on the same servers, Firestore and connections: each request presents a token of its own,",
  );
  say(
    "made beforehand by each side's own issuance for a client registered for refresh tokens (bench/oidc-lifecycle.ts and the",
  );
  say(
    "servers say how each side is configured). Refresh rotates on both sides; revocation is of a refresh token, which ends its grant on both.",
  );
  say(
    "Ours checks the person and the client in Firestore at every introspection and userinfo (the token's record, then both at once),",
  );
  say(
    "so that a person no longer approved or a disabled client is refused at once; oidc-provider reads its token and grant, and its",
  );
  say("account is a constant in its process (`findAccount`, as for the code grant): no store is read for the person.");
  say();
  say(
    "| Endpoint | Target | req/s, median | range | p99 ms, median | errors | non-2xx | server CPU ms per request | server core busy | Firestore CPU ms per request |",
  );
  say("|---|---|---|---|---|---|---|---|---|---|");
  for (const [op, bySide] of Object.entries(l.rows))
    for (const [name, results] of Object.entries(bySide)) {
      const uses = l.cpu[op]?.[name] ?? [];
      const firestore =
        name === sides.inMemory ? "(not used)" : median(uses.map((u) => u.firestoreMsPerRequest ?? 0)).toFixed(2);
      const rates = results.map((r) => r.rps);
      say(
        `| ${op} | ${side(name)} | ${fmt(median(rates))} | ${range(rates)} | ${p99(op, name)} | ${results.reduce((a, r) => a + r.errors, 0)} | ${results.reduce((a, r) => a + r.non2xx, 0)} | ${cpuMs(op, name).toFixed(2)} | ${pct(median(uses.map((u) => u.serverBusy)))} | ${firestore} |`,
      );
    }
  say();
  const revocationMs = median((l.cpu.revocation?.[sides.onFirestore] ?? []).map((u) => u.firestoreMsPerRequest ?? 0));
  say(
    "oidc-provider's revocation on Firestore deletes every model of the grant through its adapter's `revokeByGrantId`: a query by",
  );
  say(
    `grant id on each model's collection, which grow through the run. The emulator spent ${revocationMs.toFixed(2)} ms of its CPU per revocation on`,
  );
  say(
    "them, where a production Firestore reads a single-field index: that row bounds the emulator's queries more than oidc-provider.",
  );
  say();
  say("Ours against each peer, per endpoint (req/s as a ratio; p99 ours vs theirs):");
  say();
  say("| Endpoint | × oidc-provider on Firestore | p99 ms | × oidc-provider in memory | p99 ms |");
  say("|---|---|---|---|---|");
  const against = (op: string, peer: string) =>
    `${(rps(op, sides.ours) / rps(op, peer)).toFixed(2)}× | ${p99(op, sides.ours)} vs ${p99(op, peer)}`;
  for (const op of Object.keys(l.rows))
    say(`| ${op} | ${against(op, sides.onFirestore)} | ${against(op, sides.inMemory)} |`);
  say();
  raceLines(l.races, sides.ours).forEach((line) => say(line));
  perCoreLines(l, sides.ours, rps, cpuMs).forEach((line) => say(line));
  return lines;
}

/** "Refreshed once?": the counts, and what was left good afterwards. */
function raceLines(races: Record<string, Race>, ours: string): string[] {
  const each = (counts: number[]) => (counts.every((c) => c === counts[0]) ? `${counts[0]} each` : counts.join(", "));
  return [
    `Refreshed once? ${RACE_REFRESH_TOKENS} refresh tokens, each presented ${RACE_PRESENTATIONS} times at once: presentations that got tokens, per refresh`,
    "token and in all; then how many of the refresh tokens the race handed out introspection still calls active, and, for ours,",
    "how many grants are stored as ended by reuse (docs/endpoints/oidc.md: one is answered, and the others end the grant as a reuse).",
    "",
    "| Target | tokens per refresh token | in all | should be | handed out, still active after | grants ended as reuse |",
    "|---|---|---|---|---|---|",
    ...Object.entries(races).map(
      ([name, r]) =>
        `| ${side(name)} | ${each(r.tokensPerRefreshToken)} | ${r.tokensPerRefreshToken.reduce((a, c) => a + c, 0)} | ${RACE_REFRESH_TOKENS} | ${r.stillActive} | ${name === ours ? `${r.endedByReuse} of ${RACE_REFRESH_TOKENS}` : "(no such record)"} |`,
    ),
    "",
  ];
}

/**
 * Ours per core of its server, beside two figures the anchors publish of their own, on their own
 * machines, stores and load: context for a reader, not a comparison (nothing of theirs ran here).
 */
function perCoreLines(
  l: Lifecycle,
  ours: string,
  rps: (op: string, name: string) => number,
  cpuMs: (op: string, name: string) => number,
): string[] {
  const busy = (op: string) => Math.round(100 * median((l.cpu[op]?.[ours] ?? []).map((u) => u.serverBusy)));
  const row = (op: string) =>
    `${fmt(rps(op, ours))} (its core ${busy(op)}% busy); ${fmt(1000 / cpuMs(op, ours))} at its CPU per request`;
  return [
    "Per core, beside figures the anchors published: **these are their own figures, from other machines, stores and load, not",
    "measured here and not a side-by-side.** Ours is one server process on one core with its Firestore on the other core; the",
    "second figure is 1,000 ms over its CPU per request, what the core would give if nothing else bounded it.",
    "",
    "| Per vCPU | ours, here | published by the anchor (other machines) |",
    "|---|---|---|",
    `| refreshes a second | ${row("refresh")} | Keycloak's sizing guide plans ${KEYCLOAK_REFRESHES_PER_VCPU} refresh token requests a second per vCPU ("Concepts for sizing CPU and memory resources") |`,
    `| introspections a second | ${row("introspection")} | Ory Hydra reports ${fmt(HYDRA_INTROSPECTIONS)} introspections a second on ${HYDRA_CPUS} CPUs: ${fmt(HYDRA_INTROSPECTIONS / HYDRA_CPUS)} per CPU |`,
    "",
  ];
}
