import { distance, nearest } from "./suggest";

const NAMES = ["people list", "people show", "people grant", "clients enable", "clients disable", "doctor", "status"];

describe("the nearest command", () => {
  it("counts a swap of two neighbours as one edit", () => {
    expect(distance("lsit", "list")).toBe(1);
    expect(distance("peple", "people")).toBe(1);
    expect(distance("", "abc")).toBe(3);
    expect(distance("same", "same")).toBe(0);
  });

  it.each([
    [["peple", "list"], "people list"],
    [["people", "lsit"], "people list"],
    [["clients", "enabel"], "clients enable"],
    [["docter"], "doctor"],
    [["stauts"], "status"],
  ])("takes %j for %s", (words, expected) => {
    expect(nearest(words, NAMES)).toBe(expected);
  });

  it("suggests nothing for words that are near no command", () => {
    expect(nearest(["frobnicate"], NAMES)).toBeNull();
    expect(nearest(["people", "obliterate"], NAMES)).toBeNull();
  });
});
