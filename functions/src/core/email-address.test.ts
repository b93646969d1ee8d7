import fc from "fast-check";
import { canonicalEmail } from "./email-address";

describe("canonicalEmail", () => {
  it.each([
    ["Ada@Example.TEST", "ada@example.test"],
    ["  ada@example.test\t", "ada@example.test"],
    ["ada+tag@sub.example.test", "ada+tag@sub.example.test"],
    ["ada@bücher.example", "ada@xn--bcher-kva.example"],
    ["o'brien@example.test", "o'brien@example.test"],
  ])("canonicalises %j to %j", (raw, canonical) => {
    expect(canonicalEmail(raw)).toBe(canonical);
  });

  it.each([
    "",
    "ada",
    "ada@",
    "@example.test",
    "ada@example",
    "ada@@example.test",
    "a@b@example.test",
    "Ada <ada@example.test>",
    "ada@example.test, eve@example.test",
    "ada@example.test\r\nBcc: eve@example.test",
    "ada@example.test\nX: y",
    '"eve@evil.test"@example.test',
    "ada(comment)@example.test",
    "ada..b@example.test",
    ".ada@example.test",
    "ada@[127.0.0.1]",
    "ada@127.0.0.1",
    "ada@-example.test",
    "ada@example.test.",
    "ada @example.test",
    `${"a".repeat(65)}@example.test`,
  ])("refuses %j", (raw) => {
    expect(canonicalEmail(raw)).toBeNull();
  });

  it("refuses non-strings", () => {
    expect(canonicalEmail(42)).toBeNull();
    expect(canonicalEmail(null)).toBeNull();
    expect(canonicalEmail(["ada@example.test"])).toBeNull();
  });

  it("never lets a control character, space or second address through", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const out = canonicalEmail(`${a}@${b}`);
        if (out !== null) {
          expect(out).not.toMatch(/[\s\u0000-\u001f\u007f,<>"]/);
          expect(out.split("@")).toHaveLength(2);
        }
      }),
    );
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(fc.emailAddress(), (raw) => {
        const once = canonicalEmail(raw);
        if (once !== null) expect(canonicalEmail(once)).toBe(once);
      }),
    );
  });
});
