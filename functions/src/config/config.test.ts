import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

describe("MCP_RESOURCE_URL", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it("is the start page host's /mcp when blank", () => {
    process.env.PARENT_DOMAIN = "family.test";
    delete process.env.MCP_RESOURCE_URL;
    expect(readConfig().mcpResourceUrl).toBe("https://startpage.family.test/mcp");
  });

  it("takes an origin followed by /mcp, http on loopback alone", () => {
    process.env.MCP_RESOURCE_URL = "http://127.0.0.1:5000/mcp";
    expect(readConfig().mcpResourceUrl).toBe("http://127.0.0.1:5000/mcp");
    process.env.MCP_RESOURCE_URL = "http://startpage.family.test/mcp";
    expect(() => readConfig()).toThrow("MCP_RESOURCE_URL");
  });

  it.each([
    "https://startpage.family.test/tools",
    "https://startpage.family.test/mcp?x=1",
    "https://StartPage.family.test/mcp",
  ])("refuses %s: not one spelling of a resource served at /mcp", (value) => {
    process.env.MCP_RESOURCE_URL = value;
    expect(() => readConfig()).toThrow("MCP_RESOURCE_URL");
  });
});

describe("OIDC_METADATA_DEV_ORIGINS and OIDC_METADATA_DEV_CA", () => {
  const saved = { ...process.env };
  const dir = mkdtempSync(join(tmpdir(), "dev-ca-"));
  const caFile = join(dir, "ca.pem");
  writeFileSync(caFile, "-----BEGIN CERTIFICATE-----\nlocal\n-----END CERTIFICATE-----\n");
  afterEach(() => {
    process.env = { ...saved };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the origins and the authority's file on the emulators", () => {
    process.env.GCLOUD_PROJECT = "demo-identity-test";
    process.env.OIDC_METADATA_DEV_ORIGINS = "https://127.0.0.1:5125";
    process.env.OIDC_METADATA_DEV_CA = caFile;
    expect(readConfig().oidcRegistration.documents).toEqual({
      devOrigins: ["https://127.0.0.1:5125"],
      ca: expect.stringContaining("local"),
    });
  });

  it("ignores both in production", () => {
    process.env.GCLOUD_PROJECT = "example-identity-prod";
    delete process.env.FUNCTIONS_EMULATOR;
    process.env.OIDC_METADATA_DEV_ORIGINS = "https://127.0.0.1:5125";
    process.env.OIDC_METADATA_DEV_CA = caFile;
    expect(readConfig().oidcRegistration.documents).toEqual({ devOrigins: [], ca: null });
  });

  it("stops the function naming the setting when the file cannot be read", () => {
    process.env.GCLOUD_PROJECT = "demo-identity-test";
    process.env.OIDC_METADATA_DEV_CA = join(dir, "missing.pem");
    expect(() => readConfig()).toThrow("OIDC_METADATA_DEV_CA: cannot read");
  });
});
