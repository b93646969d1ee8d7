/**
 * What the send budgets count (core/email-codes/budget-rules), as the send ledger
 * (store/sends) keeps it; no I/O here.
 */

/**
 * What a send is counted by: where it came from, where it went, and the service as a whole; a
 * request-access send by its client's and network's requests for access (`requestClient`,
 * `requestNetwork`) in place of the client's codes to use. A guess at a recovery code
 * (core/passkeys/recovery-codes) is counted in the same ledger by its client's and network's
 * guesses (`recoveryClient`, `recoveryNetwork`), and by nothing else.
 */
export type BudgetScope =
  | "client"
  | "requestClient"
  | "requestNetwork"
  | "recoveryClient"
  | "recoveryNetwork"
  | "network"
  | "edge"
  | "domain"
  | "service";

/** Sends of one budget's window that came before a given one: how many, and how many of them were used. */
export interface Tally {
  sent: number;
  used: number;
}
