import type { Clock } from "../../clock";
import type { Deps } from "../deps";
import * as clients from "../../store/oidc-clients";
import { sha256 } from "../secrets";
import type { ClientCache } from "../ports";
import { ttlCache } from "../ttl-cache";

export const CLIENT_CACHE_TTL_MS = 30_000;
export const CLIENT_CACHE_MAX = 1_000;

export function clientCache(clock: Clock, ttlMs = CLIENT_CACHE_TTL_MS, max = CLIENT_CACHE_MAX): ClientCache {
  return ttlCache<clients.OidcClient>(clock, ttlMs, max);
}

/** The registered client, from this instance's cache while fresh. Unknown ids are never cached. */
export async function findClient(
  deps: Pick<Deps, "store" | "clients">,
  clientId: string,
): Promise<clients.OidcClient | null> {
  const cached = deps.clients.get(clientId);
  if (cached) return cached;
  const client = await clients.findById(deps.store, clientId);
  if (client) deps.clients.set(clientId, client);
  return client;
}

/** Registers (or re-registers) a relying party with its fixed redirect URI allowlist. */
export async function registerClient(
  deps: Pick<Deps, "store" | "clock">,
  client: { clientId: string; clientSecret: string; name: string; redirectUris: string[] },
): Promise<void> {
  await clients.save(deps.store, {
    clientId: client.clientId,
    name: client.name,
    secretHash: sha256(client.clientSecret),
    redirectUris: client.redirectUris,
    createdAt: deps.clock.now(),
  });
}
