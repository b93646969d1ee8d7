import type { Clock } from "../../clock";
import type { Person } from "../model/person";
import type { PersonCache } from "../ports";
import { ttlCache } from "../ttl-cache";

export const PERSON_CACHE_TTL_MS = 10_000;
export const PERSON_CACHE_MAX = 5_000;

export function personCache(clock: Clock, ttlMs = PERSON_CACHE_TTL_MS, max = PERSON_CACHE_MAX): PersonCache {
  return ttlCache<Person>(clock, ttlMs, max);
}
