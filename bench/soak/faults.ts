/**
 * The fault schedule: each fault is a real process action at a known time, and its window (from
 * the action until the component is back) is recorded so every answer can be judged against it.
 * The service's process is never touched: recovering is its job.
 *
 * Each at about its share of the run (moved a little, and lengthened or shortened, by the seed):
 *
 *   15% of the run  Firestore frozen (SIGSTOP … SIGCONT): connections stay open, nothing answers
 *   40%             Firestore stopped (SIGTERM), a new one started on the same port, fixture re-seeded
 *   65%             maildev stopped (SIGTERM), started again on the same ports
 *   85%             the gaming bridge's provider holds every check_authentication unanswered
 *
 * Each fault starts after at least 20 s of quiet load and once recovery shows (every main
 * endpoint succeeding again), waiting at most RECOVERY_MS for it; after the restart, also after
 * the service's OIDC client cache has forgotten what it read in the empty store.
 */
import type { Environment } from "./environment.ts";
import { reseed, type FixturePerson } from "./fixture.ts";
import { pause, type Control } from "./load.ts";
import { within } from "./store.ts";
import { service } from "../lib/functions.ts";

const { CLIENT_CACHE_TTL_MS } = service<{ CLIENT_CACHE_TTL_MS: number }>("core/oidc/clients");

/** Answers this soon after a window closes still count as inside it (reconnects, a 4 s gate deadline). */
export const GRACE_MS = 5000;

export interface Window {
  name: string;
  action: string;
  start: number;
  end: number;
  notes: string[];
}

export interface Schedule {
  seconds: number;
  /** Varies when each fault starts and how long it lasts; the same seed, the same timings. */
  seed: number;
  env: Environment;
  control: Control;
  people: FixturePerson[];
  now: () => number;
  /** Runs with the load paused and drained, just before the restart wipes the stored state. */
  beforeRestart: () => Promise<void>;
  /** Whether every main endpoint has succeeded in a request begun at `from` (ms) or later. */
  recoveredSince: (from: number) => boolean;
}

/** Long enough for the gate's 4 s deadline to matter, short enough for a quick run. */
export function faultSeconds(seconds: number): number {
  return Math.min(15, Math.max(5, Math.round(seconds / 12)));
}

const until = async (s: Schedule, atMs: number) => pause(Math.max(0, atMs - s.now()));

async function freeze(s: Schedule, ms: number): Promise<Window> {
  const w: Window = {
    name: "Firestore frozen",
    action: `SIGSTOP ${s.env.firestoreName}, SIGCONT ${ms / 1000} s later`,
    start: s.now(),
    end: 0,
    notes: [],
  };
  s.env.freezeFirestore();
  await pause(ms);
  s.env.thawFirestore();
  w.end = s.now();
  return w;
}

async function restart(s: Schedule, ms: number): Promise<Window> {
  const w: Window = {
    name: "Firestore restarted",
    action: `SIGTERM ${s.env.firestoreName}, a new one on the same port ${ms / 1000} s later, fixture re-seeded`,
    start: s.now(),
    end: 0,
    notes: [],
  };
  await s.env.stopFirestore();
  await pause(ms);
  // Re-seeding is the harness's job: no new scenario may create a person for a fixture account
  // in the empty store before its own record is back.
  const paused = s.now();
  s.control.pause();
  const drained = await s.control.drained(45_000);
  if (!drained) w.notes.push(`${s.control.inFlight} scenario(s) still running after 45 s of draining`);
  await s.env.startFirestore();
  const removed = await within(60_000, reseed(s.people));
  s.control.resume();
  if (removed.length)
    w.notes.push(
      `before re-seeding, the new empty store already held ${removed.length} person(s) for fixture accounts, written by requests the service was still working on after the load paused; removed: ${removed.join(", ")}`,
    );
  w.end = s.now();
  w.notes.push(
    `load paused ${((w.end - paused) / 1000).toFixed(1)} s (drain, start, re-seed of ${s.people.length} people)`,
  );
  return w;
}

async function mail(s: Schedule, ms: number): Promise<Window> {
  const w: Window = {
    name: "Mail server down",
    action: `SIGTERM maildev, started again on the same ports ${ms / 1000} s later`,
    start: s.now(),
    end: 0,
    notes: [],
  };
  await s.env.stopMail();
  await pause(ms);
  await s.env.startMail();
  w.end = s.now();
  return w;
}

async function hang(s: Schedule, ms: number): Promise<Window> {
  const w: Window = {
    name: "Bridge provider hanging",
    action: `the gaming provider holds every check_authentication request unanswered for ${ms / 1000} s`,
    start: s.now(),
    end: 0,
    notes: [],
  };
  s.env.gaming?.setMode("hang");
  await pause(ms);
  s.env.gaming?.setMode("normal");
  w.end = s.now();
  return w;
}

/** Load between two windows, and after the last: recovery must show in it. */
const QUIET_MS = 20_000;
/**
 * How long after a window's grace the schedule waits for every main endpoint to succeed again
 * before it goes on regardless (and the recovery invariant fails): on the official emulator the
 * load makes fewer requests a second, and the rarest endpoint needs the time to come round.
 */
export const RECOVERY_MS = 60_000;

/** A small seeded generator (mulberry32): numbers in [0, 1), the same for the same seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function runFaults(s: Schedule): Promise<Window[]> {
  const total = s.seconds * 1000;
  const random = seeded(s.seed);
  // Each fault's share of the run moved by up to ±5 %, and its length between 60 % and 140 % of
  // the base, so that runs meet the service in different states; a seed repeats a run's timings.
  const share = (base: number) => base + (random() - 0.5) * 0.1;
  const length = () => Math.round(faultSeconds(s.seconds) * (0.6 + random() * 0.8) * 10) * 100;
  const windows: Window[] = [];
  // A fault starts at its share of the run, but never before the previous one has had its quiet time.
  const next = async (share: number, quietMs = QUIET_MS) => {
    const last = windows.at(-1);
    await until(s, Math.max(share * total, (last?.end ?? 0) + quietMs));
    if (last === undefined) return;
    const from = last.end + GRACE_MS;
    while (!s.recoveredSince(from) && s.now() < from + RECOVERY_MS) await pause(250);
  };
  await next(share(0.15));
  windows.push(await freeze(s, length()));
  await next(share(0.4));
  s.control.pause();
  const drained = await s.control.drained(30_000);
  await s.beforeRestart();
  s.control.resume();
  const restarted = await restart(s, length());
  if (!drained) restarted.notes.push("the stored-state check before the restart ran with scenarios still in flight");
  windows.push(restarted);
  // A request still in flight from before the restart may have looked the relying party up in the
  // new, empty store before the re-seed: the service caches it as unknown for the cache's lifetime
  // (unknown clients are cached by design), so its sign-ins can only recover once that has lapsed.
  restarted.notes.push(
    `the next fault waits a further ${CLIENT_CACHE_TTL_MS / 1000} s, the service's cache lifetime of an OIDC client read as unknown in the empty store`,
  );
  await next(share(0.65), QUIET_MS + CLIENT_CACHE_TTL_MS);
  windows.push(await mail(s, length()));
  await next(share(0.85));
  windows.push(await hang(s, length()));
  await next(1);
  return windows;
}
