/**
 * The administrators' invitations (`/auth/invitations*`) are ours, not the contract's, and used by
 * the identity host's `/invite` page alone: only that origin is answered with credentials, and a
 * state-changing request from any other, an app host of the family included, is refused before
 * any handler runs. A script injected into an app host, riding an administrator's cookie, can
 * neither read the invitations (every address invited) nor invite, resend or revoke anyone.
 */
import request from "supertest";
import { transactionRunner } from "../../src/store/db";
import * as peopleRoutes from "../../src/routes/people/people";
import * as invitations from "../../src/store/invitations";
import { signedUp } from "../support/auth";
import { APP_ORIGIN, appFor, ID_URL, testDeps, unique } from "../support/deps";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";

const { db } = freshProject();
const deps = testDeps({ store: db, transaction: transactionRunner(db) });
const app = appFor(peopleRoutes, deps);

/** Every origin of the family but the identity host: the apex, `www` and the four app hosts. */
const OTHER_ORIGINS = deps.config.allowedOrigins.filter((o) => o !== ID_URL);

async function administrator(): Promise<string> {
  const account = await signedUp();
  const person = await personFor(account, { role: "admin", projects: ["*"] }, db);
  return sessionCookieFor(deps, account.uid, person.id);
}

const address = () => `${unique("cors")}@example.test`;

describe("/auth/invitations from an origin other than the identity host", () => {
  it("names the six other origins of the family, the app hosts among them", () => {
    expect(OTHER_ORIGINS).toHaveLength(6);
    expect(OTHER_ORIGINS).toContain(APP_ORIGIN);
  });

  it.each(OTHER_ORIGINS)("gives %s no allow-origin header, on a read or a preflight", async (origin) => {
    const cookie = await administrator();
    const listed = await request(app).get("/auth/invitations").set("Origin", origin).set("Cookie", cookie);
    expect(listed.headers["access-control-allow-origin"]).toBeUndefined();
    expect(listed.headers["access-control-allow-credentials"]).toBeUndefined();
    for (const path of ["/auth/invitations", "/auth/invitations/file", "/auth/invitations/inv_x/resend"]) {
      const preflight = await request(app)
        .options(path)
        .set("Origin", origin)
        .set("Access-Control-Request-Method", "POST");
      expect({ path, allow: preflight.headers["access-control-allow-origin"] }).toEqual({ path, allow: undefined });
      expect(preflight.headers["access-control-allow-methods"]).toBeUndefined();
    }
  });

  it("refuses an app host's invitation, file, resend and revocation before any handler runs, and changes nothing", async () => {
    const cookie = await administrator();
    // One invitation made from the identity host, for the resend and the revocation to aim at.
    const standing = address();
    const made = await request(app)
      .post("/auth/invitations")
      .set("Origin", ID_URL)
      .set("Cookie", cookie)
      .send({ address: standing, projects: ["calendar"] });
    expect(made.status).toBe(201);
    const id = made.body.id as string;

    const invited = address();
    const fromApp = (r: request.Test) => r.set("Origin", APP_ORIGIN).set("Cookie", cookie);
    const answers = await Promise.all([
      fromApp(request(app).post("/auth/invitations")).send({ address: invited, projects: ["*"], role: "admin" }),
      fromApp(request(app).post("/auth/invitations/file"))
        .set("Content-Type", "text/csv")
        .send(`address,projects,role\n${invited},*,admin\n`),
      fromApp(request(app).post(`/auth/invitations/${id}/resend`)).send({}),
      fromApp(request(app).delete(`/auth/invitations/${id}`)),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "Origin not allowed" });
      expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    }
    expect(await invitations.findByAddress(db, invited)).toBeNull();
    const kept = await invitations.findByAddress(db, standing);
    expect(kept).toMatchObject({ id, sends: 1 });
  });
});

describe("/auth/invitations from the identity host", () => {
  it("answers with credentials, as the /invite page needs", async () => {
    const cookie = await administrator();
    const preflight = await request(app)
      .options("/auth/invitations/file")
      .set("Origin", ID_URL)
      .set("Access-Control-Request-Method", "POST");
    expect(preflight.headers["access-control-allow-origin"]).toBe(ID_URL);
    expect(preflight.headers["access-control-allow-credentials"]).toBe("true");
    const listed = await request(app).get("/auth/invitations").set("Origin", ID_URL).set("Cookie", cookie);
    expect(listed.status).toBe(200);
    expect(listed.headers["access-control-allow-origin"]).toBe(ID_URL);
    expect(listed.headers["access-control-allow-credentials"]).toBe("true");
  });

  it("leaves the contract's people API answering every origin of the family, as the contract says", async () => {
    const cookie = await administrator();
    const res = await request(app).get("/auth/people").set("Origin", APP_ORIGIN).set("Cookie", cookie);
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(APP_ORIGIN);
  });
});
