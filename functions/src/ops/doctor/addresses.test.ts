import { checkAddresses, isPlaceholder, type Addresses } from "./addresses";

const real: Addresses = {
  parentDomain: "family.dev",
  serviceUrl: "https://family.dev",
  idUrl: "https://id.family.dev",
  appHosts: ["startpage", "status"],
  allowedOrigins: ["https://family.dev", "https://www.family.dev", "https://id.family.dev"],
  mailFrom: "Sign-in <no-reply@family.dev>",
  idpApiKey: "AIza-key",
};

const failing = (a: Addresses, production = true) =>
  checkAddresses(a, production)
    .filter((c) => !c.ok && c.required)
    .map((c) => c.name);

describe("the doctor's address checks", () => {
  it("knows the names kept for documentation and tests", () => {
    for (const host of [
      "example.test",
      "id.example.test",
      "example.com",
      "x.invalid",
      "localhost",
      "127.0.0.1",
      "a.example",
    ])
      expect({ host, placeholder: isPlaceholder(host) }).toEqual({ host, placeholder: true });
    for (const host of ["family.dev", "example.family.dev", "testing.io"])
      expect({ host, placeholder: isPlaceholder(host) }).toEqual({ host, placeholder: false });
  });

  it("passes a deployment's own addresses", () => {
    expect(failing(real)).toEqual([]);
  });

  it("fails the placeholders a fresh checkout carries, in production only", () => {
    const fresh = {
      ...real,
      parentDomain: "example.test",
      serviceUrl: "https://example.test",
      idUrl: "https://id.example.test",
      idpApiKey: "",
    };
    expect(failing(fresh)).toEqual(["PARENT_DOMAIN", "SERVICE_URL", "ID_URL", "IDP_API_KEY"]);
    expect(failing({ ...fresh, serviceUrl: "http://127.0.0.1:5000" }, false)).toEqual([]);
  });

  it("fails an identity host outside the parent domain: its session cookie would be refused", () => {
    expect(failing({ ...real, idUrl: "https://id.elsewhere.dev" })).toEqual(["ID_URL"]);
    expect(failing({ ...real, idUrl: "https://id.family.dev/pages" })).toEqual(["ID_URL"]);
  });

  it("fails plain http in production, an app host that is no host name, and an origin that is not https", () => {
    expect(failing({ ...real, serviceUrl: "http://family.dev" })).toEqual(["SERVICE_URL"]);
    expect(failing({ ...real, appHosts: ["start page"] })).toEqual(["APP_HOSTS"]);
    expect(failing({ ...real, allowedOrigins: ["http://family.dev"] })).toEqual(["allowed origins"]);
  });

  it("warns, without failing, of a service elsewhere and of mail sent as a placeholder", () => {
    const checks = checkAddresses(
      { ...real, serviceUrl: "https://auth.other.dev", mailFrom: "<a@example.test>" },
      true,
    );
    expect(checks.filter((c) => !c.ok).map((c) => [c.name, c.required])).toEqual([
      ["SERVICE_URL host", false],
      ["MAIL_FROM", false],
    ]);
  });
});
