/**
 * The service's health over a window, as GET /auth/health answers it. core/status/report makes it,
 * and the identity host's `/health` page reads it with this very type. No I/O, no code imported.
 */
import type { OutboxLane } from "./outbox";

export type ReportWindow = "24h" | "7d";

/** How a sign-in began (core/status/report `wayOf`). */
export type Way = "passkey" | "code" | "provider" | "password" | "recovery code" | "other";

export interface HealthReport {
  window: ReportWindow;
  from: string;
  to: string;
  /** Each bucket's start, oldest first: 24 hours, or 7 days. */
  buckets: string[];
  /** Sessions opened, by how the sign-in began; only ways with any. */
  signIns: Array<{ way: Way; counts: number[] }>;
  /** Email codes queued: sent, given up (never sent), not needed (no account holds the address). */
  codes: { sent: number[]; givenUp: number[]; notNeeded: number[] };
  /**
   * Refusals counted as they happened (core/status/health-counts), per reason as the answer named
   * it, most first: requests for an email code (`client_budget`, `resend_too_soon`…), and
   * sign-ins (`otp_invalid`, `invalid_token`…). Only reasons with any.
   */
  refused: { codes: Array<{ reason: string; counts: number[] }>; signIns: Array<{ reason: string; counts: number[] }> };
  /** Deliveries of events given up in the window, per app, most first. */
  deliveriesGivenUp: Array<{ app: string; count: number }>;
  waiting: { people: number; oldestSeconds: number | null };
  outbox: Array<{ lane: OutboxLane; pending: number; oldestSeconds: number | null }>;
  erasures: { unfinished: number; oldestSeconds: number | null };
  /** A read reached READ_CAP: the counts are at least these. */
  partial: boolean;
}
