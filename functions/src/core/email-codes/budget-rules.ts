import { HOUR, MINUTE } from "../../clock";
import type { Caller } from "../model/caller";
import type { BudgetScope, Tally } from "../model/sends";

/**
 * The budgets a send counts against beyond its address's own limits (rules.ts), free of I/O: where
 * the request came from, each budget's window and limit, and whether a send is let through one.
 * send-budgets.ts counts the sends recorded and applies these.
 */

/**
 * No one network may take more than this share of the service's per-minute budget: a block of
 * addresses (an IPv6 /48 holds 65,536 /64s) cannot shut email sign-in for everyone else.
 */
export const NETWORK_SHARE = 0.05;
/**
 * The same for whoever reached the platform's front end: a CDN edge carries many people's
 * requests, so it gets more; a caller that goes around the CDN to the function's own address,
 * and writes the client entries itself, gets no more than this however it names its clients.
 */
export const EDGE_SHARE = 0.25;
/**
 * A code used from a client, a network, an edge or a domain buys it room for one more unused
 * code in that budget's window, up to this many times its base: people who type their codes are
 * never held back by the ones still typing, while a sprayer (whose codes go unused) earns
 * nothing, and one who uses codes of its own to earn room is capped.
 */
export const USED_ALLOWANCE_FACTOR = 9;
/**
 * Whatever its codes, used or not, no one network or edge sends more than this share of the
 * service's per-minute budget in a minute: one that reads its own mail (an office's people, or a
 * catch-all domain's owner) never takes the whole service's minute from everyone else.
 */
export const TOTAL_SHARE = 0.5;

export type BudgetRefusal = "email_code_client_budget" | "email_code_domain_budget" | "email_code_service_budget";

export type { BudgetScope, Caller, Tally };

/** One budget a send counts against: what it counts (before keying), over what window, up to what. */
export interface SendBudget {
  scope: BudgetScope;
  /** The value counted: a client, a network, an edge, a domain, or "all" for the service. */
  subject: string;
  windowMs: number;
  /** How many unused codes it may hold, before any allowance for used ones. */
  limit: number;
  /** How many sends it may hold in its window, used codes or not; null for no such bound. */
  total: number | null;
  /**
   * Whether a used code stops counting (and earns room): every budget of where a send came
   * from or went; not the service's, which bounds the mail it sends whoever reads it.
   */
  chargesUnusedOnly: boolean;
  refusal: BudgetRefusal;
}

export interface BudgetSettings {
  perClientPerHour: number;
  perServicePerMinute: number;
  perDomainPerHour: number;
  domainBudgetExempt: string[];
}

const shareOf = (perMinute: number, share: number) => Math.max(1, Math.ceil(perMinute * share));

/**
 * Every budget one send counts against beyond the address's own limits, in the order they are
 * checked: the client, its network, the edge it came through, the recipient's domain, and the
 * service.
 */
export function sendBudgets(origin: Caller, address: string, settings: BudgetSettings): SendBudget[] {
  const { perClientPerHour, perServicePerMinute, perDomainPerHour } = settings;
  const domain = address.slice(address.lastIndexOf("@") + 1);
  const ours = (
    scope: BudgetScope,
    subject: string,
    windowMs: number,
    limit: number,
    refusal: BudgetRefusal,
    total: number | null = null,
  ) => ({ scope, subject, windowMs, limit, total, chargesUnusedOnly: true, refusal }) satisfies SendBudget;
  const share = shareOf(perServicePerMinute, TOTAL_SHARE);
  const budgets: SendBudget[] = [
    ours("client", origin.client, HOUR, perClientPerHour, "email_code_client_budget"),
    ours(
      "network",
      origin.network,
      MINUTE,
      shareOf(perServicePerMinute, NETWORK_SHARE),
      "email_code_client_budget",
      share,
    ),
  ];
  if (origin.edge !== null)
    budgets.push(
      ours("edge", origin.edge, MINUTE, shareOf(perServicePerMinute, EDGE_SHARE), "email_code_client_budget", share),
    );
  if (!settings.domainBudgetExempt.includes(domain))
    budgets.push(ours("domain", domain, HOUR, perDomainPerHour, "email_code_domain_budget"));
  budgets.push({
    scope: "service",
    subject: "all",
    windowMs: MINUTE,
    limit: perServicePerMinute,
    total: null,
    chargesUnusedOnly: false,
    refusal: "email_code_service_budget",
  });
  return budgets;
}

/**
 * Whether a send is let through one budget, from the sends recorded before it in the budget's
 * window (`ahead`): of those still counted (all of them for the service; the unused ones for the
 * others) there must be fewer than the budget's limit, raised by one for each used code up to
 * USED_ALLOWANCE_FACTOR times the limit; and, for a network or an edge, fewer than TOTAL_SHARE of
 * the service's minute in all, used or not. Decided by the send's place in the order sends were
 * recorded, so of any number racing for the last places exactly those places are taken.
 */
export function admits(budget: SendBudget, ahead: Tally): boolean {
  if (!budget.chargesUnusedOnly) return ahead.sent < budget.limit;
  if (budget.total !== null && ahead.sent >= budget.total) return false;
  const allowance = budget.limit + Math.min(ahead.used, USED_ALLOWANCE_FACTOR * budget.limit);
  return ahead.sent - ahead.used < allowance;
}
