/** How the CLI answers: tables with headers or JSON on stdout; guidance and errors on stderr. */

export interface Column<T> {
  header: string;
  value(row: T): string;
}

/** Rows under a header line, each column as wide as its widest cell; `empty` when there are none. */
export function table<T>(rows: T[], columns: Array<Column<T>>, empty: string): string {
  if (rows.length === 0) return empty;
  const cells = [columns.map((c) => c.header), ...rows.map((r) => columns.map((c) => c.value(r)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? "").length)));
  return cells
    .map((line) =>
      line
        .map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

export type ErrorKind = "usage" | "refused" | "unknown_command";

/** An error as the operator asked to see answers: one JSON document, or plain lines. */
export function errorReport(
  json: boolean,
  error: { kind: ErrorKind; message: string; command?: string; usage?: string; suggestion?: string },
): string {
  if (json) {
    const { kind, ...rest } = error;
    return JSON.stringify({ error: { code: kind, ...rest } });
  }
  const lines = [error.command === undefined ? error.message : `${error.command}: ${error.message}`];
  if (error.suggestion !== undefined) lines.push(`did you mean: npm run operator -- ${error.suggestion}`);
  if (error.usage !== undefined) lines.push(`usage: npm run operator -- ${error.usage}`);
  return lines.join("\n");
}
