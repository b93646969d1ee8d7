import { backchannelHealth, type LogoutTry } from "./backchannel";

const now = new Date("2026-11-29T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
const HOUR = 3600_000;
const sent = (at: Date): LogoutTry => ({ state: "sent", attempts: 1, createdAt: at, sentAt: at, lastError: null });

describe("a client's back-channel logout, as the doctor judges it", () => {
  it("is well while every token was taken, and says when the last was", () => {
    expect(backchannelHealth("app", [sent(ago(HOUR)), sent(ago(2 * HOUR))], now)).toEqual({
      ok: true,
      detail: `last took a logout token ${ago(HOUR).toISOString()}`,
    });
  });

  it("is well with none sent yet", () => {
    expect(backchannelHealth("app", [], now)).toEqual({ ok: true, detail: "no logout token sent yet" });
  });

  it("warns of tokens given up in the last day, with the last failure's kind and what to look at", () => {
    const given: LogoutTry = {
      state: "failed",
      attempts: 12,
      createdAt: ago(3 * HOUR),
      sentAt: null,
      lastError: "timeout",
    };
    const health = backchannelHealth("app", [given, sent(ago(30 * HOUR))], now);
    expect(health.ok).toBe(false);
    expect(health.detail).toBe(
      `1 logout tokens given up in the last day (last failure: timeout); last took one ${ago(30 * HOUR).toISOString()}: ` +
        "is its back-channel logout address right, and is it up? (`clients show app`)",
    );
  });

  it("warns of a token still failing", () => {
    const trying: LogoutTry = {
      state: "pending",
      attempts: 3,
      createdAt: ago(HOUR),
      sentAt: null,
      lastError: "status 503",
    };
    const health = backchannelHealth("app", [trying], now);
    expect(health.ok).toBe(false);
    expect(health.detail).toMatch(/^1 failing and tried again \(last failure: status 503\); last took one never/);
  });

  it("forgets a token given up more than a day ago, and one waiting for its first try", () => {
    const old: LogoutTry = {
      state: "failed",
      attempts: 12,
      createdAt: ago(25 * HOUR),
      sentAt: null,
      lastError: "timeout",
    };
    const fresh: LogoutTry = { state: "pending", attempts: 0, createdAt: ago(1000), sentAt: null, lastError: null };
    expect(backchannelHealth("app", [fresh, old], now).ok).toBe(true);
  });
});
