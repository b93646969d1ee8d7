/**
 * The registration budgets (docs/endpoints/oidc.md: "at most 10 registrations in each clock hour
 * from one network ... 50 through one edge") with the deployed figures and two trusted hops, as
 * behind Hosting. A caller that goes around Hosting and writes its own X-Forwarded-For entry names
 * the network it is counted against: it cannot spend another network's hour (a lock-out of people
 * who never met it), and what it gets from its own address is held by the edge's bound, which it
 * cannot forge (the docs say so: a front end's edge and a caller's own address look alike).
 */
import request from "supertest";
import * as oidc from "../../src/routes/oidc/oidc";
import { REGISTRATION_BUDGETS } from "../../src/core/settings";
import { appFor, testConfig, testDeps, registrationSettings } from "../support/deps";
import { manualClock } from "../support/fakes";

const REDIRECT = "https://notes.example.test/callback";

function world(hour: number) {
  const clock = manualClock(new Date(Date.UTC(2032, 2, 3, hour, 10)));
  const deps = testDeps({
    clock,
    config: testConfig({ oidcRegistration: registrationSettings("open", REGISTRATION_BUDGETS), clientAddressHops: 2 }),
  });
  return appFor(oidc, deps);
}

const register = (app: ReturnType<typeof appFor>, forwardedFor: string) =>
  request(app)
    .post("/auth/oidc/register")
    .set("Content-Type", "application/json")
    .set("X-Forwarded-For", forwardedFor)
    .send(JSON.stringify({ client_name: "Budget", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }));

describe("registration budgets against a caller around the CDN", () => {
  it("a direct caller cannot spend another network's hour", async () => {
    const app = world(4);
    // The attacker (real address 198.18.0.5, appended by the front end) writes the victim's address.
    for (let i = 0; i < REGISTRATION_BUDGETS.perNetworkHour; i++)
      expect((await register(app, `198.51.100.${i + 1}, 198.18.0.5`)).status).toBe(201);
    // Someone at 198.51.100.77 registers through Hosting (its edge 35.190.0.9 appended last).
    const victim = await register(app, "198.51.100.77, 35.190.0.9");
    expect(victim.status).toBe(201);
  });

  it("a direct caller naming a new network each time gets at most its edge's bound", async () => {
    const app = world(6);
    let won = 0;
    for (let i = 0; i < REGISTRATION_BUDGETS.perEdgeHour + 5; i++)
      if ((await register(app, `10.${i}.0.1, 198.18.7.5`)).status === 201) won++;
    expect(won).toBe(REGISTRATION_BUDGETS.perEdgeHour);
  });
});
