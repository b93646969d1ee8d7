/**
 * A person's own data, through the API: their name, their copy of everything kept about them,
 * and deleting their account; and the same for an administrator on /auth/people. A copy or an
 * erasure asks for a sign-in within the step-up window, of the person and the administrator alike.
 */
import request from "supertest";
import { MINUTE } from "../../src/clock";
import { exportPersonData } from "../../src/core/account/own-data";
import { erasePerson } from "../../src/core/account/erasure";
import { STEP_UP_MS } from "../../src/core/people/acting";
import { personHistory } from "../../src/core/people/history";
import { AppError } from "../../src/core/errors";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import * as people from "../../src/store/people";
import { signedUp } from "../support/auth";
import { APP_ORIGIN, appFor, auth, firestore, ID_URL, testDeps } from "../support/deps";
import { personFor, sessionCookieFor } from "../support/people";
import { type NewPerson, type Person } from "../../src/core/model/person";

const deps = testDeps();
const app = appFor(peopleRoutes, deps);
const sessionsApp = appFor(sessionRoutes, deps);
const db = firestore();

/** A person with an account at the provider, and a session cookie signed in `ago` milliseconds before now. */
async function someone(fields: Partial<NewPerson> = {}) {
  const account = await signedUp({ name: "Ada" });
  const person = await personFor(account, { name: "Ada", ...fields });
  const cookie = async (ago = 0) => {
    deps.clock.advance(-ago);
    const value = await sessionCookieFor(deps, account.uid, person.id, ["otp"]);
    deps.clock.advance(ago);
    return value;
  };
  return { account, person, cookie };
}

/** A fresh session cookie of `person`'s first account. */
const someoneCookie = (person: Person) => sessionCookieFor(deps, person.uids[0] as string, person.id, ["otp"]);

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (err: unknown) => (err instanceof AppError ? err.code : err),
  );

describe("PATCH /auth/account", () => {
  it("renames the signed-in person, as plain text, and records it in their history as their own doing", async () => {
    const { person, cookie } = await someone();
    const res = await request(app)
      .patch("/auth/account")
      .set("Origin", ID_URL)
      .set("Cookie", await cookie(60 * MINUTE))
      .send({ name: "  Ada\tKing  Lovelace " });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ personId: person.id, name: "Ada King Lovelace" });
    expect((await people.findById(db, person.id))?.name).toBe("Ada King Lovelace");
    const entries = await db.collection("personHistory").where("personId", "==", person.id).get();
    expect(entries.docs.map((d) => d.data())).toEqual([
      expect.objectContaining({
        by: { kind: "person" },
        via: "account",
        event: "changed",
        changes: { name: { from: "Ada", to: "Ada King Lovelace" } },
      }),
    ]);
  });

  it.each([
    ["an unknown field", { name: "A", role: "admin" }, "unknown_field"],
    ["a name too long", { name: "x".repeat(201) }, "invalid_person_change"],
    ["no name", {}, "invalid_person_change"],
  ])("refuses %s with 400 in the contract's shape, and changes nothing", async (_, body, reason) => {
    const { person, cookie } = await someone();
    const res = await request(app)
      .patch("/auth/account")
      .set("Origin", ID_URL)
      .set("Cookie", await cookie())
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(expect.any(String));
    if (reason === "unknown_field") expect(res.body.reason).toBe("unknown_field");
    expect((await people.findById(db, person.id))?.name).toBe("Ada");
  });

  it("answers 401 without a session, and 403 from a foreign page", async () => {
    const { cookie } = await someone();
    expect((await request(app).patch("/auth/account").set("Origin", ID_URL).send({ name: "B" })).status).toBe(401);
    const foreign = await request(app)
      .patch("/auth/account")
      .set("Origin", "https://evil.example")
      .set("Cookie", await cookie())
      .send({ name: "B" });
    expect(foreign.status).toBe(403);
  });
});

describe("GET /auth/account/data", () => {
  it("gives the person one JSON file of what is kept about them, their history and accounts included, and records that", async () => {
    const { account, person, cookie } = await someone({ note: "I run the lab", phones: ["+15550100123"] });
    const res = await request(app)
      .get("/auth/account/data")
      .set("Cookie", await cookie(MINUTE));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="account-data-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(res.headers["cache-control"]).toBe("no-store");
    const data = JSON.parse(res.text);
    expect(data).toMatchObject({
      format: "person-data/1",
      person: {
        personId: person.id,
        name: "Ada",
        emails: [account.email],
        phones: ["+15550100123"],
        note: "I run the lab",
      },
      accounts: [expect.objectContaining({ uid: account.uid, email: account.email, displayName: "Ada" })],
      history: [expect.objectContaining({ event: "exported", by: { kind: "person" }, via: "account" })],
    });
    // Never a credential: no password hash, no key, no token.
    expect(res.text).not.toMatch(/passwordHash|publicKey|salt|token"/i);
  });

  it("asks for a fresh sign-in past the step-up window (403 step_up_required), and records nothing", async () => {
    const { person, cookie } = await someone();
    const res = await request(app)
      .get("/auth/account/data")
      .set("Cookie", await cookie(STEP_UP_MS + MINUTE));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.stringMatching(/sign in again/), reason: "step_up_required" });
    expect((await db.collection("personHistory").where("personId", "==", person.id).get()).size).toBe(0);
  });
});

describe("DELETE /auth/account", () => {
  it("erases the person: signed out, their session refused, their address free, their provider account gone", async () => {
    const { account, person, cookie } = await someone();
    const mine = await cookie();
    const elsewhere = await cookie();
    const res = await request(app).delete("/auth/account").set("Origin", ID_URL).set("Cookie", mine);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ erased: true, finished: true, providerSyncErrors: [] });
    expect(String(res.headers["set-cookie"])).toMatch(/__session=;.*Max-Age=0|__session=;.*Expires=Thu, 01 Jan 1970/);
    const refreshed = await request(sessionsApp).post("/auth/session/refresh").set("Cookie", elsewhere);
    expect(refreshed.status).toBe(401);
    expect(await people.findByEmail(db, account.email)).toBeNull();
    expect(
      (
        await db
          .collection("personKeys")
          .doc(`email:${encodeURIComponent(account.email)}`)
          .get()
      ).exists,
    ).toBe(false);
    expect((await auth().getUsers([{ uid: account.uid }])).users).toEqual([]);
    const left = await db.collection("personHistory").where("personId", "==", person.id).get();
    expect(left.docs.map((d) => d.get("event"))).toEqual(["erased"]);
  });

  it("asks for a fresh sign-in past the step-up window, and keeps the person", async () => {
    const { person, cookie } = await someone();
    const res = await request(app)
      .delete("/auth/account")
      .set("Origin", ID_URL)
      .set("Cookie", await cookie(STEP_UP_MS + MINUTE));
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe("step_up_required");
    expect(await people.findById(db, person.id)).not.toBeNull();
  });

  it("is refused from a foreign page", async () => {
    const { person, cookie } = await someone();
    const res = await request(app)
      .delete("/auth/account")
      .set("Origin", "https://evil.example")
      .set("Cookie", await cookie());
    expect(res.status).toBe(403);
    expect(await people.findById(db, person.id)).not.toBeNull();
  });
});

describe("an administrator on /auth/people/:personId", () => {
  async function anAdmin() {
    const admin = await someone({ role: "admin", projects: ["*"] });
    return admin;
  }

  it("takes a person's copy of their data (GET …/data), recorded in the person's history as the administrator's doing", async () => {
    const admin = await anAdmin();
    const { person } = await someone();
    const res = await request(app)
      .get(`/auth/people/${person.id}/data`)
      .set("Cookie", await admin.cookie());
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ person: { personId: person.id } });
    const entries = await db.collection("personHistory").where("personId", "==", person.id).get();
    expect(entries.docs.map((d) => d.data())).toEqual([
      expect.objectContaining({
        event: "exported",
        via: "api",
        by: expect.objectContaining({ personId: admin.person.id }),
      }),
    ]);
    // And in the administrator's own history, naming the person by id.
    const own = await db.collection("personHistory").where("personId", "==", admin.person.id).get();
    expect(own.docs.map((d) => d.data())).toEqual([
      expect.objectContaining({ event: "exported-someone", changes: { person: { from: null, to: person.id } } }),
    ]);
    // The person's own copy names an administrator by role, not by address.
    const mine = await request(app)
      .get("/auth/account/data")
      .set("Cookie", await someoneCookie(person));
    const exports = JSON.parse(mine.text).history.filter((e: { event: string }) => e.event === "exported");
    expect(exports.map((e: { by: unknown }) => e.by)).toEqual(
      expect.arrayContaining([
        { kind: "admin", personId: admin.person.id, email: null, amr: ["otp"] },
        { kind: "person" },
      ]),
    );
  });

  it("deletes a person (DELETE), after a fresh sign-in only; 404 once gone", async () => {
    const admin = await anAdmin();
    const { person } = await someone();
    const stale = await request(app)
      .delete(`/auth/people/${person.id}`)
      .set("Origin", ID_URL)
      .set("Cookie", await admin.cookie(STEP_UP_MS + 1000));
    expect(stale.status).toBe(403);
    expect(stale.body.reason).toBe("step_up_required");
    const res = await request(app)
      .delete(`/auth/people/${person.id}`)
      .set("Origin", ID_URL)
      .set("Cookie", await admin.cookie());
    expect(res.body).toEqual({ erased: true, finished: true, providerSyncErrors: [] });
    const again = await request(app)
      .delete(`/auth/people/${person.id}`)
      .set("Origin", ID_URL)
      .set("Cookie", await admin.cookie());
    expect(again.status).toBe(404);
    const found = await request(app)
      .get("/auth/people")
      .query({ email: person.emails[0] })
      .set("Cookie", await admin.cookie());
    expect(found.body.people).toEqual([]);
  });

  it("answers 404 for an id that names nobody, or cannot name anyone", async () => {
    const admin = await anAdmin();
    for (const id of ["nobody-here", "a%2Fb", "..", "__x__"]) {
      const res = await request(app)
        .delete(`/auth/people/${id}`)
        .set("Origin", ID_URL)
        .set("Cookie", await admin.cookie());
      expect([id, res.status, res.body.error]).toEqual([id, 404, "Person not found"]);
    }
  });

  it("is refused to someone who is not an administrator", async () => {
    const { person, cookie } = await someone();
    const other = await someone();
    expect(
      (
        await request(app)
          .get(`/auth/people/${other.person.id}/data`)
          .set("Cookie", await cookie())
      ).status,
    ).toBe(403);
    const res = await request(app)
      .delete(`/auth/people/${other.person.id}`)
      .set("Origin", ID_URL)
      .set("Cookie", await cookie());
    expect(res.status).toBe(403);
    expect(await people.findById(db, other.person.id)).not.toBeNull();
    expect(await people.findById(db, person.id)).not.toBeNull();
  });
});

describe("the core's own rules", () => {
  it("keeps a person to their own account: a copy or an erasure of someone else is refused", async () => {
    const { person } = await someone();
    const other = await someone();
    const mine = { self: person, signedInAt: deps.clock.now() };
    expect(await refusal(exportPersonData(deps, other.person.id, mine))).toBe("forbidden");
    expect(await refusal(erasePerson(deps, other.person.id, mine))).toBe("forbidden");
    expect(await people.findById(db, other.person.id)).not.toBeNull();
    expect((await personHistory(deps, other.person.id, 50, null)).entries.map((e) => e.event)).not.toContain(
      "exported",
    );
  });

  it("refuses a stale sign-in a copy or an erasure, whoever calls, and an operator needs none", async () => {
    const { person } = await someone();
    const stale = new Date(deps.clock.now().getTime() - STEP_UP_MS - 1);
    expect(await refusal(exportPersonData(deps, person.id, { self: person, signedInAt: stale }))).toBe(
      "step_up_required",
    );
    const { person: administrator } = await someone({ role: "admin", projects: ["*"] });
    const admin = { admin: administrator, signedInAt: stale, amr: ["hwk", "user"], from: "Firefox on Linux" };
    expect(await refusal(erasePerson(deps, person.id, admin))).toBe("step_up_required");
    expect(await people.findById(db, person.id)).not.toBeNull();
    const operator = { operator: { kind: "operator" as const, name: "ops@console" } };
    expect((await exportPersonData(deps, person.id, operator)).person.personId).toBe(person.id);
    expect(await erasePerson(deps, person.id, operator)).toEqual({ finished: true, providerSyncErrors: [], apps: [] });
    expect(await refusal(erasePerson(deps, person.id, operator))).toBe("person_not_found");
  });

  it("finishes an erasure that stopped half-way when asked again", async () => {
    const { account, person } = await someone();
    const operator = { operator: { kind: "operator" as const, name: "ops@console" } };
    // The provider refuses once: the person is gone, the account is not, and the erasure says so.
    const refusing = { ...deps, identity: { ...deps.identity, deleteAccounts: async (uids: string[]) => uids } };
    const first = await erasePerson(refusing, person.id, operator);
    expect(first.finished).toBe(false);
    expect(first.providerSyncErrors).toEqual([
      expect.objectContaining({ uid: account.uid, operation: "delete_account" }),
    ]);
    expect(await people.findById(db, person.id)).toBeNull();
    expect((await auth().getUsers([{ uid: account.uid }])).users).toHaveLength(1);
    expect((await db.collection("erasures").doc(person.id).get()).exists).toBe(true);
    expect(await erasePerson(deps, person.id, operator)).toEqual({ finished: true, providerSyncErrors: [], apps: [] });
    expect((await auth().getUsers([{ uid: account.uid }])).users).toEqual([]);
    expect((await db.collection("erasures").doc(person.id).get()).exists).toBe(false);
  });
});

describe("a person's own account, from an app host", () => {
  it("answers the identity host alone: an app host's script reads nothing of it and deletes nothing", async () => {
    const { person, cookie } = await someone();
    const mine = await cookie();
    const fromApp = await request(app).get("/auth/account/data").set("Origin", APP_ORIGIN).set("Cookie", mine);
    expect(fromApp.headers["access-control-allow-origin"]).toBeUndefined();
    const fromId = await request(app).get("/auth/account/data").set("Origin", ID_URL).set("Cookie", mine);
    expect(fromId.headers["access-control-allow-origin"]).toBe(ID_URL);
    expect(fromId.headers["access-control-allow-credentials"]).toBe("true");
    const erase = await request(app).delete("/auth/account").set("Origin", APP_ORIGIN).set("Cookie", mine);
    expect(erase.status).toBe(403);
    expect(erase.body).toEqual({ error: "Origin not allowed" });
    const ended = await request(sessionsApp)
      .post("/auth/sessions/end-others")
      .set("Origin", APP_ORIGIN)
      .set("Cookie", mine);
    expect(ended.status).toBe(403);
    expect(await people.findById(db, person.id)).not.toBeNull();
    // The contract's endpoints answer the app hosts as before.
    const refresh = await request(sessionsApp)
      .post("/auth/session/refresh")
      .set("Origin", APP_ORIGIN)
      .set("Cookie", mine);
    expect(refresh.status).toBe(200);
    expect(refresh.headers["access-control-allow-origin"]).toBe(APP_ORIGIN);
  });
});
