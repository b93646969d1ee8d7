/** Structured logs, one JSON line each (Cloud Logging reads `severity`). Never pass a secret in. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

function line(severity: string, message: string, fields?: Record<string, unknown>): string {
  return JSON.stringify({ severity, message, ...fields });
}

export const consoleLogger: Logger = {
  info: (m, f) => console.log(line("INFO", m, f)),
  warn: (m, f) => console.warn(line("WARNING", m, f)),
  error: (m, f) => console.error(line("ERROR", m, f)),
};

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
