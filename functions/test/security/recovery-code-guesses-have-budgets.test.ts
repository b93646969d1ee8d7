/**
 * Proves: guesses at recovery codes are bounded by where they come from, not only by the address
 * they name. The sign-in by recovery code is public, and its per-address ceiling counts guesses at
 * one address: a stranger going from address to address met no bound at all. Each guess now counts
 * against its client's guesses in an hour (OTP_SENDS_PER_CLIENT_HOUR) and its network's (an IPv4
 * /24: three times that), right or wrong, before anything of the address is read; beyond them, the
 * contract's error shape, 429 with Retry-After, whatever the address and even for a right code.
 */
import request from "supertest";
import { HOUR } from "../../src/clock";
import { cryptoRandom } from "../../src/random";
import * as limits from "../../src/store/email-code-limits";
import { parsePepper, recoveryRunIds } from "../../src/core/pepper";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { testConfig, testDeps, UNLIMITED_SENDS, unique } from "../support/deps";
import { passkeyWorld } from "../support/passkeys";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(120_000);

const PER_CLIENT = 3;
const codePepper = `guesses-${cryptoRandom.int(0, 1e9)}:${cryptoRandom.token(24)}`;
const deps = testDeps({
  config: testConfig({
    passkeyRoles: ["admin"],
    codePepper,
    sendBudgets: { ...UNLIMITED_SENDS, perClientPerHour: PER_CLIENT },
  }),
});
const keys = passkeyWorld(deps);

afterEach(() => allTasksIdle());

const octet = () => cryptoRandom.int(1, 255);
/** A /24 of its own (almost surely), and a client in it. */
const network = () => `${cryptoRandom.int(11, 100)}.${octet()}.${octet()}`;

/** A guess from `client`, as the one trusted proxy passes it on. */
const guess = (client: string, email: string, code: string) =>
  request(keys.app).post("/auth/passkeys/recovery/sign-in").set("X-Forwarded-For", client).send({ email, code });

const wrong = (i: number) => `zzzzz-${String(i).padStart(5, "0")}`;

/** How many failed guesses the address's recovery run holds. */
async function counted(email: string): Promise<number> {
  const [id] = recoveryRunIds(parsePepper(codePepper), email);
  return (await limits.findAll(deps.store, [id as string]))[0]?.failures ?? 0;
}

describe("guesses at recovery codes from one place", () => {
  it("are held to the client's budget, before anything of the address is read, even for a right code", async () => {
    const admin = await keys.withPasskey({ role: "admin", projects: ["*"] });
    const keyed = await sessionCookieFor(deps, admin.account.uid, admin.person.id, ["hwk", "user"]);
    const [code] = (await request(keys.app).post("/auth/passkeys/recovery-codes").set("Cookie", keyed).send({})).body
      .codes as string[];
    const client = `${network()}.${octet()}`;
    // A stranger going from address to address: one guess at each.
    for (let i = 0; i < PER_CLIENT; i++)
      expect((await guess(client, `${unique("someone")}@example.test`, wrong(i))).body.reason).toBe("code_invalid");
    const refused = await guess(client, admin.account.email, code as string);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: "Too many recovery codes were tried from this network. Try again later.",
      reason: "recovery_budget",
    });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(HOUR / 1000 - 60);
    // Nothing of the address was counted, and the code is still unused.
    expect(await counted(admin.account.email)).toBe(0);
    // Another client is not held by this one's guesses; this one, an hour on, has room again.
    expect((await guess(`${network()}.${octet()}`, admin.account.email, code as string)).status).toBe(200);
    deps.clock.advance(HOUR);
    expect((await guess(client, admin.account.email, wrong(9))).body.reason).toBe("code_invalid");
  });

  it("are held to the network's budget, three clients' worth, however many clients it has", async () => {
    const { account } = await accountWithPerson({ projects: ["status"] }, deps.store);
    const block = network();
    const answers: number[] = [];
    for (let client = 1; client <= 4; client++)
      for (let i = 0; i < PER_CLIENT; i++)
        answers.push((await guess(`${block}.${client}`, account.email, wrong(client * 10 + i))).status);
    expect(answers.filter((s) => s === 400)).toHaveLength(3 * PER_CLIENT);
    expect(answers.slice(3 * PER_CLIENT)).toEqual([429, 429, 429]);
    expect(await counted(account.email)).toBe(3 * PER_CLIENT);
    // A client in another network guesses on.
    expect((await guess(`${network()}.${octet()}`, account.email, wrong(99))).status).toBe(400);
  });
});
