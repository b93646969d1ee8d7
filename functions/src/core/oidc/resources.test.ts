import { isResourceUrl } from "./resources";

describe("isResourceUrl: what can name a resource (RFC 8707 §2)", () => {
  it("takes an absolute https URL, with a path or without", () => {
    expect(isResourceUrl("https://notes.example.test")).toBe(true);
    expect(isResourceUrl("https://notes.example.test/mcp")).toBe(true);
    expect(isResourceUrl("https://notes.example.test:8443/api/v1")).toBe(true);
  });

  it("takes http on a loopback host only, for a local stack", () => {
    expect(isResourceUrl("http://127.0.0.1:5000/mcp")).toBe(true);
    expect(isResourceUrl("http://localhost:5000/mcp")).toBe(true);
    expect(isResourceUrl("http://[::1]:5000/mcp")).toBe(true);
    expect(isResourceUrl("http://notes.example.test/mcp")).toBe(false);
  });

  it("refuses a fragment, a query, credentials, another scheme or a relative reference", () => {
    for (const url of [
      "https://notes.example.test/mcp#x",
      "https://notes.example.test/mcp#",
      "https://notes.example.test/mcp?x=1",
      "https://notes.example.test/mcp?",
      "https://user:pass@notes.example.test/mcp",
      "ftp://notes.example.test/mcp",
      "urn:example:notes",
      "/mcp",
      "",
      `https://notes.example.test/${"a".repeat(600)}`,
    ])
      expect([url, isResourceUrl(url)]).toEqual([url, false]);
  });

  it("refuses a URL not written as the URL standard writes it, so that no two name one site", () => {
    for (const url of [
      "HTTPS://notes.example.test/mcp",
      "https://Notes.example.test/mcp",
      "https://notes.example.test:443/mcp",
      "https://notes.example.test/a/../mcp",
      "https://notes.example.test/./mcp",
      " https://notes.example.test/mcp",
      "https:notes.example.test/mcp",
      "https://notes.example.test\\mcp",
      "https://notes.example.test/",
      "https://notes.example.test./mcp",
      "https://notes.example.test/%6Dcp",
      "https://notes.example.test/m%2fcp",
    ])
      expect([url, isResourceUrl(url)]).toEqual([url, false]);
  });
});
