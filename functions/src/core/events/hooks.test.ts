import { secretProblem } from "./hooks";

const whsec = (bytes: number) => `whsec_${Buffer.alloc(bytes, 7).toString("base64")}`;

describe("secretProblem", () => {
  it("takes Standard Webhooks' form with a key of 24 to 64 bytes, the bounds included", () => {
    expect(secretProblem(whsec(24))).toBeNull();
    expect(secretProblem(whsec(32))).toBeNull();
    expect(secretProblem(whsec(64))).toBeNull();
    expect(secretProblem("whsec_ZGV2LXdlYmhvb2stc2VjcmV0LW9mLXRoZS1zdGFjayE=")).toBeNull();
  });

  it("refuses a key shorter or longer than that", () => {
    expect(secretProblem(whsec(23))).toMatch(/24 to 64 bytes/);
    expect(secretProblem(whsec(65))).toMatch(/24 to 64 bytes/);
  });

  it("refuses what is not whsec_ and canonical base64", () => {
    const key = Buffer.alloc(32, 7).toString("base64");
    expect(secretProblem(key)).toMatch(/whsec_/);
    expect(secretProblem(`whsec_${Buffer.alloc(32, 7).toString("base64url")}_-`)).toMatch(/whsec_/);
    expect(secretProblem(`whsec_${key} `)).toMatch(/whsec_/);
    expect(secretProblem(`whsec_${key.replace(/=$/, "")}`)).toMatch(/canonical/);
    expect(secretProblem("whsec_")).toMatch(/whsec_/);
  });
});
