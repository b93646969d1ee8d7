import type { Deps } from "../deps";
import type { Person } from "../model/person";
import * as history from "../../store/person-history";
import type { Actor, HistoryEntry, HistoryEvent, Via } from "../model/history";
import type { Transaction } from "../../store/db";
import { auditHistoryEntry } from "../audit";

/** The fields of a person whose changes the history keeps. */
const TRACKED = ["status", "role", "projects", "groups", "name", "emails", "phones", "uids", "note"] as const;

type Changes = HistoryEntry["changes"];

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Each tracked field that differs between `before` (null: the person is new) and `after`. */
export function changesBetween(before: Person | null, after: Person): Changes {
  const changes: Changes = {};
  for (const field of TRACKED) {
    const from = before === null ? null : before[field];
    const to = after[field];
    const empty = to === "" || (Array.isArray(to) && to.length === 0);
    if (before === null ? !empty : !same(from, to)) changes[field] = { from, to };
  }
  return changes;
}

/**
 * Records, in `tx`, an event in the person's history, and an administrator's act in the audit
 * trail too (core/audit); a change that changed nothing is not one.
 */
export function recordEvent(
  deps: Pick<Deps, "store" | "random" | "clock">,
  tx: Transaction,
  entry: {
    personId: string;
    by: Actor;
    via: Via;
    event: HistoryEvent;
    changes: Changes;
    /** Particulars for the audit trail's record alone, not the history's (none a person's own). */
    audited?: Record<string, string | string[]>;
  },
): void {
  if (entry.event === "changed" && Object.keys(entry.changes).length === 0) return;
  const { audited, ...told } = entry;
  history.add(deps.store, tx, { ...told, id: deps.random.id(), at: deps.clock.now() });
  auditHistoryEntry(deps, tx, told, audited);
}

/** One page of a person's history, newest first; `next` continues it, null at its start. */
export async function personHistory(
  deps: Pick<Deps, "store">,
  personId: string,
  limit: number,
  before: string | null,
): Promise<{ entries: HistoryEntry[]; next: string | null }> {
  const entries = await history.page(deps.store, personId, limit + 1, before);
  const shown = entries.slice(0, limit);
  return { entries: shown, next: entries.length > limit ? (shown[shown.length - 1]?.key ?? null) : null };
}
