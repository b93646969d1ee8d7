import fc from "fast-check";
import { isRedirectUriForm, redirectMatches } from "./handoff-redirects";

describe("isRedirectUriForm", () => {
  it.each([
    "https://app.example.com/callback",
    "http://127.0.0.1/handoff",
    "http://127.0.0.1:8766/handoff",
    "http://[::1]/cb",
    "com.example.desktop:/handoff",
  ])("takes %s", (uri) => {
    expect(isRedirectUriForm(uri)).toBe(true);
  });

  it.each([
    ["plain http elsewhere", "http://app.example.com/callback"],
    ["localhost, which may resolve anywhere", "http://localhost/handoff"],
    ["a fragment", "https://app.example.com/callback#x"],
    ["credentials", "https://user:pw@app.example.com/callback"],
    ["a script", "javascript:alert(1)"],
    ["data", "data:text/html,hi"],
    ["a scheme without a dot", "myapp:/handoff"],
    ["not a URI", "callback"],
  ])("refuses %s", (_, uri) => {
    expect(isRedirectUriForm(uri)).toBe(false);
  });
});

describe("redirectMatches", () => {
  it("matches the registered URI exactly, and nothing near it", () => {
    const registered = "https://app.example.com/callback";
    expect(redirectMatches(registered, registered)).toBe(true);
    for (const near of [
      "https://app.example.com/callback/",
      "https://app.example.com/callback?x=1",
      "https://APP.example.com/callback",
      "https://app.example.com.evil.test/callback",
      "https://app.example.com:444/callback",
    ]) {
      expect(redirectMatches(registered, near)).toBe(false);
    }
  });

  it("lets a loopback URI registered without a port match any port, with the same path", () => {
    expect(redirectMatches("http://127.0.0.1/handoff", "http://127.0.0.1:51234/handoff")).toBe(true);
    expect(redirectMatches("http://127.0.0.1/handoff", "http://127.0.0.1:51234/other")).toBe(false);
    expect(redirectMatches("http://127.0.0.1/handoff", "http://[::1]:51234/handoff")).toBe(false);
    expect(redirectMatches("http://127.0.0.1:8766/handoff", "http://127.0.0.1:8767/handoff")).toBe(false);
  });

  it("never matches a presented URI that could not itself be registered", () => {
    fc.assert(
      fc.property(fc.webUrl({ withFragments: true, withQueryParameters: true }), (uri) => {
        if (redirectMatches(uri, uri)) expect(isRedirectUriForm(uri)).toBe(true);
      }),
    );
  });

  it("never lets a different host through, whatever the path", () => {
    fc.assert(
      fc.property(fc.domain(), fc.webPath(), (host, path) => {
        fc.pre(host !== "app.example.com");
        expect(redirectMatches("https://app.example.com/cb", `https://${host}${path}`)).toBe(false);
      }),
    );
  });
});
