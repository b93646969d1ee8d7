import fc from "fast-check";
import { addressIds, codeHash, codeMatches, parsePepper } from "./pepper";

const OLD = "k1:old-secret-0123456789abcdef";
const NEW = "k2:new-secret-0123456789abcdef";

describe("parsePepper", () => {
  it("reads kid:secret pairs, first key first", () => {
    expect(parsePepper(` ${NEW} , ${OLD} `)).toEqual([
      { kid: "k2", secret: "new-secret-0123456789abcdef" },
      { kid: "k1", secret: "old-secret-0123456789abcdef" },
    ]);
  });

  it("keeps colons inside the secret", () => {
    expect(parsePepper("k:a:b:0123456789abcdef")).toEqual([{ kid: "k", secret: "a:b:0123456789abcdef" }]);
  });

  it.each([
    "",
    " , ",
    "no-colon-0123456789abcdef",
    ":0123456789abcdef0",
    "k1:short",
    `${OLD},${OLD}`,
    "k/1:0123456789abcdef0",
  ])("refuses %j", (raw) => {
    expect(() => parsePepper(raw)).toThrow(/CODE_PEPPER/);
  });
});

describe("addressIds", () => {
  const ring = parsePepper(`${NEW},${OLD}`);

  it("names an address under every key, without naming the address", () => {
    const ids = addressIds(ring, "ada@example.test");
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(ids[0]).not.toBe(ids[1]);
    expect(addressIds(ring, "ada@example.test")).toEqual(ids);
    expect(addressIds(ring, "eve@example.test")[0]).not.toBe(ids[0]);
  });
});

describe("codeHash and codeMatches", () => {
  const ring = parsePepper(OLD);
  const key = ring[0]!;
  const purposes = fc.constantFrom("signin", "request-access");
  const codes = fc.integer({ min: 0, max: 999_999 }).map((n) => String(n).padStart(6, "0"));

  it("matches the code only for the purpose and address it was made for", () => {
    fc.assert(
      fc.property(
        purposes,
        fc.emailAddress(),
        codes,
        purposes,
        fc.emailAddress(),
        fc.string({ maxLength: 12 }),
        (p, a, c, p2, a2, c2) => {
          const stored = { kid: key.kid, hash: codeHash(key, p, a, c) };
          expect(codeMatches(ring, stored, p, a, c)).toBe(true);
          const same = p === p2 && a === a2 && c === c2;
          expect(codeMatches(ring, stored, p2, a2, c2)).toBe(same);
        },
      ),
    );
  });

  it("keeps verifying codes of a key still in the ring after rotation, and no longer once it left", () => {
    const stored = { kid: "k1", hash: codeHash(key, "signin", "ada@example.test", "012345") };
    expect(codeMatches(parsePepper(`${NEW},${OLD}`), stored, "signin", "ada@example.test", "012345")).toBe(true);
    expect(codeMatches(parsePepper(NEW), stored, "signin", "ada@example.test", "012345")).toBe(false);
  });

  it("is a keyed hash: another pepper gives another hash", () => {
    const other = parsePepper("k1:another-secret-0123456789")[0]!;
    expect(codeHash(other, "signin", "ada@example.test", "012345")).not.toBe(
      codeHash(key, "signin", "ada@example.test", "012345"),
    );
  });
});
