/** `audit`: the audit trail (core/audit), filtered, as a table, JSON, JSON lines or CSV. */
import { auditTrail, type AuditRecord } from "../../core/audit";
import { AUDIT_COLUMNS, csv } from "../../core/audit-csv";
import { AUDIT_KINDS, storableInstant, type AuditKind } from "../../core/model/audit";
import { one, parseDuration, type Command } from "../cli";
import { table } from "../output";
import { UsageError } from "../refusals";

const LIMIT_MAX = 1000;

/** `24h`, `7d` before now, or an instant (ISO 8601). */
function instant(value: string, now: Date): Date {
  if (/^\d+[smhd]$/.test(value)) return new Date(now.getTime() - parseDuration(value));
  const at = new Date(value);
  if (!storableInstant(at)) throw new UsageError(`"${value}" is neither a duration (24h, 7d) nor a date`);
  return at;
}

/** An actor as given: `admin:<id>`, `operator:<login@machine>`, `person:<id>`, or a person's id alone (as an administrator). */
function actorId(value: string): string {
  return /^(admin|operator|person):/.test(value) ? value : `admin:${value}`;
}

const asJson = (r: AuditRecord) => ({ ...r, at: r.at.toISOString(), forgetAfter: r.forgetAfter.toISOString() });

export const auditCommand: Command = {
  name: "audit",
  summary: "the audit trail of privileged acts: who did what to whom, when, from where, and the outcome",
  usage:
    "audit [--actor <admin:id|operator:name|person:id|id>] [--person <id>] [--kind person|client|invitation|operator|refusal] [--since 24h|<date>] [--until <date>] [--limit n] [--format table|json|jsonl|csv]",
  options: {
    actor: { type: "string" },
    person: { type: "string" },
    kind: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    limit: { type: "string" },
  },
  formats: ["jsonl", "csv"],
  positionals: [0, 0],
  backend: true,
  async run(ctx, _args, values) {
    const deps = ctx.deps();
    const now = deps.clock.now();
    const kind = one(values, "kind");
    if (kind !== undefined && !(AUDIT_KINDS as readonly string[]).includes(kind))
      throw new UsageError(`--kind must be one of ${AUDIT_KINDS.join(", ")}`);
    const limit = Number(one(values, "limit") ?? "100");
    if (!Number.isInteger(limit) || limit < 1 || limit > LIMIT_MAX)
      throw new UsageError(`--limit must be a whole number from 1 to ${LIMIT_MAX}`);
    const actor = one(values, "actor");
    const person = one(values, "person");
    const since = one(values, "since");
    const until = one(values, "until");
    const records = await auditTrail(
      deps,
      {
        ...(actor === undefined ? {} : { actorId: actorId(actor) }),
        ...(person === undefined ? {} : { subject: person }),
        ...(kind === undefined ? {} : { kind: kind as AuditKind }),
        ...(since === undefined ? {} : { since: instant(since, now) }),
        ...(until === undefined ? {} : { until: instant(until, now) }),
      },
      limit,
    );
    const format = one(values, "format");
    // Every line ends in CRLF, the last one too (RFC 4180), as a spreadsheet expects.
    if (format === "csv") return void process.stdout.write(`${csv(records)}\r\n`);
    if (format === "jsonl") return void console.log(records.map((r) => JSON.stringify(asJson(r))).join("\n"));
    ctx.print(table(records, AUDIT_COLUMNS, "(no audit records)"), records.map(asJson));
  },
};
