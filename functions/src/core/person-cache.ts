import type { Clock } from "../clock";
import type { Person } from "../store/people";

/**
 * People read on gated requests, kept per instance for a short while: a hot session costs no
 * database read. A change made elsewhere (another instance's PATCH) shows within `ttlMs`;
 * a change made on this instance evicts at once.
 */
export interface PersonCache {
  get(personId: string): Person | undefined;
  set(person: Person): void;
  evict(personId: string): void;
}

export const PERSON_CACHE_TTL_MS = 30_000;
export const PERSON_CACHE_MAX = 5_000;

export function personCache(clock: Clock, ttlMs = PERSON_CACHE_TTL_MS, max = PERSON_CACHE_MAX): PersonCache {
  // A Map keeps insertion order: re-inserting on set makes the first key the oldest.
  const entries = new Map<string, { person: Person; until: number }>();
  return {
    get(personId) {
      const entry = entries.get(personId);
      if (!entry) return undefined;
      if (clock.now().getTime() >= entry.until) {
        entries.delete(personId);
        return undefined;
      }
      return entry.person;
    },
    set(person) {
      if (ttlMs <= 0) return;
      entries.delete(person.id);
      entries.set(person.id, { person, until: clock.now().getTime() + ttlMs });
      if (entries.size > max) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
    },
    evict(personId) {
      entries.delete(personId);
    },
  };
}
