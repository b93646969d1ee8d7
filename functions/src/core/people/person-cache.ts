import type { Clock } from "../../clock";
import type { Person } from "../../store/people";
import { ttlCache, type TtlCache } from "../ttl-cache";

/**
 * People read on gated requests, by person id: a hot session costs no database read. A change
 * made on another instance (its PATCH) shows here within the TTL; one made here evicts at once.
 */
export type PersonCache = TtlCache<Person>;

export const PERSON_CACHE_TTL_MS = 30_000;
export const PERSON_CACHE_MAX = 5_000;

export function personCache(clock: Clock, ttlMs = PERSON_CACHE_TTL_MS, max = PERSON_CACHE_MAX): PersonCache {
  return ttlCache<Person>(clock, ttlMs, max);
}
