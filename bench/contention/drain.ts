/**
 * Scenario 5: the outbox drained by several workers at once. 50 mails are queued as the rules
 * queue them (core/outbox/enqueue's enqueueMail, in one transaction), then 4 workers each run the
 * `mail` task's work (mailRound) until nothing is due, as concurrent task dispatches would: every
 * mail must reach the inbox exactly once, under its Message-ID, and be marked sent.
 */
import { service } from "../lib/functions.ts";
import { now, percentile } from "./measure.ts";
import { check, settle, snapshot, type Context, type Result } from "./context.ts";
import { duplicates } from "./inbox.ts";

const { enqueueMail } = service<any>("core/outbox/enqueue");
const { run: mailRound } = service<any>("tasks/mail");
const outbox = service<any>("store/outbox");

const MAILS = 50;
const WORKERS = 4;
/** Each worker stops after this many rounds or this long, whichever comes first. */
const MAX_ROUNDS = 20;
const MAX_MS = 120_000;

export async function drainRace(ctx: Context): Promise<Result> {
  const { deps, store } = ctx.svc;
  await settle(ctx.svc);
  await ctx.inbox.clear();
  // Queued without waking the service's own mail task (a commit that queues wakes the drain):
  // the workers' drains are the ones measured.
  const own = deps.mailQueue;
  deps.mailQueue = { wake: async () => {} };
  const ids: string[] = await deps
    .transaction(async (tx: unknown) => {
      const deliverBy = new Date(deps.clock.now().getTime() + 30 * 60_000);
      return Array.from({ length: MAILS }, (_, i) => {
        const to = `reader-${i}@drain.example`;
        const message = { to, subject: `Bench mail ${i}`, text: `Mail ${i}\n`, html: `<p>Mail ${i}</p>` };
        return enqueueMail(deps, tx, message, { kind: "code", deliverBy }) as string;
      });
    })
    .finally(() => (deps.mailQueue = own));
  // The workers' own wakes are theirs to make: each goes on until nothing is due.
  const workerDeps = { ...deps, mailQueue: { wake: async () => {} } };
  const before = snapshot(ctx.svc);
  const rounds: number[] = [];
  const errors: string[] = [];
  const t = now();
  const worker = async () => {
    for (let round = 0; round < MAX_ROUNDS && now() - t < MAX_MS; round++) {
      const started = now();
      try {
        await mailRound(workerDeps);
      } catch (err) {
        errors.push(err instanceof Error ? err.message.slice(0, 80) : String(err));
      }
      rounds.push(now() - started);
      if ((await outbox.due(store, deps.clock.now(), 1)).length === 0) return;
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  const drainedMs = now() - t;
  await settle(ctx.svc);
  const entries = await Promise.all(ids.map((id) => outbox.findById(store, id)));
  const states: Record<string, number> = {};
  for (const e of entries) states[e?.state ?? "missing"] = (states[e?.state ?? "missing"] ?? 0) + 1;
  const mails = await ctx.inbox.atLeast(MAILS, 30_000);
  const messageIds = new Set(mails.map((m) => m.messageId));
  const ours = (id: string) => `<${id}@${deps.config.parentDomain}>`;
  const missing = ids.filter((id) => !messageIds.has(ours(id)));
  const sentUnmailed = ids.filter((id, i) => entries[i]?.state === "sent" && !messageIds.has(ours(id)));
  const mailedPending = ids.filter((id, i) => entries[i]?.state === "pending" && messageIds.has(ours(id)));
  const doubled = duplicates(mails);
  const after = snapshot(ctx.svc);
  const sent = states.sent ?? 0;
  return {
    id: "5",
    title: `${MAILS} queued mails, ${WORKERS} drains at once`,
    requests: MAILS,
    statuses: {
      ...Object.fromEntries(Object.entries(states).map(([k, v]) => [`outbox ${k}`, v])),
      ...(errors.length ? { "drain failed": errors.length } : {}),
    },
    successes: messageIds.size,
    expected: `${MAILS}, each once`,
    exact: messageIds.size === MAILS && doubled.length === 0 && missing.length === 0,
    p50: percentile(rounds, 50),
    p99: percentile(rounds, 99),
    rate: MAILS / (drainedMs / 1000),
    transactions: {
      runs: after.runs - before.runs,
      attempts: after.attempts - before.attempts,
      failed: after.failed - before.failed,
    },
    checks: [
      check("each mail once", doubled.length === 0, doubled.length === 0 ? "yes" : doubled.slice(0, 3).join(", ")),
      check("every mail delivered", missing.length === 0, `${missing.length} missing`, sentUnmailed.length > 0),
      check("marked sent", sent === MAILS, `${sent} of ${MAILS}`, false),
      check(
        "delivered but still pending (sent again when its claim lapses)",
        mailedPending.length === 0,
        `${mailedPending.length}`,
        false,
      ),
      check(
        "drains that failed",
        errors.length === 0,
        errors.length === 0 ? "none" : `${errors.length}: ${errors[0]}`,
        false,
      ),
    ],
    wallMs: drainedMs,
  };
}
