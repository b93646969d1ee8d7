/** The start page's notifications: sent with an API key, listed a page at a time, marked read. */
import request from "supertest";
import { issueApiKey, registerApiKey, revokeApiKey } from "../../src/core/startpage/api-keys";
import { sha256 } from "../../src/core/secrets";
import * as startpage from "../../src/routes/startpage/startpage";
import { appFor, firestore, testDeps, unique } from "../support/deps";
import { accountWithPerson, sessionCookieFor } from "../support/people";

const db = firestore();
const deps = testDeps();
const app = appFor(startpage, deps);

let apiKey: string;
beforeAll(async () => {
  apiKey = (await issueApiKey(deps, "tests")).key;
});

const notify = (body: unknown, key: string | null = apiKey) => {
  const req = request(app).post("/startpage/notify");
  return (key === null ? req : req.set("x-api-key", key)).send(body as object);
};

async function signedInPerson() {
  const { account, person } = await accountWithPerson({ projects: ["startpage"] });
  return { person, cookie: await sessionCookieFor(deps, account.uid, person.id) };
}

describe("POST /startpage/notify", () => {
  it("creates a notification and answers 201 with its id", async () => {
    const res = await notify({
      title: "Maintenance",
      body: "Tonight at ten",
      link: "https://status.example.test/x",
      level: "warning",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String) });
    const stored = await db.collection("notifications").doc(res.body.id).get();
    expect(stored.data()).toMatchObject({
      title: "Maintenance",
      body: "Tonight at ten",
      link: "https://status.example.test/x",
      level: "warning",
      audience: ["*"],
    });
  });

  it.each([
    ["no key", null],
    ["a wrong key", "isk_wrong"],
  ])("answers 401 for %s", async (_label, key) => {
    const res = await notify({ title: "t", body: "b" }, key);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized" });
  });

  it("never accepts a key in the query string", async () => {
    const res = await request(app)
      .post(`/startpage/notify?x-api-key=${apiKey}&key=${apiKey}&api_key=${apiKey}`)
      .send({ title: "t", body: "b" });
    expect(res.status).toBe(401);
  });

  it("refuses a revoked key", async () => {
    const { key, prefix } = await issueApiKey(deps, "short-lived");
    expect((await notify({ title: "t", body: "b" }, key)).status).toBe(201);
    expect(await revokeApiKey(deps, prefix)).toBe(1);
    expect((await notify({ title: "t", body: "b" }, key)).status).toBe(401);
  });

  it("stores keys hashed, with a visible prefix", async () => {
    const key = `op-${unique()}`;
    const { prefix } = await registerApiKey(deps, key, "operator key");
    const stored = await db.collection("apiKeys").doc(sha256(key)).get();
    expect(stored.get("prefix")).toBe(prefix);
    expect(key.startsWith(prefix)).toBe(true);
    expect(JSON.stringify(stored.data())).not.toContain(key);
  });

  it.each([
    [{}],
    [{ title: "t" }],
    [{ title: "", body: "b" }],
    [{ title: "t", body: "b", link: "http://insecure.test" }],
    [{ title: "t", body: "b", level: "loud" }],
    [{ title: "t", body: "b", audience: { personIds: [] } }],
  ])("answers 400 for %j", async (body) => {
    const res = await notify(body);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(["error"]);
  });
});

describe("GET /startpage/notifications", () => {
  it("lists the person's notifications newest first: everyone's and their own, not others'", async () => {
    const { person, cookie } = await signedInPerson();
    const { person: other } = await signedInPerson();
    const mine = (await notify({ title: `mine ${unique()}`, body: "b", audience: { personIds: [person.id] } })).body.id;
    const theirs = (await notify({ title: "theirs", body: "b", audience: { personIds: [other.id] } })).body.id;
    deps.clock.advance(1);
    const all = (await notify({ title: "all", body: "b" })).body.id;
    const res = await request(app).get("/startpage/notifications").query({ limit: 100 }).set("Cookie", cookie);
    expect(res.status).toBe(200);
    const ids = res.body.notifications.map((n: { id: string }) => n.id);
    expect(ids).toContain(mine);
    expect(ids).toContain(all);
    expect(ids).not.toContain(theirs);
    expect(ids.indexOf(all)).toBeLessThan(ids.indexOf(mine));
    expect(res.body.notifications[0]).toEqual({
      id: expect.any(String),
      title: expect.any(String),
      body: "b",
      link: null,
      level: "info",
      createdAt: expect.any(String),
      read: false,
    });
  });

  it("pages with `next` until the last page, losing nothing and repeating nothing", async () => {
    const { person, cookie } = await signedInPerson();
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      created.push((await notify({ title: `n${i}`, body: "b", audience: { personIds: [person.id] } })).body.id);
      deps.clock.advance(1);
    }
    const seen: string[] = [];
    let next: string | null = null;
    do {
      const res: request.Response = await request(app)
        .get("/startpage/notifications")
        .query(next ? { limit: 2, before: next } : { limit: 2 })
        .set("Cookie", cookie);
      seen.push(
        ...res.body.notifications.map((n: { id: string }) => n.id).filter((id: string) => created.includes(id)),
      );
      next = res.body.next;
    } while (next !== null);
    expect(seen).toEqual([...created].reverse());
  });

  it("marks notifications read, one by one or all at once", async () => {
    const { person, cookie } = await signedInPerson();
    const a = (await notify({ title: "a", body: "b", audience: { personIds: [person.id] } })).body.id;
    const b = (await notify({ title: "b", body: "b", audience: { personIds: [person.id] } })).body.id;
    const readOne = await request(app)
      .post("/startpage/notifications/read")
      .set("Cookie", cookie)
      .send({ ids: [a] });
    expect(readOne.body).toEqual({ ok: true });
    const after = await request(app).get("/startpage/notifications").set("Cookie", cookie);
    const state = Object.fromEntries(
      after.body.notifications.map((n: { id: string; read: boolean }) => [n.id, n.read]),
    );
    expect(state[a]).toBe(true);
    expect(state[b]).toBe(false);
    await request(app).post("/startpage/notifications/read").set("Cookie", cookie).send({ all: true });
    const allRead = await request(app).get("/startpage/notifications").set("Cookie", cookie);
    expect(allRead.body.notifications.every((n: { read: boolean }) => n.read)).toBe(true);
  });

  it("answers 400 for a limit out of range", async () => {
    const { cookie } = await signedInPerson();
    const res = await request(app).get("/startpage/notifications").query({ limit: 1000 }).set("Cookie", cookie);
    expect(res.status).toBe(400);
  });
});
