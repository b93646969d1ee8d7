import type { Clock } from "../clock";

/**
 * Records read on hot paths, kept per instance for a short while, bounded: a hot key costs no
 * database read. A change made elsewhere (another instance) shows within `ttlMs`; a change made
 * on this instance evicts at once.
 */
export interface TtlCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  evict(key: string): void;
}

export function ttlCache<V>(clock: Clock, ttlMs: number, max: number): TtlCache<V> {
  // A Map keeps insertion order: re-inserting on set makes the first key the oldest.
  const entries = new Map<string, { value: V; until: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (clock.now().getTime() >= entry.until) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set(key, value) {
      if (ttlMs <= 0) return;
      entries.delete(key);
      entries.set(key, { value, until: clock.now().getTime() + ttlMs });
      if (entries.size > max) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
    },
    evict(key) {
      entries.delete(key);
    },
  };
}
