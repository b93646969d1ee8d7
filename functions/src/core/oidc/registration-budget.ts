/**
 * The bounds on clients registering themselves (core/oidc/registration): at most so many in each
 * clock hour (UTC) from one network, through one edge, and from everyone, so that nobody can fill
 * the store with clients, nor a few networks take the hour's registrations from everyone else.
 *
 * Each bound is one counter per source and hour, read and raised in the transaction that stores
 * the client, so the bound is exact however many registrations race: Firestore lets a transaction
 * commit only if none of the counters it read changed meanwhile, and runs the loser again with the
 * new count (or answers 503 once contention outlasts its attempts). Registrations are rare, so one
 * counter for the whole service takes their concurrency without shards. A fixed hour means up to
 * twice a bound can land in the 60 minutes around an hour's turn; the docs state it so.
 */
import { HOUR } from "../../clock";
import * as budgets from "../../store/registration-budgets";
import { readTogether, type Transaction } from "../../store/db";
import type { Deps } from "../deps";
import { limitReached } from "../errors";
import type { Caller } from "../model/caller";
import { budgetId, pepperRing } from "../pepper";
import type { RegistrationBudgets } from "../settings";

export { REGISTRATION_BUDGETS } from "../settings";

interface Bound {
  scope: "network" | "edge" | "service";
  subject: string;
  limit: number;
}

/**
 * What one registration from `from` counts against. The network is the client's IPv4 /24 or IPv6
 * /48 (which holds its /64): an address read past the trusted hops is never believed
 * (http/caller), and a caller that writes its own forwarded entries by going around the CDN is
 * counted again at the edge that reached the platform, which it cannot forge. The network is
 * counted as reached through its edge: a caller around the CDN that names someone else's network
 * spends that network's hour only through its own edge, never through the front end's, so it
 * locks nobody out; what it gets from its own address is held by the edge's bound.
 */
export function boundsFor(from: Caller, settings: RegistrationBudgets): Bound[] {
  const network = from.edge === null ? from.network : `${from.network} via ${from.edge}`;
  return [
    { scope: "network", subject: network, limit: settings.perNetworkHour },
    ...(from.edge === null ? [] : [{ scope: "edge" as const, subject: from.edge, limit: settings.perEdgeHour }]),
    { scope: "service", subject: "all", limit: settings.perServiceHour },
  ];
}

/**
 * What is counted: a registration at `POST /auth/oidc/register`, or a first reading of a client's
 * metadata document (core/oidc/metadata-documents). Each has counters of its own, with the same
 * bounds: a reading is started by a plain navigation, which any page can make a visitor's browser
 * send, and such forged readings must not spend the visitor's network's registrations.
 */
export type RegistrationKind = "registration" | "document";

/**
 * Counts one registration against every bound, in `tx` (the transaction that stores the client),
 * or refuses it (429 with Retry-After: the hour's end) by the first bound it would break.
 */
export async function countRegistration(
  deps: Pick<Deps, "store" | "clock" | "pepper" | "config">,
  tx: Transaction,
  from: Caller,
  kind: RegistrationKind = "registration",
): Promise<void> {
  const now = deps.clock.now();
  const hourStart = Math.floor(now.getTime() / HOUR) * HOUR;
  const hourEnd = new Date(hourStart + HOUR);
  const [key] = pepperRing(deps);
  const bounds = boundsFor(from, deps.config.oidcRegistration.budgets);
  // Keyed: a stored counter names neither the network nor the hour it counts.
  const ids = bounds.map((b) => budgetId(key!, `oidc-${kind}-${b.scope}`, `${b.subject}@${hourStart}`));
  const [counts] = await readTogether(tx, budgets.counts(deps.store, ids));
  // Every bound is checked before any is raised: a refused registration counts against none.
  if (bounds.some((b, i) => (counts[i] as number) >= b.limit))
    throw limitReached("oauth_registration_budget", now, hourEnd);
  ids.forEach((id, i) => budgets.setCount(deps.store, tx, id, (counts[i] as number) + 1, hourEnd));
}
