/**
 * Through the local stack (Hosting emulator → Functions emulator → function): no proxy of the
 * stack appends to X-Forwarded-For, so the stack reads none of it (CLIENT_ADDRESS_HOPS=0), and
 * whatever a caller writes there buys it nothing. The counting behind production's setting (the
 * entries the trusted proxies append) is tested in email-code-send.test.ts.
 *
 * @stack-project requests go through Hosting to the stack's functions
 */
import { firestore } from "./support/deps";
import { strangerAddress } from "./support/email-codes";

const base = process.env.STACK_BASE_URL as string;

/** How many requests for access the stack's ledger holds for each client (by its keyed hash). */
async function clientBudgets(): Promise<Map<string, number>> {
  const snaps = await firestore().collection("sends").get();
  const counts = new Map<string, number>();
  for (const doc of snaps.docs) {
    const client = doc.get("requestClient") as string | undefined;
    if (client !== undefined) counts.set(client, (counts.get(client) ?? 0) + 1);
  }
  return counts;
}

describe("POST /auth/otp/send through Hosting", () => {
  it("counts sends with forged X-Forwarded-For entries against the one caller they come from", async () => {
    const before = await clientBudgets();
    for (const forged of ["203.0.113.1", "198.51.100.7, 203.0.113.2", "2001:db8::1", "garbage"]) {
      const res = await fetch(`${base}/auth/otp/send`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": forged },
        body: JSON.stringify({ email: strangerAddress(), purpose: "request-access" }),
      });
      expect(res.status).toBe(200);
    }
    const after = await clientBudgets();
    const grown = [...after].map(([id, sends]) => sends - (before.get(id) ?? 0)).filter((added) => added !== 0);
    expect(grown).toEqual([4]);
  });
});
