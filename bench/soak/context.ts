/**
 * What the load and its scenarios share: the context a scenario records into (the traces the
 * invariants read) and the budgets the soak's service runs with. Its own module, so the load
 * (which runs the scenarios) and the scenarios (which record into it) import it, not each other.
 */
import type { Exchange, Recorder } from "./client.ts";

/** One email code as the load used it: wrong guesses first (all answered), then the right code. */
export interface CodeTrace {
  address: string;
  epoch: number;
  /** The send answered 200 that issued it. */
  sent: Exchange;
  wrong: Exchange[];
  right: Exchange[];
}

/** One exchange code (or OIDC authorization code) and every redemption of it. */
export interface ExchangeTrace {
  code: string;
  status: string;
  epoch: number;
  answers: Exchange[];
}

/** A code the load waited for in the inbox: when it was sent, and whether and when it came. */
export interface MailWait {
  address: string;
  sentAt: number;
  /** The Firestore its mail was queued in, and the one running when the wait ended. */
  epoch: number;
  endEpoch: number;
  /** null: it never came within the wait. */
  arrivedAt: number | null;
}

/** A claims callback as the identity provider sent it, and what came back for the account. */
export interface ClaimsTrace {
  answer: Exchange;
  /** Signed with a secret the service does not have. */
  forged: boolean;
  /** For a 200: the account's person and standing, no claims at all, or anything else. */
  outcome: "person" | "none" | "wrong" | null;
}

/** A logout and every replay of the cookie it ended, made right after it. */
export interface LogoutTrace {
  logout: Exchange;
  replays: Exchange[];
}

/**
 * The email-code send budgets the soak's service runs with: the client's and the service's low
 * enough that the load meets them; every soak address is at example.test, so no domain budget.
 */
export const SOAK_BUDGETS = {
  perClientPerHour: 40,
  perServicePerMinute: 600,
  perDomainPerHour: 1_000_000,
  domainBudgetExempt: [],
};

export interface LoadContext {
  recorder: Recorder;
  authHost: string;
  mailUrl: string;
  epoch: () => number;
  codes: CodeTrace[];
  exchanges: ExchangeTrace[];
  /** Authorization codes from the OIDC provider and every redemption of each. */
  authorizations: ExchangeTrace[];
  mailWaits: MailWait[];
  /** Bridge sign-ins: the state (as a code) and every callback that brought it back. */
  bridges: ExchangeTrace[];
  claims: ClaimsTrace[];
  logouts: LogoutTrace[];
  /** Scenario steps the harness itself could not complete (not the service's answers). */
  skipped: Map<string, number>;
}
