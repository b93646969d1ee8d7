import { cryptoRandom } from "./random";

describe("cryptoRandom.id", () => {
  it("makes 20 URL-safe characters that never begin with a dash (one in 64 would, drawn plainly)", () => {
    const ids = Array.from({ length: 5000 }, () => cryptoRandom.id());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{19}$/);
  });
});
