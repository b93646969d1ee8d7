/**
 * Proves: a request carrying two `__session` cookies is refused, whichever comes first. A sibling
 * subdomain can plant its own cookie on the parent domain (cookie tossing) and have it read before
 * the person's; so two are no session at all, at the session endpoints and at the gate alike. The
 * bridge's state value under the same name (its own path) is not a second session.
 */
import request from "supertest";
import * as sessions from "../../src/routes/sessions/sessions";
import * as startpage from "../../src/routes/startpage/startpage";
import { appFor, testDeps } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";

const deps = testDeps();
const app = appFor(sessions, deps);
const refresh = (cookie: string) => request(app).post("/auth/session/refresh").set("Cookie", cookie);
const value = (cookie: string) => cookie.slice("__session=".length);

describe("two __session cookies", () => {
  it("answers 401 at refresh, whichever comes first (cookie tossing)", async () => {
    const victim = await accountWithPerson({ projects: ["startpage"] });
    const attacker = await accountWithPerson({ projects: ["startpage"] });
    const victimCookie = value(await sessionCookieFor(deps, victim.account.uid, victim.person.id));
    const attackerCookie = value(await sessionCookieFor(deps, attacker.account.uid, attacker.person.id));
    for (const pair of [
      `__session=${attackerCookie}; __session=${victimCookie}`,
      `__session=${victimCookie}; __session=${victimCookie}`,
    ]) {
      const res = await refresh(pair);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ authenticated: false });
    }
    // The bridge's state value under the same name (path /auth/bridge) is not a second session.
    expect((await refresh(`__session=bridge.abc; __session=${victimCookie}`)).status).toBe(200);
  });

  it("answers 401 at a gated endpoint, where one alone is let through", async () => {
    const victim = await accountWithPerson({ projects: ["startpage"] });
    const attacker = await accountWithPerson({ projects: ["startpage"] });
    const victimCookie = value(await sessionCookieFor(deps, victim.account.uid, victim.person.id));
    const attackerCookie = value(await sessionCookieFor(deps, attacker.account.uid, attacker.person.id));
    const gated = (cookie: string) =>
      request(appFor(startpage, deps)).get("/startpage/notifications").set("Cookie", cookie);
    expect((await gated(`__session=${victimCookie}`)).status).toBe(200);
    const tossed = await gated(`__session=${attackerCookie}; __session=${victimCookie}`);
    expect(tossed.status).toBe(401);
    expect(tossed.body).toEqual({ error: "Unauthorized" });
  });
});
