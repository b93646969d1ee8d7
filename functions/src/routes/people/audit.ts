/**
 * `GET /auth/audit`: the audit trail (core/audit) for administrators, with the people
 * administration's gate: filtered by actor, person (or app), kind and time, newest first, a page
 * at a time; as JSON, or as CSV to download (`format=csv`, up to 1000 records).
 */
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { auditTrail, type AuditRecord } from "../../core/audit";
import { csv } from "../../core/audit-csv";
import { AUDIT_KINDS, storableInstant } from "../../core/model/audit";
import { ensure } from "../../core/errors";
import type { Deps } from "../../core/deps";
import { ADMIN_NEED, requireAccess } from "../../http/gate";
import { cursorOf, readCursor } from "../../http/cursor";

/** An ISO 8601 instant Firestore can hold. */
const instant = z.iso.datetime({ offset: true }).refine((v) => storableInstant(new Date(v)));

/** An id as the trail names one: a person's, an app's (its metadata document's URL at most 2048), an operator's. */
const id = z.string().min(1).max(2048);

const auditQuery = z
  .object({
    actor: z
      .string()
      .max(300)
      .regex(/^(admin|operator|person):.+$/)
      .optional(),
    person: id.optional(),
    kind: z.enum(AUDIT_KINDS).optional(),
    since: instant.optional(),
    until: instant.optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(50),
    cursor: z.string().max(4000).optional(),
    format: z.enum(["json", "csv"]).default("json"),
  })
  .strict();

/** A record as the API shows it: dates as ISO strings. */
export function auditView(r: AuditRecord) {
  return { ...r, at: r.at.toISOString(), forgetAfter: r.forgetAfter.toISOString() };
}

/** The cursor of a page that ended at `r`: when, then which. */
const after = (r: AuditRecord) => `${r.at.toISOString()}~${r.id}`;

function before(cursor: string | null): { at: Date; id: string } | null {
  if (cursor === null) return null;
  const [at, ...rest] = cursor.split("~");
  const when = new Date(at ?? "");
  ensure(storableInstant(when) && rest.length > 0, "invalid_people_query", "cursor is not one this list gave");
  return { at: when, id: rest.join("~") };
}

export function auditRoutes(deps: Deps): Router {
  const router = Router();
  router.get("/auth/audit", async function audit(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN_NEED);
    const query = auditQuery.safeParse(req.query);
    ensure(
      query.success,
      "invalid_people_query",
      "Invalid query: actor admin:, operator: or person: and an id; person an id; kind person, client, invitation, operator or refusal; since and until ISO 8601 instants; limit 1 to 1000; format json or csv; and a cursor this list gave",
    );
    const q = query.data;
    const records = await auditTrail(
      deps,
      {
        ...(q.actor === undefined ? {} : { actorId: q.actor }),
        ...(q.person === undefined ? {} : { subject: q.person }),
        ...(q.kind === undefined ? {} : { kind: q.kind }),
        ...(q.since === undefined ? {} : { since: new Date(q.since) }),
        ...(q.until === undefined ? {} : { until: new Date(q.until) }),
      },
      q.limit + 1,
      before(readCursor(q.cursor, "audit")),
    );
    const shown = records.slice(0, q.limit);
    const last = shown.at(-1);
    res.setHeader("Cache-Control", "no-store");
    if (q.format === "csv") {
      res.setHeader("Content-Type", "text/csv; charset=utf-8");
      res.setHeader("Content-Disposition", 'attachment; filename="audit.csv"');
      return void res.send(csv(shown));
    }
    res.json({
      records: shown.map(auditView),
      next: records.length > q.limit && last !== undefined ? cursorOf(after(last), "audit") : null,
    });
  });
  return router;
}
