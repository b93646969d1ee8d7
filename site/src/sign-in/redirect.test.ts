import fc from "fast-check";
import { allowedRedirect, projectFrom } from "./redirect";

describe("allowedRedirect", () => {
  it("goes to the account page when no redirect was given", () => {
    expect(allowedRedirect(null)).toBe("https://id.example.test/account");
    expect(allowedRedirect("")).toBe("https://id.example.test/account");
  });

  it.each([
    "https://startpage.example.test/",
    "https://id.example.test/auth/oidc/authorize?client_id=a&state=b",
    "https://example.test/x?y=1#z",
  ])("takes %s, one of the service's own origins", (url) => {
    expect(allowedRedirect(url)).toBe(new URL(url).toString());
  });

  it.each([
    ["another site", "https://evil.example/"],
    ["a look-alike host", "https://startpage.example.test.evil.example/"],
    ["plain http", "http://startpage.example.test/"],
    ["another port", "https://startpage.example.test:8443/"],
    ["credentials", "https://user:pw@startpage.example.test/"],
    ["a script", "javascript:alert(1)"],
    ["a relative path", "/account"],
    ["a protocol-relative address", "//evil.example/"],
    ["an app host that is not configured", "https://admin.example.test/"],
  ])("refuses %s", (_, url) => {
    expect(allowedRedirect(url)).toBeNull();
  });

  it("refuses an address over 2048 characters", () => {
    expect(allowedRedirect(`https://startpage.example.test/${"a".repeat(2048)}`)).toBeNull();
  });

  it("never lets anything through whose origin is not on the list", () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string()), (raw) => {
        const allowed = allowedRedirect(raw);
        if (allowed !== null && raw !== "")
          expect([
            "https://example.test",
            "https://www.example.test",
            "https://id.example.test",
            "https://startpage.example.test",
            "https://status.example.test",
            "https://calendar.example.test",
            "https://location.example.test",
          ]).toContain(new URL(allowed).origin);
      }),
    );
  });
});

describe("projectFrom", () => {
  it("takes a project name, and the identity host's own project otherwise", () => {
    expect(projectFrom("startpage")).toBe("startpage");
    expect(projectFrom(null)).toBe("account");
    expect(projectFrom("")).toBe("account");
    expect(projectFrom("a b")).toBe("account");
    expect(projectFrom("x".repeat(101))).toBe("account");
  });
});
