/**
 * Proves: an X-Forwarded-For entry a caller writes itself buys it nothing. Behind the trusted
 * proxies production has (CLIENT_ADDRESS_HOPS), only the entry the outermost of them appended is
 * the client: a fresh forged entry on every send is still one client's budget. Through the local
 * stack (Hosting emulator → Functions emulator → function), where no proxy appends to the header
 * (CLIENT_ADDRESS_HOPS=0), none of it is read at all.
 *
 * @stack-project requests go through Hosting to the stack's functions
 */
import request from "supertest";
import { cryptoRandom } from "../../src/random";
import { firestore, testConfig, UNLIMITED_SENDS } from "../support/deps";
import { fresh, strangerAddress } from "../support/email-codes";

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

describe("POST /auth/otp/send behind trusted proxies", () => {
  const octet = () => cryptoRandom.int(1, 255);
  /** A client address in a /24 of its own (almost surely: 16 million of them). */
  const network = () => `${cryptoRandom.int(11, 100)}.${octet()}.${octet()}.${octet()}`;

  it.each([
    [1, (spoof: string, client: string) => `${spoof}, ${client}`],
    [2, (spoof: string, client: string) => `${spoof}, ${client}, ${network()}`],
  ])(
    "buys nothing with X-Forwarded-For entries the client writes itself, behind %i trusted proxies",
    async (hops, forwarded) => {
      const sendBudgets = { ...UNLIMITED_SENDS, perClientPerHour: 5 };
      // A pepper of its own: budget records are keyed by it, so nothing sent elsewhere counts here.
      const codePepper = `forged-${cryptoRandom.int(0, 1e9)}:${cryptoRandom.token(24)}`;
      const { app } = fresh({ config: testConfig({ sendBudgets, clientAddressHops: hops, codePepper }) });
      const client = network();
      const statuses = [];
      // A fresh forged entry on every request, left of what the trusted proxies append.
      for (let i = 0; i < 8; i++)
        statuses.push(
          (
            await request(app)
              .post("/auth/otp/send")
              .set("X-Forwarded-For", forwarded(network(), client))
              .send({ email: strangerAddress() })
          ).status,
        );
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    },
  );
});
