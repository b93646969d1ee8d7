/**
 * Structured logs, one JSON line each (Cloud Logging reads `severity`, and the trace: trace.ts).
 * Never pass a secret in.
 */
import { currentTrace } from "./trace";

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** The running trace (trace.ts), as Cloud Logging reads it from a line: grouped with its request. */
function traceFields(): Record<string, string> {
  const trace = currentTrace();
  if (trace === null) return {};
  // The project the functions run in, as Cloud Logging's trace field names it; none off the platform.
  const project = process.env.GCLOUD_PROJECT ?? process.env.GOOGLE_CLOUD_PROJECT;
  return project === undefined ? { trace } : { "logging.googleapis.com/trace": `projects/${project}/traces/${trace}` };
}

/** One line, with the trace the work belongs to. Exported for its test. */
export function line(severity: string, message: string, fields?: Record<string, unknown>): string {
  return JSON.stringify({ severity, message, ...fields, ...traceFields() });
}

/** What a failure says, for a log line: its message, never a stack or the object itself. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export const consoleLogger: Logger = {
  info: (m, f) => console.log(line("INFO", m, f)),
  warn: (m, f) => console.warn(line("WARNING", m, f)),
  error: (m, f) => console.error(line("ERROR", m, f)),
};
