/** The audit trail as a table's columns and as CSV (RFC 4180), for the command line and the administrators' API alike. */
import type { AuditRecord } from "./model/audit";

const detailText = (r: AuditRecord) =>
  Object.entries(r.detail)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join("|") : v}`)
    .join(" ");

/** The columns of the table and of the CSV, in one order. */
export const AUDIT_COLUMNS: Array<{ header: string; value(r: AuditRecord): string }> = [
  { header: "AT", value: (r) => r.at.toISOString() },
  { header: "ACTOR", value: (r) => r.actorId },
  { header: "ACTION", value: (r) => r.action },
  { header: "SUBJECTS", value: (r) => r.subjects.join(" ") },
  { header: "OUTCOME", value: (r) => r.outcome },
  { header: "VIA", value: (r) => (r.client.from === null ? r.client.via : `${r.client.via} (${r.client.from})`) },
  { header: "DETAIL", value: detailText },
  { header: "TRACE", value: (r) => r.traceId ?? "" },
  { header: "ID", value: (r) => r.id },
];

/**
 * What a spreadsheet may take for the start of a formula: `=`, `+`, `-`, `@` (and their full-width
 * forms, which some read alike), after any leading spaces; or a tab, carriage return or line feed.
 */
const FORMULA = /^(\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|[\t\r\n])/;

/**
 * One CSV cell (RFC 4180): quoted, quotes doubled. A cell a spreadsheet would read as a formula
 * (FORMULA) is given a leading apostrophe: the trail holds words an app or a stranger chose (a
 * client's id, a refused path).
 */
export function csvCell(value: string): string {
  const safe = FORMULA.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

export function csv(records: AuditRecord[]): string {
  const lines = [
    AUDIT_COLUMNS.map((c) => c.header.toLowerCase()),
    ...records.map((r) => AUDIT_COLUMNS.map((c) => c.value(r))),
  ];
  return lines.map((cells) => cells.map(csvCell).join(",")).join("\r\n");
}
