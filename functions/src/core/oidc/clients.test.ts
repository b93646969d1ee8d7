import { isClientId, isDocumentClientId, isRedirectUri, secretMatches } from "./clients";
import { sha256 } from "../secrets";
import type { OidcClient } from "../model/oidc-client";

const at = (iso: string) => new Date(iso);
const NOW = at("2026-01-01T12:00:00Z");

function client(secrets: Array<{ secret: string; expiresAt: Date | null }>): OidcClient {
  return {
    clientId: "app",
    name: "App",
    secrets: secrets.map((s) => ({
      hash: sha256(s.secret),
      createdAt: at("2026-01-01T00:00:00Z"),
      expiresAt: s.expiresAt,
    })),
    redirectUris: ["https://app.example.test/cb"],
    postLogoutRedirectUris: [],
    backchannelLogoutUri: null,
    pkce: "required",
    refreshTokens: false,
    project: null,
    disabled: false,
    registeredBy: "operator",
    review: "approved",
    clientUri: null,
    logoUri: null,
    tokenAuth: "client_secret_basic",
    triedBy: [],
    document: null,
    createdAt: at("2026-01-01T00:00:00Z"),
  };
}

describe("secretMatches", () => {
  it("accepts any live secret, and a rotated-out one until the instant its overlap ends", () => {
    const c = client([
      { secret: "new", expiresAt: null },
      { secret: "old", expiresAt: at("2026-01-01T12:00:01Z") },
    ]);
    expect(secretMatches(c, "new", NOW)).toBe(true);
    expect(secretMatches(c, "old", NOW)).toBe(true);
    expect(secretMatches(c, "old", at("2026-01-01T12:00:01Z"))).toBe(false);
    expect(secretMatches(c, "other", NOW)).toBe(false);
  });

  it("refuses every secret of an unknown client, and of one whose secrets have all expired", () => {
    expect(secretMatches(null, "no client has this secret", NOW)).toBe(false);
    expect(secretMatches(client([{ secret: "old", expiresAt: NOW }]), "old", NOW)).toBe(false);
  });
});

describe("registration checks", () => {
  it.each([
    ["https://app.example.test/cb", true],
    ["http://127.0.0.1:8765/cb", true],
    ["http://localhost/cb", true],
    ["http://app.example.test/cb", false],
    ["https://app.example.test/cb#x", false],
    ["/cb", false],
  ])("redirect URI %s: %s", (uri, ok) => expect(isRedirectUri(uri)).toBe(ok));

  it.each([
    ["demo-client", true],
    ["a.b_c~d", true],
    ["", false],
    ["..", false],
    ["__x", false],
    ["has space", false],
    ["a/b", false],
  ])("client id %j: %s", (id, ok) => expect(isClientId(id)).toBe(ok));

  it.each([
    ["https://agent.example/client.json", true],
    ["https://agent.example:8443/oauth/client", true],
    ["https://agent.example/", false],
    ["https://agent.example", false],
    ["http://agent.example/client.json", false],
    ["https://agent.example/client.json#x", false],
    ["https://agent.example/client.json?v=1", false],
    ["https://user@agent.example/client.json", false],
    ["https://agent.example/a/../client.json", false],
    ["https://agent.example/./client.json", false],
    ["https://AGENT.example/client.json", false],
    ["https://agent.example/client json", false],
    [`https://agent.example/${"a".repeat(2048)}`, false],
  ])("metadata document client id %j: %s", (id, ok) => expect(isDocumentClientId(id)).toBe(ok));
});
