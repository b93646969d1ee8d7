import { DAY, HOUR } from "../../clock";
import { subscriptionHealth } from "./subscriptions";

const NOW = new Date("2026-11-29T12:00:00Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const hook = (fields: Partial<Parameters<typeof subscriptionHealth>[0]> = {}) => ({
  app: "notes",
  failures: 0,
  lastError: null,
  lastSuccessAt: ago(HOUR),
  createdAt: ago(30 * DAY),
  ...fields,
});

describe("subscriptionHealth: how an app's deliveries have gone, as doctor says it", () => {
  it("is well while deliveries go through and none was given up", () => {
    expect(subscriptionHealth(hook(), 0, NOW)).toEqual({
      ok: true,
      detail: `last delivered ${ago(HOUR).toISOString()}`,
    });
  });

  it("warns of failures in a row, without calling them a day's", () => {
    const health = subscriptionHealth(
      hook({ failures: 3, lastError: "status 503", lastSuccessAt: ago(2 * HOUR) }),
      0,
      NOW,
    );
    expect(health.ok).toBe(false);
    expect(health.detail).toBe("3 deliveries failed in a row (last: status 503)");
  });

  it("names a subscription that has delivered nothing for a day while failing", () => {
    const health = subscriptionHealth(
      hook({ failures: 9, lastError: "timeout", lastSuccessAt: ago(DAY + HOUR) }),
      0,
      NOW,
    );
    expect(health.ok).toBe(false);
    expect(health.detail).toContain(`nothing delivered for 1 d 1 h (since ${ago(DAY + HOUR).toISOString()})`);
  });

  it("counts from the subscription's start when nothing was ever delivered", () => {
    const health = subscriptionHealth(
      hook({ failures: 2, lastError: "timeout", lastSuccessAt: null, createdAt: ago(3 * DAY) }),
      0,
      NOW,
    );
    expect(health.detail).toContain("nothing delivered for 3 d 0 h");
    const young = subscriptionHealth(
      hook({ failures: 2, lastError: "timeout", lastSuccessAt: null, createdAt: ago(HOUR) }),
      0,
      NOW,
    );
    expect(young.detail).not.toContain("nothing delivered");
  });

  it("warns of deliveries given up even once the app answers again, saying what to run", () => {
    const health = subscriptionHealth(hook(), 2, NOW);
    expect(health.ok).toBe(false);
    expect(health.detail).toContain("2 of its latest 50 deliveries given up (`hooks deliveries notes` lists them");
  });
});
