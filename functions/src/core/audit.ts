/**
 * The audit trail (model/audit): every privileged act, recorded once, in the act's own transaction
 * where it has one, and written to the log as one line labelled `trail: audit` once that
 * transaction has committed, so a Cloud Logging sink can carry the trail out of the project
 * (docs/deploying.md). An administrator's act on a person is recorded from the entry the person's
 * history gets for it (people/history); an administrator's review of an app from the review; an
 * operator's command by the command line itself, once per command (ops/operator); a privileged
 * request refused at the gate, by the gate.
 */
import type { Deps } from "./deps";
import type { Logger } from "../logger";
import type { Transaction } from "../store/db";
import type { TransactionRunner } from "./ports";
import * as trail from "../store/audit-trail";
import { currentTrace } from "../trace";
import type { Actor, HistoryEntry } from "./model/history";
import {
  ACCESS_FIELDS,
  AUDIT_KEPT_MS,
  actorIdOf,
  type AuditActor,
  type AuditKind,
  type AuditRecord,
} from "./model/audit";

export { AUDIT_KEPT_MS, type AuditRecord };

/** What an act says of itself; the trail adds when, who as one string, its trace and its retention. */
export interface AuditInput {
  actor: AuditActor;
  kind: AuditKind;
  action: string;
  subjects: string[];
  detail?: AuditRecord["detail"];
  outcome?: AuditRecord["outcome"];
  client: AuditRecord["client"];
}

/** The log line's label: what a sink's filter names (`labels.trail="audit"`). */
export const AUDIT_LABELS = { "logging.googleapis.com/labels": { trail: "audit" } };

/** The record as one log line: the record itself, dates as ISO strings, and the label. */
export function logAudit(log: Logger, record: AuditRecord): void {
  const { at, forgetAfter: _kept, ...rest } = record;
  log.info("audit", { ...rest, at: at.toISOString(), ...AUDIT_LABELS });
}

/** The records each running attempt of a transaction has made, by its transaction. */
const attempts = new WeakMap<Transaction, AuditRecord[]>();

/**
 * Transactions run by `run` whose audit records are logged once they have committed: Firestore
 * runs the work again on contention, and only the attempt that committed is logged.
 */
export function loggingAuditAfterCommit(run: TransactionRunner, log: () => Logger): TransactionRunner {
  return async (work) => {
    let last: AuditRecord[] = [];
    const result = await run((tx) => {
      const made: AuditRecord[] = [];
      last = made;
      attempts.set(tx, made);
      return work(tx);
    });
    for (const record of last) logAudit(log(), record);
    return result;
  };
}

function recordOf(deps: Pick<Deps, "clock">, input: AuditInput, id: string): AuditRecord {
  const at = deps.clock.now();
  return {
    id,
    at,
    actor: input.actor,
    actorId: actorIdOf(input.actor),
    kind: input.kind,
    action: input.action,
    subjects: input.subjects,
    detail: input.detail ?? {},
    outcome: input.outcome ?? "done",
    client: input.client,
    traceId: currentTrace(),
    forgetAfter: new Date(at.getTime() + AUDIT_KEPT_MS),
  };
}

/**
 * Records an act in `tx`, logged once the transaction commits: every transaction of the functions
 * runs under loggingAuditAfterCommit (deps.ts).
 */
export function recordAudit(deps: Pick<Deps, "store" | "clock" | "random">, tx: Transaction, input: AuditInput): void {
  const record = recordOf(deps, input, deps.random.id());
  trail.addIn(deps.store, tx, record);
  attempts.get(tx)?.push(record);
}

/** Records an act that had no transaction of its own (an operator's command), and logs it. */
export async function recordAuditNow(
  deps: Pick<Deps, "store" | "clock" | "random" | "log">,
  input: AuditInput,
): Promise<AuditRecord> {
  const record = recordOf(deps, input, deps.random.id());
  await trail.add(deps.store, record);
  logAudit(deps.log, record);
  return record;
}

/** One minute: a person's refusals of one route within it are one record. */
const REFUSALS_PER = 60_000;
/** How many refusals an instance remembers within a minute before it starts over (memory, not the bound). */
const REFUSALS_REMEMBERED = 10_000;

/** The refusals this instance has recorded in the current minute, by the store they went to: their writes. */
const refusedThisMinute = new WeakMap<object, { minute: number; writes: Map<string, Promise<void>> }>();

/**
 * Records a privileged act refused to an approved person (the gate's, for an administrators'
 * route): one record per person, route (whatever the method) and minute (store/audit-trail
 * putRefusal), so asking again and again cannot grow the trail past the routes there are. Asked
 * again within the minute, an instance writes and logs nothing more: it answers with its first
 * refusal's write. Across instances each writes once a minute, the last write standing; so a
 * minute of refusals costs at most one write and one `audit` line per instance. Logged before the
 * write, so a refusal Firestore could not take is still in the log.
 */
export function recordRefusal(
  deps: Pick<Deps, "store" | "clock" | "log">,
  input: Omit<AuditInput, "outcome" | "kind">,
  reason: string,
): Promise<void> {
  const minute = Math.floor(deps.clock.now().getTime() / REFUSALS_PER);
  const key = `refused~${actorIdOf(input.actor)}~${String(input.detail?.route ?? "")}~${minute}`.replace(/\//g, "|");
  let seen = refusedThisMinute.get(deps.store);
  if (seen === undefined || seen.minute !== minute) {
    seen = { minute, writes: new Map() };
    refusedThisMinute.set(deps.store, seen);
  }
  const known = seen.writes.get(key);
  if (known !== undefined) return known;
  if (seen.writes.size >= REFUSALS_REMEMBERED) seen.writes.clear();
  const record = recordOf(
    deps,
    { ...input, kind: "refusal", outcome: "refused", detail: { ...input.detail, reason } },
    key,
  );
  logAudit(deps.log, record);
  const written = trail.putRefusal(deps.store, key, record);
  const writes = seen.writes;
  writes.set(key, written);
  // A write that failed is tried again at the next refusal.
  written.catch(() => writes.delete(key));
  return written;
}

/** An administrator acting through the API, as the trail names them, and the browser they acted from. */
export function adminAudited(by: {
  admin: { id: string };
  amr: string[];
  from: string;
  standing?: string;
}): Pick<AuditInput, "actor" | "client"> {
  return {
    actor: { kind: "admin", personId: by.admin.id, amr: by.amr, lifted: by.standing === "lifted" },
    client: { via: "api", from: by.from },
  };
}

/** A person's history actor, as the trail names them; null for one the trail does not record from the history. */
function auditActorOf(by: Actor): AuditActor | null {
  if (by.kind !== "admin") return null;
  return { kind: "admin", personId: by.personId, amr: by.amr ?? [], lifted: by.lifted === true };
}

/** Events that mirror another entry of the same act in the actor's own history: recorded once, from the person's. */
const MIRRORS = new Set<HistoryEntry["event"]>(["exported-someone", "erased-someone"]);
const INVITATION_EVENTS = new Set<HistoryEntry["event"]>([
  "invited-someone",
  "invitation-resent",
  "invitation-revoked",
]);

/**
 * The trail's record of an administrator's act told by a person's history entry, in its
 * transaction: which fields changed (the values of those that say what the person may do), never
 * an address or a name; an invitation's record, what it lets in (`audited`). Not recorded from the
 * history: an operator's acts (the command line records each command), the mirror of an act in
 * the actor's own history, and a person's arrival by an invitation (the act was the invitation,
 * recorded when it was made; the arrival is the invitee's, whatever its entry names as `by`).
 */
export function auditHistoryEntry(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  entry: Omit<HistoryEntry, "id" | "at" | "key">,
  audited: AuditRecord["detail"] = {},
): void {
  const actor = auditActorOf(entry.by);
  if (actor === null || MIRRORS.has(entry.event) || entry.via === "invitation") return;
  const invitation = INVITATION_EVENTS.has(entry.event);
  const detail: AuditRecord["detail"] = invitation ? {} : { fields: Object.keys(entry.changes).sort() };
  for (const field of ACCESS_FIELDS) {
    const change = entry.changes[field];
    if (change === undefined || invitation) continue;
    detail[`${field}.from`] = change.from ?? "";
    detail[`${field}.to`] = change.to ?? "";
  }
  recordAudit(deps, tx, {
    actor,
    kind: invitation ? "invitation" : "person",
    action: `${invitation ? "invitation" : "person"}.${entry.event}`,
    // An invitation is to an address, which the trail does not keep: its record names what it lets in.
    subjects: invitation ? [] : [entry.personId],
    detail: { ...detail, ...audited },
    client: { via: entry.via === "cli" ? "cli" : "api", from: null },
  });
}

/** Records newest first, filtered (store/audit-trail page). */
export const auditTrail = (
  deps: Pick<Deps, "store">,
  filter: trail.TrailFilter,
  limit: number,
  before: { at: Date; id: string } | null = null,
): Promise<AuditRecord[]> => trail.page(deps.store, filter, limit, before);
