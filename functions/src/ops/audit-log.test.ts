import { auditLogEntries, OPERATOR_AUDIT_LOG } from "./audit-log";
import type { AuditRecord } from "../core/model/audit";

const record: AuditRecord = {
  id: "r1",
  at: new Date("2026-11-29T10:00:00Z"),
  actor: { kind: "operator", name: "ops@desk" },
  actorId: "operator:ops@desk",
  kind: "operator",
  action: "cli.people.approve",
  subjects: ["[address]", "p1"],
  detail: { options: [] },
  outcome: "done",
  client: { via: "cli", from: "example-identity-prod" },
  traceId: null,
  forgetAfter: new Date("2028-01-03T10:00:00Z"),
};

const { forgetAfter: _kept, at: _at, ...kept } = record;

describe("an operator's audit record in the project's Cloud Logging", () => {
  it("is one entry of the operator's audit log, labelled for the trail's sink, the record as the functions log it", () => {
    expect(auditLogEntries("example-identity-prod", record)).toEqual({
      logName: `projects/example-identity-prod/logs/${OPERATOR_AUDIT_LOG}`,
      resource: { type: "global", labels: { project_id: "example-identity-prod" } },
      // The sink's filter (docs/deploying.md) is labels.trail="audit": the functions' lines carry it too.
      labels: { trail: "audit" },
      entries: [
        {
          severity: "NOTICE",
          timestamp: "2026-11-29T10:00:00.000Z",
          // The record as the functions log it: its fields, its time as ISO text, no TTL field.
          jsonPayload: { message: "audit", ...kept, at: "2026-11-29T10:00:00.000Z" },
        },
      ],
    });
  });
});
