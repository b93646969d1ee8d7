import { HOUR, MINUTE } from "../../clock";
import type { Caller } from "../model/caller";
import type { BudgetScope, Tally } from "../model/sends";
import { CODE_LIFETIME_MS, type Purpose } from "./rules";

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
/**
 * A request for access puts a person in the reviewers' queue once its code is verified, and its
 * code goes to any address (the owner of a catch-all domain reads every one). So requests have
 * bounds of their own, per client and per network, that count every request whatever is used
 * and that nothing earns back. They are counted over an hour and the life of a code: the people
 * who join the queue in any one hour all had their codes asked for inside one such window, so no
 * hour sees more of them than the bound.
 */
export const REQUEST_WINDOW_MS = HOUR + CODE_LIFETIME_MS;
/** A network's (IPv4 /24, IPv6 /48) requests for access in that window: this many clients' worth. */
export const REQUEST_NETWORK_CLIENTS = 3;

export type BudgetRefusal =
  | "email_code_client_budget"
  | "email_code_request_budget"
  | "email_code_domain_budget"
  | "email_code_service_budget"
  | "recovery_code_budget";

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
   * from or went; not the service's, which bounds the mail it sends whoever reads it, nor the
   * bounds on requests for access, which bound the queue whoever reads the codes.
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
 * service. A request for access counts against its client's and network's requests for access
 * in place of the client's budget of codes to use: it has a bound of its own there, and an office
 * that welcomed new people is not kept from signing in by their requests.
 */
export function sendBudgets(origin: Caller, address: string, settings: BudgetSettings, purpose: Purpose): SendBudget[] {
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
  const every = (scope: BudgetScope, subject: string, windowMs: number, limit: number, refusal: BudgetRefusal) =>
    ({ scope, subject, windowMs, limit, total: null, chargesUnusedOnly: false, refusal }) satisfies SendBudget;
  const share = shareOf(perServicePerMinute, TOTAL_SHARE);
  const requests = REQUEST_NETWORK_CLIENTS * perClientPerHour;
  const budgets: SendBudget[] =
    purpose === "request-access"
      ? [
          every("requestClient", origin.client, REQUEST_WINDOW_MS, perClientPerHour, "email_code_request_budget"),
          every("requestNetwork", origin.network, REQUEST_WINDOW_MS, requests, "email_code_request_budget"),
        ]
      : [ours("client", origin.client, HOUR, perClientPerHour, "email_code_client_budget")];
  budgets.push(
    ours(
      "network",
      origin.network,
      MINUTE,
      shareOf(perServicePerMinute, NETWORK_SHARE),
      "email_code_client_budget",
      share,
    ),
  );
  if (origin.edge !== null)
    budgets.push(
      ours("edge", origin.edge, MINUTE, shareOf(perServicePerMinute, EDGE_SHARE), "email_code_client_budget", share),
    );
  if (!settings.domainBudgetExempt.includes(domain))
    budgets.push(ours("domain", domain, HOUR, perDomainPerHour, "email_code_domain_budget"));
  budgets.push(every("service", "all", MINUTE, perServicePerMinute, "email_code_service_budget"));
  return budgets;
}

/**
 * The budgets one guess at a recovery code counts against (POST /auth/passkeys/recovery/sign-in),
 * before anything of the address is read: its client's guesses in an hour (as many as the client
 * may ask for requests for access, OTP_SENDS_PER_CLIENT_HOUR) and its network's (three clients'
 * worth), right or wrong, with nothing earned back. A person who lost their passkey types a code
 * or two; what these hold back is a stranger going from address to address, which the per-address
 * failure ceiling (rules.ts) does not count.
 */
export function guessBudgets(origin: Caller, settings: Pick<BudgetSettings, "perClientPerHour">): SendBudget[] {
  const every = (scope: BudgetScope, subject: string, limit: number): SendBudget => ({
    scope,
    subject,
    windowMs: HOUR,
    limit,
    total: null,
    chargesUnusedOnly: false,
    refusal: "recovery_code_budget",
  });
  return [
    every("recoveryClient", origin.client, settings.perClientPerHour),
    every("recoveryNetwork", origin.network, REQUEST_NETWORK_CLIENTS * settings.perClientPerHour),
  ];
}

/**
 * Whether a send is let through one budget, from the sends recorded before it in the budget's
 * window (`ahead`): of those still counted (all of them for the service and for requests for
 * access; the unused ones for the others) there must be fewer than the budget's limit, raised by
 * one for each used code up to USED_ALLOWANCE_FACTOR times the limit; and, for a network or an
 * edge, fewer than TOTAL_SHARE of the service's minute in all, used or not. Decided by the send's place in the order sends were
 * recorded, so of any number racing for the last places exactly those places are taken.
 */
export function admits(budget: SendBudget, ahead: Tally): boolean {
  if (!budget.chargesUnusedOnly) return ahead.sent < budget.limit;
  if (budget.total !== null && ahead.sent >= budget.total) return false;
  const allowance = budget.limit + Math.min(ahead.used, USED_ALLOWANCE_FACTOR * budget.limit);
  return ahead.sent - ahead.used < allowance;
}
