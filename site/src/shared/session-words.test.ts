import { deviceName, howSignedIn, roughly } from "./session-words";

describe("howSignedIn: a session's methods in words", () => {
  it.each([
    [["hwk", "user"], "with a passkey"],
    [["swk", "user"], "with a passkey"],
    [["otp"], "with a code by email"],
    [["fed"], "through another service"],
    [["sms"], "with a code by text message"],
    [["pwd"], "with a password"],
    [[], ""],
  ])("%j is %p", (methods, words) => {
    expect(howSignedIn(methods)).toBe(words);
  });
});

describe("roughly: when a session was last used, no finer than the service records it", () => {
  const now = Date.parse("2026-11-25T12:00:00Z");
  const ago = (minutes: number) => new Date(now - minutes * 60_000).toISOString();

  it("says the last few minutes within ten", () => {
    expect(roughly(ago(0), now)).toBe("in the last few minutes");
    expect(roughly(ago(9), now)).toBe("in the last few minutes");
  });

  it("counts minutes, then hours, then days", () => {
    expect(roughly(ago(25), now)).toMatch(/25 minutes ago/);
    expect(roughly(ago(3 * 60), now)).toMatch(/3 hours ago/);
    expect(roughly(ago(26 * 60), now)).toMatch(/yesterday|1 day ago/);
    expect(roughly(ago(5 * 24 * 60), now)).toMatch(/5 days ago/);
  });
});

describe("deviceName", () => {
  it("names the browser and system it knows, and says so when it knows neither", () => {
    expect(deviceName({ browser: "Firefox", system: "Windows" })).toBe("Firefox on Windows");
    expect(deviceName({ browser: "Unknown", system: "Linux" })).toBe("A browser on Linux");
    expect(deviceName({ browser: "Safari", system: "Unknown" })).toBe("Safari");
    expect(deviceName({ browser: "Unknown", system: "Unknown" })).toBe("An unknown browser");
  });
});
