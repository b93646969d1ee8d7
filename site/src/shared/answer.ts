/** What the service answered a page: its status, its body, and when to try again. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  /** Seconds from `Retry-After`, when a limit said when it lifts. */
  retryAfter: number | null;
}
