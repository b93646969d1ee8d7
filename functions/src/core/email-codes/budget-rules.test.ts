import { admits, sendBudgets, TOTAL_SHARE, USED_ALLOWANCE_FACTOR } from "./budget-rules";

const settings = { perClientPerHour: 20, perServicePerMinute: 600, perDomainPerHour: 200, domainBudgetExempt: [] };
const origin = { client: "203.0.113.7", network: "203.0.113.0/24", edge: "198.51.100.0/24" };
const byScope = (scope: string) => sendBudgets(origin, "a@example.test", settings).find((b) => b.scope === scope)!;

describe("send budgets", () => {
  it("holds a network and an edge to half the service's minute in all, however many of their codes were used", () => {
    for (const scope of ["network", "edge"]) {
      const budget = byScope(scope);
      expect(budget.total).toBe(600 * TOTAL_SHARE);
      expect(admits(budget, { sent: 299, used: 299 })).toBe(true);
      expect(admits(budget, { sent: 300, used: 300 })).toBe(false);
    }
  });

  it("lets a client's used codes earn room, up to its allowance, with no cap in all", () => {
    const client = byScope("client");
    expect(client.total).toBeNull();
    expect(admits(client, { sent: 1000, used: 1000 })).toBe(true);
    const most = 20 + USED_ALLOWANCE_FACTOR * 20;
    expect(admits(client, { sent: most + 20, used: 20 })).toBe(false);
  });

  it("counts every send against the service's minute", () => {
    const service = byScope("service");
    expect(admits(service, { sent: 599, used: 599 })).toBe(true);
    expect(admits(service, { sent: 600, used: 600 })).toBe(false);
  });
});
