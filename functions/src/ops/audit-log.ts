/**
 * The operator's audit records, also in the project's Cloud Logging. The functions' records leave
 * the project through the log (each is a line labelled `trail: audit`, which the sink in
 * docs/deploying.md selects); a command on the operator's machine writes no function's log, so it
 * writes its record there itself, through the Logging API (entries.write), under the same label:
 * one sink takes the whole trail. On the emulators there is no Cloud Logging, and nothing is sent.
 */
import type { AuditRecord } from "../core/model/audit";
import { accessToken } from "./credentials";

/** The log the operator's records are written to, in the project. */
export const OPERATOR_AUDIT_LOG = "identity-audit";

/** The body of entries.write for `record`: the record as the functions log it, labelled for the sink. */
export function auditLogEntries(projectId: string, record: AuditRecord): Record<string, unknown> {
  const { at, forgetAfter: _kept, ...rest } = record;
  return {
    logName: `projects/${projectId}/logs/${OPERATOR_AUDIT_LOG}`,
    resource: { type: "global", labels: { project_id: projectId } },
    labels: { trail: "audit" },
    entries: [
      {
        severity: "NOTICE",
        timestamp: at.toISOString(),
        jsonPayload: { message: "audit", ...rest, at: at.toISOString() },
      },
    ],
  };
}

/** Writes `record` to the project's Cloud Logging; throws with the API's answer if it is not taken. */
export async function writeAuditLog(projectId: string, record: AuditRecord): Promise<void> {
  const res = await fetch("https://logging.googleapis.com/v2/entries:write", {
    method: "POST",
    headers: {
      authorization: `Bearer ${await accessToken()}`,
      "content-type": "application/json",
      "x-goog-user-project": projectId,
    },
    body: JSON.stringify(auditLogEntries(projectId, record)),
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`Cloud Logging answered ${res.status}`);
}
