import fc from "fast-check";
import { AppError } from "../errors";
import {
  checkMetadata,
  ensureNameNotTaken,
  isSelfRedirectUri,
  redirectRegistered,
  type Metadata,
} from "./registration";
import { boundsFor } from "./registration-budget";

const ok = { redirect_uris: ["https://app.example.test/cb"], client_name: "Notes" };

function refusal(body: Record<string, unknown>): string {
  try {
    checkMetadata(body);
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  throw new Error("accepted");
}

describe("checkMetadata", () => {
  it("takes the least a client must send, with RFC 7591's defaults, and passes over fields it does not know", () => {
    expect(checkMetadata({ ...ok, software_id: "x", scope: "openid admin", jwks: {} })).toEqual<Metadata>({
      redirectUris: ["https://app.example.test/cb"],
      clientName: "Notes",
      tokenAuth: "client_secret_basic",
      grantTypes: ["authorization_code"],
      clientUri: null,
      logoUri: null,
    });
  });

  it("takes a public client with refresh tokens, its home page and logo", () => {
    const m = checkMetadata({
      ...ok,
      token_endpoint_auth_method: "none",
      grant_types: ["refresh_token", "authorization_code"],
      response_types: ["code"],
      client_uri: "https://app.example.test/",
      logo_uri: "https://app.example.test/logo.png",
    });
    expect(m).toMatchObject({
      tokenAuth: "none",
      grantTypes: ["authorization_code", "refresh_token"],
      clientUri: "https://app.example.test/",
      logoUri: "https://app.example.test/logo.png",
    });
  });

  it.each<[string, Record<string, unknown>]>([
    ["no redirect URIs", { client_name: "Notes" }],
    ["an empty list", { ...ok, redirect_uris: [] }],
    ["eleven", { ...ok, redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.test/${i}`) }],
    ["a string, not a list", { ...ok, redirect_uris: "https://a.test/cb" }],
    ["http off loopback", { ...ok, redirect_uris: ["http://app.example.test/cb"] }],
    ["localhost", { ...ok, redirect_uris: ["http://localhost/cb"] }],
    ["a fragment", { ...ok, redirect_uris: ["https://a.test/cb#x"] }],
    ["a wildcard", { ...ok, redirect_uris: ["https://*.a.test/cb"] }],
    ["user info", { ...ok, redirect_uris: ["https://me@a.test/cb"] }],
    ["a private-use scheme", { ...ok, redirect_uris: ["com.example.app:/cb"] }],
    ["javascript", { ...ok, redirect_uris: ["javascript:alert(1)"] }],
    ["a space", { ...ok, redirect_uris: ["https://a.test/c b"] }],
    ["a loopback look-alike", { ...ok, redirect_uris: ["http://127.0.0.1.evil.test/cb"] }],
    ["loopback with user info", { ...ok, redirect_uris: ["http://127.0.0.1:80@evil.test/cb"] }],
  ])("refuses redirect_uris with %s as invalid_redirect_uri", (_, body) => {
    expect(refusal(body)).toBe("oauth_invalid_redirect_uri");
  });

  it.each<[string, Record<string, unknown>]>([
    ["no client_name", { redirect_uris: ok.redirect_uris }],
    ["an empty client_name", { ...ok, client_name: "  " }],
    ["a client_name of 101 characters", { ...ok, client_name: "a".repeat(101) }],
    ["a control character in the name", { ...ok, client_name: "Notes\nApproved by the operator" }],
    ["a bidi override in the name", { ...ok, client_name: "Notes\u202Eetis" }],
    ["a number for a name", { ...ok, client_name: 7 }],
    ["an unknown auth method", { ...ok, token_endpoint_auth_method: "private_key_jwt" }],
    ["a grant type the endpoint lacks", { ...ok, grant_types: ["authorization_code", "client_credentials"] }],
    ["refresh_token without authorization_code", { ...ok, grant_types: ["refresh_token"] }],
    ["an implicit response type", { ...ok, response_types: ["code", "token"] }],
    ["an http client_uri", { ...ok, client_uri: "http://app.example.test/" }],
    ["a javascript logo_uri", { ...ok, logo_uri: "javascript:alert(1)" }],
    ["a logo_uri too long", { ...ok, logo_uri: `https://a.test/${"x".repeat(2048)}` }],
  ])("refuses %s as invalid_client_metadata", (_, body) => {
    expect(refusal(body)).toBe("oauth_invalid_client_metadata");
  });

  it("a client_name of exactly 100 characters is taken, counted as characters", () => {
    expect(checkMetadata({ ...ok, client_name: "é".repeat(100) }).clientName).toHaveLength(100);
  });

  it("never throws anything but a refusal of its own, whatever the body", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (body) => {
        try {
          checkMetadata(body);
        } catch (err) {
          expect(err).toBeInstanceOf(AppError);
        }
      }),
    );
  });
});

describe("isSelfRedirectUri", () => {
  it.each(["https://a.test/cb", "http://127.0.0.1/cb", "http://127.0.0.1:8080/cb", "http://[::1]:1/cb?x=1"])(
    "takes %s",
    (uri) => expect(isSelfRedirectUri(uri)).toBe(true),
  );
  it.each(["HTTP://127.0.0.1/cb", "http://127.0.0.1:99999/cb", "https:/a.test/cb", "http://[::2]/cb"])(
    "refuses %s",
    (uri) => expect(isSelfRedirectUri(uri)).toBe(false),
  );
});

describe("redirectRegistered", () => {
  const self = { registeredBy: "self" as const, redirectUris: ["http://127.0.0.1/cb", "https://a.test/cb"] };

  it("matches a self-registered client's loopback URI on any port, the rest exactly", () => {
    expect(redirectRegistered(self, "http://127.0.0.1:53211/cb")).toBe(true);
    expect(redirectRegistered(self, "http://127.0.0.1/cb")).toBe(true);
    expect(redirectRegistered(self, "https://a.test/cb")).toBe(true);
  });

  it.each([
    "http://localhost:53211/cb",
    "http://[::1]:53211/cb",
    "http://127.0.0.2:53211/cb",
    "http://127.0.0.1:53211/cb/",
    "http://127.0.0.1:53211/other",
    "http://127.0.0.1:53211/cb?x=1",
    "http://127.0.0.1:53211@evil.test/cb",
    "https://127.0.0.1:53211/cb",
    "https://a.test:8443/cb",
  ])("does not match %s", (uri) => {
    expect(redirectRegistered(self, uri)).toBe(false);
  });

  it("matches the operator's loopback URIs exactly, port and all", () => {
    const operator = { ...self, registeredBy: "operator" as const };
    expect(redirectRegistered(operator, "http://127.0.0.1/cb")).toBe(true);
    expect(redirectRegistered(operator, "http://127.0.0.1:53211/cb")).toBe(false);
  });
});

describe("boundsFor", () => {
  const budgets = { perNetworkHour: 10, perEdgeHour: 50, perServiceHour: 500 };
  it("counts the network, the edge where there is one, and the service", () => {
    expect(boundsFor({ client: "1.2.3.4", network: "1.2.3.0/24", edge: null }, budgets).map((b) => b.scope)).toEqual([
      "network",
      "service",
    ]);
    expect(
      boundsFor({ client: "1.2.3.4", network: "1.2.3.0/24", edge: "9.9.9.0/24" }, budgets).map((b) => [
        b.subject,
        b.limit,
      ]),
    ).toEqual([
      ["1.2.3.0/24 via 9.9.9.0/24", 10],
      ["9.9.9.0/24", 50],
      ["all", 500],
    ]);
  });
});

describe("ensureNameNotTaken", () => {
  const ours = ["Family calendar", "Notes"];
  it.each(["Family calendar", "family  CALENDAR", "F\u0430mily calendar", "Famíly calendar", "N0tes", "Νotes"])(
    "refuses %s, which passes for one of the operator's apps",
    (name) => expect(() => ensureNameNotTaken(name, ours)).toThrow(AppError),
  );
  it.each(["Family calendars", "Notes assistant", "Calendar"])("takes %s, a name of its own", (name) =>
    expect(() => ensureNameNotTaken(name, ours)).not.toThrow(),
  );
});

describe("client_name", () => {
  it.each([
    ["a lone surrogate", "Notes \ud800"],
    ["a Hangul filler", "Notes\u3164"],
    ["the braille blank", "Notes\u2800"],
    ["a stack of combining marks", "Notes e\u0301\u0301\u0301"],
  ])("refuses %s", (_label, name) =>
    expect(() => checkMetadata({ client_name: name, redirect_uris: ["https://a.test/cb"] })).toThrow(AppError),
  );
});
