import { browserIdentifier } from "./browser-id";

function memory(): Pick<Storage, "getItem" | "setItem"> & { kept: Map<string, string> } {
  const kept = new Map<string, string>();
  return { kept, getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => void kept.set(k, v) };
}

describe("browserIdentifier", () => {
  it("makes 32 random bytes once, base64url, and keeps them", () => {
    const storage = memory();
    const first = browserIdentifier(storage);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(browserIdentifier(storage)).toBe(first);
    expect(browserIdentifier(memory())).not.toBe(first);
  });

  it("replaces a kept value of another shape, and sends none where storage is refused", () => {
    const storage = memory();
    storage.setItem("identity.browser", "planted<script>");
    expect(browserIdentifier(storage)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const refusing = {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => {},
    };
    expect(browserIdentifier(refusing)).toBeNull();
  });
});
