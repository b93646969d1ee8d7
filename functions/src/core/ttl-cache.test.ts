import { manualClock } from "../../test/support/fakes";
import type { Person } from "./model/person";
import { personCache } from "./people/person-cache";
import { ttlCache } from "./ttl-cache";

const person = (id: string): Person => ({
  id,
  uids: [],
  emails: [],
  phones: [],
  name: id,
  origin: null,
  note: "",
  role: "user",
  projects: [],
  groups: [],
  status: "approved",
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

describe("ttlCache", () => {
  it("keeps a person for the TTL and not a millisecond longer", () => {
    const clock = manualClock();
    const cache = personCache(clock, 30_000);
    cache.set("a", person("a"));
    clock.advance(29_999);
    expect(cache.get("a")?.id).toBe("a");
    clock.advance(1);
    expect(cache.get("a")).toBeUndefined();
  });

  it("drops the oldest entry beyond its bound", () => {
    const cache = ttlCache<Person>(manualClock(), 30_000, 2);
    cache.set("a", person("a"));
    cache.set("b", person("b"));
    cache.set("c", person("c"));
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")?.id).toBe("b");
    expect(cache.get("c")?.id).toBe("c");
  });

  it("forgets an evicted person at once", () => {
    const cache = personCache(manualClock());
    cache.set("a", person("a"));
    cache.evict("a");
    expect(cache.get("a")).toBeUndefined();
  });

  it("keeps nothing with a zero TTL", () => {
    const cache = ttlCache<Person>(manualClock(), 0, 10);
    cache.set("a", person("a"));
    expect(cache.get("a")).toBeUndefined();
  });
});
