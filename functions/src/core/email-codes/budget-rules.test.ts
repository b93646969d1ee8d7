import { HOUR, MINUTE } from "../../clock";
import {
  admits,
  guessBudgets,
  REQUEST_NETWORK_CLIENTS,
  REQUEST_WINDOW_MS,
  sendBudgets,
  TOTAL_SHARE,
  USED_ALLOWANCE_FACTOR,
} from "./budget-rules";

const settings = { perClientPerHour: 20, perServicePerMinute: 600, perDomainPerHour: 200, domainBudgetExempt: [] };
const origin = { client: "203.0.113.7", network: "203.0.113.0/24", edge: "198.51.100.0/24" };
const byScope = (scope: string, purpose: "signin" | "request-access" = "signin") =>
  sendBudgets(origin, "a@example.test", settings, purpose).find((b) => b.scope === scope)!;

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

  it("counts a request for access against its client's and network's requests in place of the client's codes", () => {
    expect(sendBudgets(origin, "a@example.test", settings, "request-access").map((b) => b.scope)).toEqual([
      "requestClient",
      "requestNetwork",
      "network",
      "edge",
      "domain",
      "service",
    ]);
    expect(sendBudgets(origin, "a@example.test", settings, "signin").map((b) => b.scope)).toEqual([
      "client",
      "network",
      "edge",
      "domain",
      "service",
    ]);
  });

  it("holds a client to 20 requests for access and a network to 60, over an hour and a code's life", () => {
    expect(REQUEST_WINDOW_MS).toBe(HOUR + 10 * MINUTE);
    const client = byScope("requestClient", "request-access");
    const network = byScope("requestNetwork", "request-access");
    expect([client.windowMs, client.limit, client.refusal]).toEqual([
      REQUEST_WINDOW_MS,
      20,
      "email_code_request_budget",
    ]);
    expect([network.windowMs, network.limit]).toEqual([REQUEST_WINDOW_MS, REQUEST_NETWORK_CLIENTS * 20]);
    expect(network.limit).toBe(60);
  });

  it("lets nothing earn a request for access back: used codes ahead buy no room", () => {
    for (const scope of ["requestClient", "requestNetwork"]) {
      const budget = byScope(scope, "request-access");
      expect(admits(budget, { sent: budget.limit - 1, used: 0 })).toBe(true);
      expect(admits(budget, { sent: budget.limit, used: 0 })).toBe(false);
      expect(admits(budget, { sent: budget.limit, used: budget.limit })).toBe(false);
    }
  });

  it("holds a client to 20 recovery-code guesses an hour and a network to 60, right or wrong", () => {
    const [client, network] = guessBudgets(origin, settings);
    expect([client?.scope, client?.windowMs, client?.limit, client?.refusal]).toEqual([
      "recoveryClient",
      HOUR,
      20,
      "recovery_code_budget",
    ]);
    expect([network?.scope, network?.limit]).toEqual(["recoveryNetwork", REQUEST_NETWORK_CLIENTS * 20]);
    for (const budget of [client!, network!]) {
      expect(admits(budget, { sent: budget.limit - 1, used: 0 })).toBe(true);
      expect(admits(budget, { sent: budget.limit, used: budget.limit })).toBe(false);
    }
  });
});
