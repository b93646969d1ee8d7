import { codeUsedLately, noteCodeUsed } from "./used-codes";

/** A Storage in memory, as the browser's sessionStorage behaves. */
function memory(): Storage {
  const items = new Map<string, string>();
  return {
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
    clear: () => items.clear(),
    key: (i) => [...items.keys()][i] ?? null,
    get length() {
      return items.size;
    },
  };
}

describe("the codes this browser used lately", () => {
  it("knows an address's code used within the minute, by its address in any case, and forgets it after", () => {
    const storage = memory();
    noteCodeUsed("Ada@Example.test", 1_000, storage);
    expect(codeUsedLately("ada@example.test", 1_000 + 59_999, storage)).toBe(true);
    expect(codeUsedLately("ada@example.test", 1_000 + 60_000, storage)).toBe(false);
    expect(codeUsedLately("bob@example.test", 1_000, storage)).toBe(false);
  });

  it("keeps only the last minute's, and reads a damaged record as none", () => {
    const storage = memory();
    noteCodeUsed("old@example.test", 0, storage);
    noteCodeUsed("new@example.test", 70_000, storage);
    expect(Object.keys(JSON.parse(storage.getItem("identity:used-codes")!))).toEqual(["new@example.test"]);
    storage.setItem("identity:used-codes", "not json");
    expect(codeUsedLately("new@example.test", 70_000, storage)).toBe(false);
  });
});
