/** Structured logs, one JSON line each (Cloud Logging reads `severity`). Never pass a secret in. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

function line(severity: string, message: string, fields?: Record<string, unknown>): string {
  return JSON.stringify({ severity, message, ...fields });
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
