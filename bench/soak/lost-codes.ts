/**
 * Why a code never came: for each one the load waited for in vain, what the service and the
 * harness know of it. Its outbox entry is found by opening every stored message with the run's
 * CODE_PEPPER (the harness holds it) and matching the address; the service's log names the
 * entry's id on each attempt, and the mail task's wakes are logged with their times.
 */
import { readFileSync } from "node:fs";
import { service } from "../lib/functions.ts";
import type { MailWait } from "./context.ts";
import type { Window } from "./faults.ts";
import { db, within } from "./store.ts";

const { unseal } = service<any>("core/seal");
const { parsePepper } = service<any>("core/pepper");

export interface LostCode {
  address: string;
  /** When the send was answered, and the fault window it fell in (or the last one before it). */
  sent: string;
  /** The entry as stored at the end, or why there is none. */
  entry: string;
  /** The service's log lines naming the entry, in order. */
  log: string[];
  /** The mail task's wakes from the send on, as the service logged them. */
  wakes: string;
  /** Whether the inbox holds a mail to the address now (delivered, but not seen within the wait). */
  inbox: string;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const toMs = (value: any): number | null =>
  value === null || value === undefined ? null : typeof value.toMillis === "function" ? value.toMillis() : null;

/** Where `at` (ms since the soak started) falls against the fault windows. */
export function placed(at: number, windows: Window[]): string {
  const inside = windows.find((w) => at >= w.start && at <= w.end);
  if (inside) return `during "${inside.name}" (${secs(inside.start)}–${secs(inside.end)})`;
  const before = windows.filter((w) => w.end < at).at(-1);
  const after = windows.find((w) => w.start > at);
  return [
    before ? `${secs(at - before.end)} after "${before.name}" ended` : "before any fault",
    after ? `${secs(after.start - at)} before "${after.name}"` : "after the last fault",
  ].join(", ");
}

interface LogLine {
  at?: number;
  message?: string;
  outboxId?: string;
  [field: string]: unknown;
}

function readLog(path: string): LogLine[] {
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const lines: LogLine[] = [];
  for (const raw of text.split("\n")) {
    if (!raw.startsWith("{")) continue;
    try {
      lines.push(JSON.parse(raw) as LogLine);
    } catch {
      // A line cut short by the process's end: nothing to learn from it.
    }
  }
  return lines;
}

/** Every stored outbox entry with the address its message goes to. */
async function entriesByAddress(pepper: string): Promise<Map<string, Array<Record<string, any>>>> {
  const ring = parsePepper(pepper);
  const snaps = await within(30_000, db().collection("outbox").get());
  const found = new Map<string, Array<Record<string, any>>>();
  for (const doc of (snaps as any).docs) {
    const data = doc.data();
    const message = data.sealed ? unseal(ring, data.sealed) : null;
    const to = typeof message?.to === "string" ? message.to.toLowerCase() : null;
    if (to === null) continue;
    found.set(to, [...(found.get(to) ?? []), { id: doc.id, ...data }]);
  }
  return found;
}

function describeEntry(entry: Record<string, any>, t0: number): string {
  const at = (field: string) => {
    const ms = toMs(entry[field]);
    return ms === null ? "none" : secs(ms - t0);
  };
  return (
    `${entry.id}: ${entry.state}, ${entry.attempts} attempt(s), created ${at("createdAt")}, ` +
    `next attempt ${at("nextAttemptAt")}, sent ${at("sentAt")}, claim ${entry.claim ? "held" : "none"}, ` +
    `last error ${entry.lastError ?? "none"}, deliver by ${at("deliverBy")}`
  );
}

/**
 * The lost codes, explained. `t0` is the wall time (ms) the soak's clock counts from, so stored
 * times and log times read as the report's seconds.
 */
export async function explainLost(
  lost: MailWait[],
  windows: Window[],
  options: { pepper: string; serviceLog: string; mailUrl: string; t0: number },
): Promise<LostCode[]> {
  if (lost.length === 0) return [];
  const entries = await entriesByAddress(options.pepper).catch((err: unknown) => {
    console.log(`soak: the outbox could not be read to explain the lost codes: ${String(err)}`);
    return new Map<string, Array<Record<string, any>>>();
  });
  const log = readLog(options.serviceLog);
  const inbox = (await fetch(`${options.mailUrl}/email`, { signal: AbortSignal.timeout(30_000) })
    .then((r) => (r.ok ? (r.json() as Promise<Array<{ to?: Array<{ address: string }>; date?: string }>>) : []))
    .catch(() => [])) as Array<{ to?: Array<{ address: string }>; date?: string }>;
  return lost.map((wait) => {
    const address = wait.address.toLowerCase();
    const mine = (entries.get(address) ?? []).filter(
      (e) => (toMs(e.createdAt) ?? 0) - options.t0 >= wait.sentAt - 10_000,
    );
    const ids = new Set(mine.map((e) => e.id as string));
    const named = log
      .filter((line) => line.outboxId !== undefined && ids.has(line.outboxId))
      .map((line) => {
        const { at, message, outboxId: _id, severity: _s, ...rest } = line;
        return `${at === undefined ? "?" : secs(at - options.t0)} ${message} ${JSON.stringify(rest)}`;
      });
    const wakes = log.filter(
      (line) => line.message === "mail woken" && line.at !== undefined && line.at - options.t0 >= wait.sentAt - 1000,
    );
    const delivered = inbox.filter((m) => (m.to ?? []).some((t) => t.address.toLowerCase() === address));
    return {
      address: wait.address,
      sent: `${secs(wait.sentAt)}, ${placed(wait.sentAt, windows)}`,
      entry: mine.length
        ? mine.map((e) => describeEntry(e, options.t0)).join("; ")
        : "no entry to this address in the outbox",
      log: named,
      wakes: wakes.length
        ? `${wakes.length}, the first at ${secs((wakes[0]!.at as number) - options.t0)}, the last at ${secs((wakes.at(-1)!.at as number) - options.t0)}`
        : "none logged after the send",
      inbox: delivered.length
        ? `${delivered.length} mail(s) to the address, filed ${delivered.map((m) => m.date ?? "?").join(", ")}`
        : "no mail to the address",
    };
  });
}

/** For a code sent just before each fault: how long after the window's end it reached the inbox. */
export function justBefore(waits: MailWait[], windows: Window[]): string[] {
  return windows.map((w) => {
    const before = waits.filter((m) => m.sentAt <= w.start).sort((a, b) => b.sentAt - a.sentAt)[0];
    if (!before) return `${w.name}: no code was sent before it`;
    const lead = secs(w.start - before.sentAt);
    if (before.arrivedAt === null) return `${w.name}: the code sent ${lead} before it never came`;
    const after = before.arrivedAt - w.end;
    return `${w.name}: the code sent ${lead} before it arrived ${after <= 0 ? `before the window ended (${secs(before.arrivedAt - before.sentAt)} after its send)` : `${secs(after)} after the window ended`}`;
  });
}
