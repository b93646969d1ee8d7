import { readConfig } from "./config";

/** readConfig reads process.env the way each deployed function sees it: its params, and only the secrets it declares. */
describe("readConfig", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  const providers = JSON.stringify({
    search: { issuer: "https://accounts.search.example", clientId: "client-1", providerId: "google.com" },
  });

  it("leaves the federated providers out of a function that is not given their secrets", () => {
    process.env.FEDERATED_PROVIDERS = providers;
    process.env.IDP_API_KEY = "key";
    delete process.env.FEDERATED_CLIENT_SECRETS;
    expect(readConfig().federated).toBeNull();
  });

  it("parses them in the function that is", () => {
    process.env.FEDERATED_PROVIDERS = providers;
    process.env.IDP_API_KEY = "key";
    process.env.FEDERATED_CLIENT_SECRETS = JSON.stringify({ search: "s3cret" });
    expect(readConfig().federated?.providers.search?.clientSecret).toBe("s3cret");
  });

  it("stops that function when its secret lacks a provider's", () => {
    process.env.FEDERATED_PROVIDERS = providers;
    process.env.IDP_API_KEY = "key";
    process.env.FEDERATED_CLIENT_SECRETS = "{}";
    expect(() => readConfig()).toThrow("search has no client secret");
  });
});

describe("ADDRESS_RULES", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it("is off by default: nobody comes in without review", () => {
    delete process.env.ADDRESS_RULES;
    expect(readConfig().addressRules).toEqual([]);
  });

  it("reads each domain's rule, its lists defaulting to none", () => {
    process.env.ADDRESS_RULES = JSON.stringify({
      "school.example": { then: "approve", projects: ["calendar"], groups: ["pupils"] },
      "partner.example": { then: "suggest" },
    });
    expect(readConfig().addressRules).toEqual([
      { domain: "school.example", then: "approve", projects: ["calendar"], groups: ["pupils"] },
      { domain: "partner.example", then: "suggest", projects: [], groups: [] },
    ]);
  });

  it.each([
    ['{"School.Example":{"then":"approve"}}', /School\.Example/],
    ['{"school.example":{"then":"allow"}}', /then/],
    ['{"school.example":{"then":"approve","role":"admin"}}', /role/],
    ["[1]", /ADDRESS_RULES/],
  ])("stops the function naming the setting for %s", (value, message) => {
    process.env.ADDRESS_RULES = value;
    expect(() => readConfig()).toThrow(message);
  });
});
