import type { Deps } from "../deps";
import * as sends from "../../store/sends";
import * as claims from "../../store/send-claims";
import type { Tally } from "../model/sends";
import { limitReached, type AppError } from "../errors";
import { budgetId, type PepperKey } from "../pepper";
import { alreadyExists } from "../failures";
import { sharedReads } from "../shared-read";
import { MINUTE } from "../../clock";
import { RESEND_INTERVAL_MS, type Purpose } from "./rules";
import { admits, guessBudgets, sendBudgets, type SendBudget, type Caller } from "./budget-rules";

type BudgetDeps = Pick<Deps, "store" | "clock" | "random" | "config">;

const since = (now: Date, budget: SendBudget) => new Date(now.getTime() - budget.windowMs);

/** How many times a send near a budget's last places counts again, and how long it waits between. */
const RECOUNTS = 5;
const RECOUNT_PAUSE_MS = 100;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** A tally that includes the send asking: the others. */
const others = (t: Tally): Tally => ({ sent: t.sent - 1, used: t.used });

/**
 * Lets one send through the budgets beyond its address (budget-rules.sendBudgets), or refuses it
 * with the first budget it would break (429, with Retry-After). Resolves to the send's id (its
 * record in the ledger, store/sends, its outbox record and its code's `sendId`) and its claim of
 * the address's minute. The caller withdraws both if the code is not issued after all.
 *
 * The send is recorded first; then the budgets count every send recorded in their windows, this
 * one included, and let it through only if the others leave room. Nothing is read in a
 * transaction and no document is shared: concurrent sends from one office write records of their
 * own, so they neither wait for each other nor abort. A query made after a write sees every write
 * made before it, so of sends let through, the last to count saw all the others: no budget ever
 * lets through more than its allowance, however many race (the bound is exact).
 *
 * Two queries count a send far from every budget's limit (`bounds`); a budget neither vouches
 * for is counted alone. Near a budget's last places, sends racing for them each see the others
 * and would all give way. So they take them in the order the store stamped them in: a send
 * stamped after the last place is refused at once and withdrawn, and one stamped within the
 * places counts again, a few times, until the ones behind it are gone. What that can cost is a
 * refusal for a send that stood within the places, never a place too many.
 *
 * A send let through claims its address's minute (store/send-claims): of sends racing for one
 * address, one claims it and goes on to the transaction that decides the address's limits (which
 * would refuse the others one at a time, contending for its record); the others hear at once what
 * that transaction would tell them. Only a send the budgets let through claims: one they refuse
 * holds nothing of the address, so a stranger refused send after send keeps no one from a code.
 */
export async function admitSend(
  deps: BudgetDeps,
  key: PepperKey,
  addressId: string,
  address: string,
  purpose: Purpose,
  from: Caller,
): Promise<Admitted> {
  const now = deps.clock.now();
  const sendId = await admit(deps, key, sendBudgets(from, address, deps.config.sendBudgets, purpose), addressId);
  const claimId = `${addressId}~${Math.floor(now.getTime() / RESEND_INTERVAL_MS)}`;
  try {
    await claims.claim(deps.store, claimId, now, new Date(now.getTime() + 2 * RESEND_INTERVAL_MS));
  } catch (err) {
    await sends.withdraw(deps.store, sendId).catch(() => undefined);
    // Another send to this address was let through this minute: its transaction decides.
    if (alreadyExists(err))
      throw limitReached("email_code_resend_too_soon", now, new Date(now.getTime() + RESEND_INTERVAL_MS));
    throw err;
  }
  return { sendId, claimId };
}

/** A send let through: its record in the ledger, and its claim of the address's minute. */
export interface Admitted {
  sendId: string;
  claimId: string;
}

/**
 * Lets one guess at a recovery code through its client's and network's budgets of guesses
 * (budget-rules.guessBudgets), or refuses it (429 `recovery_budget`, with Retry-After), exactly as
 * a send is let through its budgets and recorded in the same ledger, so the bound holds however
 * many guesses race. Made before anything of the address is read: a refused guess reads nothing of
 * it, whatever it is. A guess let through stays counted, right or wrong.
 */
export async function admitGuess(deps: BudgetDeps, key: PepperKey, from: Caller): Promise<void> {
  await admit(deps, key, guessBudgets(from, deps.config.sendBudgets), null);
}

/**
 * The budgets counted together (`bounds`): all but the service's, whose minute is a count of its
 * own, and an edge's, which a CDN's node shares among everyone behind it, so that its sends would
 * leave the count room for no one; the service's minute vouches for it instead.
 */
const countedTogether = (b: SendBudget): boolean => b.scope !== "service" && b.scope !== "edge";

/** Records one request in the ledger under each budget's key, and keeps it only if every budget admits it. */
async function admit(
  deps: BudgetDeps,
  key: PepperKey,
  budgets: SendBudget[],
  addressId: string | null,
): Promise<string> {
  const { store } = deps;
  const now = deps.clock.now();
  // Keyed: the ledger holds no client address, network or domain in the clear.
  const keys = Object.fromEntries(budgets.map((b) => [b.scope, budgetId(key, b.scope, b.subject)]));
  const keyOf = (b: SendBudget) => keys[b.scope] as string;
  const id = deps.random.id();
  const longest = Math.max(...budgets.map((b) => b.windowMs));
  await sends.record(
    store,
    id,
    { ...keys, ...(addressId === null ? {} : { address: addressId }) },
    now,
    new Date(now.getTime() + longest),
  );
  let refusal: AppError | null;
  try {
    refusal = await decide(store, id, now, budgets, keyOf);
  } catch (err) {
    await sends.withdraw(store, id).catch(() => undefined);
    throw err;
  }
  if (refusal === null) return id;
  await sends.withdraw(store, id);
  throw refusal;
}

/**
 * Whether a count of sends that holds every send `budget` counts (and maybe more) leaves it room:
 * then the budget's own count would too. Earned room is not assumed, since the used codes such a
 * count holds may be others'.
 */
function vouches(budget: SendBudget, holding: Tally): boolean {
  const ahead = others(holding);
  if (!budget.chargesUnusedOnly) return ahead.sent < budget.limit;
  if (budget.total !== null && ahead.sent >= budget.total) return false;
  return ahead.sent - ahead.used < budget.limit;
}

/**
 * The service's minute, counted once for the sends on this instance that ask for it while a count
 * of it runs (core/shared-read). The count starts after each of their records was written and
 * spans the earliest one's window, which holds each one's own window: so, as with counts of their
 * own, of sends let through the last to count saw every other one, and no more are let through.
 * It may count a send or two more than a send's own count would (sending a send near the last
 * places to count again), never let one more through. Every send of the service counts its
 * minute, so under load this is most of the store's work for a send; shared, it shrinks with the
 * load. A send waits on a count another started for at most SHARED_COUNT_WAIT_MS.
 */
const SHARED_COUNT_WAIT_MS = 2000;
const serviceCounts = new WeakMap<BudgetDeps["store"], (key: string, since: Date) => Promise<Tally>>();

function serviceMinute(store: BudgetDeps["store"], key: string, from: Date): Promise<Tally> {
  let count = serviceCounts.get(store);
  if (count === undefined) {
    count = sharedReads<Date, Tally>(
      (k, froms) =>
        sends.tally(
          store,
          "service",
          k,
          froms.reduce((a, b) => (b < a ? b : a)),
        ),
      SHARED_COUNT_WAIT_MS,
    );
    serviceCounts.set(store, count);
  }
  return count(key, from);
}

/**
 * Two counts that decide every budget of a send far from its limits: the service's minute, the
 * service budget's own count (shared by the sends asking for it at once, `serviceMinute`), which
 * holds every network's and edge's minute too; and the sends of the budgets counted together
 * (where the send came from and where it went, each in its own window, each send once), which
 * holds each of those budgets' sends.
 */
async function bounds(
  store: BudgetDeps["store"],
  now: Date,
  budgets: SendBudget[],
  keyOf: (b: SendBudget) => string,
): Promise<{ service: Tally | null; together: Tally | null }> {
  const service = budgets.find((b) => b.scope === "service");
  const rest = budgets.filter(countedTogether);
  const [serviceTally, together] = await Promise.all([
    service === undefined ? null : serviceMinute(store, keyOf(service), since(now, service)),
    rest.length === 0
      ? null
      : sends.tallyAny(
          store,
          rest.map((b) => ({ scope: b.scope, key: keyOf(b), since: since(now, b) })),
        ),
  ]);
  return { service: serviceTally, together };
}

async function decide(
  store: BudgetDeps["store"],
  id: string,
  now: Date,
  budgets: SendBudget[],
  keyOf: (b: SendBudget) => string,
): Promise<AppError | null> {
  let seq: sends.Stamp | null = null;
  const ahead = async (scope: SendBudget["scope"], key: string, from: Date) => {
    seq ??= await sends.seqOf(store, id);
    if (seq === null) throw new Error("a send's record was gone before it was counted");
    return sends.tallyBefore(store, scope, key, from, id, seq);
  };
  const held = await bounds(store, now, budgets, keyOf);
  // The service budget is decided by its own count; another, by a count that vouches for it, or
  // else by a count of its own.
  const tallies = new Map<SendBudget, Tally>();
  const unsure: SendBudget[] = [];
  for (const b of budgets) {
    if (b.scope === "service" && held.service !== null) tallies.set(b, held.service);
    else if (b.scope === "service") unsure.push(b);
    else {
      const holding = [countedTogether(b) ? held.together : null, b.windowMs <= MINUTE ? held.service : null];
      if (!holding.some((t) => t !== null && vouches(b, t))) unsure.push(b);
    }
  }
  const counted = await Promise.all(unsure.map((b) => sends.tally(store, b.scope, keyOf(b), since(now, b))));
  unsure.forEach((b, i) => tallies.set(b, counted[i] as Tally));
  let over = budgets.filter((b) => tallies.has(b) && !admits(b, others(tallies.get(b) as Tally)));
  for (let round = 0; over.length > 0; round++) {
    const places = await Promise.all(over.map((b) => ahead(b.scope, keyOf(b), since(now, b))));
    const behind = over.find((b, i) => !admits(b, places[i] as Tally));
    if (behind !== undefined || round === RECOUNTS)
      return refused(store, now, behind ?? (over[0] as SendBudget), keyOf);
    await pause(RECOUNT_PAUSE_MS);
    const recounted = await Promise.all(over.map((b) => sends.tally(store, b.scope, keyOf(b), since(now, b))));
    over = over.filter((b, i) => !admits(b, others(recounted[i] as Tally)));
  }
  return null;
}

/** The refusal of `budget`: room comes back as the oldest send it counts leaves its window (sooner, if a code is used). */
async function refused(
  store: BudgetDeps["store"],
  now: Date,
  budget: SendBudget,
  keyOf: (b: SendBudget) => string,
): Promise<AppError> {
  const oldest = await sends.oldestSince(store, budget.scope, keyOf(budget), since(now, budget));
  return limitReached(budget.refusal, now, new Date((oldest ?? now).getTime() + budget.windowMs));
}

/**
 * A send let through whose code was not issued (the address's own limits refused it): it counts
 * against nothing, and its claim of the address's minute is let go.
 */
export async function withdrawSend(deps: Pick<Deps, "store">, admitted: Admitted): Promise<void> {
  await Promise.all([sends.withdraw(deps.store, admitted.sendId), claims.release(deps.store, admitted.claimId)]);
}
