import { budgetUntil, DeadlineExceeded, withDeadline } from "./deadline";

describe("budgetUntil", () => {
  it("gives a step what is left, less what the steps after it keep, and at most its cap", () => {
    let now = 1000;
    const budget = budgetUntil(8000, () => now);
    expect(budget.take()).toBe(7000);
    expect(budget.take(1500, 5000)).toBe(5000);
    now = 4000;
    expect(budget.take(1500, 5000)).toBe(2500);
    expect(budget.take(2500)).toBe(1500);
  });

  it("gives 1 ms, not none or less, once nothing is left, so the step fails at once", async () => {
    const budget = budgetUntil(8000, () => 9000);
    expect(budget.take()).toBe(1);
    expect(budget.take(1500)).toBe(1);
    await expect(withDeadline(new Promise(() => {}), budget.take())).rejects.toBeInstanceOf(DeadlineExceeded);
  });
});
