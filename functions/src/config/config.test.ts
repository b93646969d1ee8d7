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
