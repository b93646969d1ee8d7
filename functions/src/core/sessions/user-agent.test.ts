import { describeUserAgent, nameUserAgent } from "./user-agent";

describe("describeUserAgent", () => {
  it.each([
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36",
      "Chrome",
      "Windows",
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0 Safari/537.36 Edg/150.0",
      "Edge",
      "Windows",
    ],
    ["Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0", "Firefox", "Linux"],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 19_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/19.0 Mobile/15E148 Safari/604.1",
      "Safari",
      "iOS",
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/19.0 Safari/605.1.15",
      "Safari",
      "macOS",
    ],
    [
      "Mozilla/5.0 (Linux; Android 15) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0 Mobile Safari/537.36",
      "Chrome",
      "Android",
    ],
    ["curl/8.5.0", "Unknown", "Unknown"],
    ["", "Unknown", "Unknown"],
  ])("names %s as %s on %s", (ua, browser, system) => {
    expect(describeUserAgent(ua)).toEqual({ browser, system });
  });
});

describe("nameUserAgent", () => {
  it.each([
    ["Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0", "Firefox on Linux"],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) SomeEngine/1.0", "a browser on Windows"],
    ["Firefox/140.0", "Firefox"],
    ["curl/8.5.0", "a browser or program it could not name"],
    ["", "a browser or program it could not name"],
  ])("names %j as %j, never Unknown", (userAgent, name) => {
    expect(nameUserAgent(userAgent)).toBe(name);
  });
});
