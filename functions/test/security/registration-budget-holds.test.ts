/**
 * The registration budgets (docs/endpoints/oidc.md): at most so many clients register themselves
 * in a clock hour from one network (an IPv4 /24, an IPv6 /48 whichever /64 in it asks), and from
 * everyone, however many registrations race; the refused are 429 with Retry-After in the OAuth
 * shape, and store nothing. Forwarded entries past the trusted hops buy no new network.
 */
import request from "supertest";
import { HOUR } from "../../src/clock";
import * as oidc from "../../src/routes/oidc/oidc";
import { appFor, firestore, testConfig, testDeps, registrationSettings } from "../support/deps";
import { manualClock } from "../support/fakes";

const REDIRECT = "https://notes.example.test/callback";

// A racer answered 503 at the request deadline leaves its transaction running; the file ends once
// every operation of its client has, so none lands in the next file's environment.
afterAll(() => firestore().terminate());

/** A deps of its own per test, each in an hour of its own, so no test's counts reach another's. */
function world(
  hour: number,
  budgets: { perNetworkHour: number; perEdgeHour: number; perServiceHour: number },
  hops = 1,
) {
  const clock = manualClock(new Date(Date.UTC(2031, 0, 1, hour, 30)));
  const deps = testDeps({
    clock,
    config: testConfig({ oidcRegistration: registrationSettings("open", budgets), clientAddressHops: hops }),
  });
  return { deps, app: appFor(oidc, deps), clock };
}

function register(app: ReturnType<typeof appFor>, forwardedFor: string, name: string) {
  return request(app)
    .post("/auth/oidc/register")
    .set("Content-Type", "application/json")
    .set("X-Forwarded-For", forwardedFor)
    .send(JSON.stringify({ client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }));
}

/** The self-registered clients stored under `name`: what the budget let through, whatever the answers said. */
async function stored(name: string) {
  const snap = await firestore().collection("oidcClients").where("name", "==", name).get();
  return snap.size;
}

function expectRefusedInShape(res: request.Response) {
  expect(res.body).toEqual({ error: "temporarily_unavailable", error_description: expect.any(String) });
  expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
}

describe("the registration budgets", () => {
  it("let at most the network's bound through when more race at once, from every /64 of one /48", async () => {
    const { app } = world(1, { perNetworkHour: 4, perEdgeHour: 1000, perServiceHour: 1000 });
    const name = "Race 48";
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => register(app, `2001:db8:7:${i.toString(16)}::1`, name)),
    );
    const won = answers.filter((a) => a.status === 201);
    expect(won.length).toBeLessThanOrEqual(4);
    expect(won.length).toBeGreaterThan(0);
    // A racer is refused by the bound (429) or, where Firestore's contention on the one counter
    // outlasted its retries, answered 503: either way with Retry-After, never stored. That the bound
    // itself answers 429 is the next test's, asked one at a time.
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect([429, 503]).toContain(a.status);
      expect(Number(a.headers["retry-after"])).toBeGreaterThan(0);
      if (a.status === 429) expectRefusedInShape(a);
    }
    expect(await stored(name)).toBe(won.length);
  });

  it("count an IPv4 /24 as one network, and give room again in the next hour", async () => {
    const { app, clock } = world(3, { perNetworkHour: 3, perEdgeHour: 1000, perServiceHour: 1000 });
    const name = "Seq 24";
    for (let i = 1; i <= 3; i++) expect((await register(app, `198.51.100.${i}`, name)).status).toBe(201);
    const refused = await register(app, "198.51.100.200", name);
    expect(refused.status).toBe(429);
    expectRefusedInShape(refused);
    // Retry-After is the hour's end: half an hour from the clock's :30.
    expect(Number(refused.headers["retry-after"])).toBe(30 * 60);
    // Another network is its own.
    expect((await register(app, "203.0.113.9", name)).status).toBe(201);
    clock.advance(HOUR / 2);
    expect((await register(app, "198.51.100.7", name)).status).toBe(201);
    expect(await stored(name)).toBe(5);
  });

  it("let at most the service's bound through from many networks racing", async () => {
    const { app } = world(5, { perNetworkHour: 1000, perEdgeHour: 1000, perServiceHour: 5 });
    const name = "Race all";
    const answers = await Promise.all(Array.from({ length: 14 }, (_, i) => register(app, `192.0.${i}.1`, name)));
    const won = answers.filter((a) => a.status === 201).length;
    expect(won).toBeLessThanOrEqual(5);
    expect(won).toBeGreaterThan(0);
    expect(await stored(name)).toBe(won);
  });

  it("count a caller that writes its own forwarded entries at the edge that reached the platform", async () => {
    // Two trusted hops: the entry the front end appended is the caller's, whatever it wrote before it.
    const { app } = world(7, { perNetworkHour: 1000, perEdgeHour: 2, perServiceHour: 1000 }, 2);
    const name = "Forged";
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await register(app, `10.${i}.0.1, 198.18.0.5`, name));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 429, 429]);
    expect(await stored(name)).toBe(2);
  });
});
