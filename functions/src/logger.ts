/**
 * Structured logs, one JSON line each (Cloud Logging reads `severity`, and the trace: trace.ts).
 * Never pass a secret in.
 */
import { runningTrace } from "./trace";

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * The running trace (trace.ts): its id, which an operator searches by (`jsonPayload.traceId`),
 * and the front's, as Cloud Logging's trace field, which groups a request's lines with its
 * request log (the project the functions run in; none off the platform).
 */
function traceFields(): Record<string, string> {
  const trace = runningTrace();
  if (trace === null) return {};
  const project = process.env.GCLOUD_PROJECT ?? process.env.GOOGLE_CLOUD_PROJECT;
  if (trace.front === null || project === undefined) return { traceId: trace.id };
  return { traceId: trace.id, "logging.googleapis.com/trace": `projects/${project}/traces/${trace.front}` };
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
