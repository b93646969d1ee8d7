/** What the email-code rules (core/email-codes/rules) decide over, free of I/O; the store keeps it. */

/** A code that can still be checked, or what destroyed it (a destroyed code keeps no hash). */
export type CodeState = "ready" | "expired" | "exhausted";

/** What an address has used: its sends in the last hour, its run of failed checks and of locks. */
export interface LimitState {
  sends: Date[];
  failures: number;
  lockedUntil: Date | null;
  /** Locks in a row without a right code between them (each lasts longer: core/email-codes/rules). */
  lockouts: number;
  /** When the owner was last told of a lock. */
  noticeAt: Date | null;
}
