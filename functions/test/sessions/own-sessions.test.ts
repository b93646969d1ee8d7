/** A person's own sessions: GET /auth/sessions, DELETE /auth/sessions/:sessionId, POST /auth/sessions/end-others. */
import request from "supertest";
import { MINUTE } from "../../src/clock";
import { PERSON_CACHE_TTL_MS } from "../../src/core/people/person-cache";
import * as sessions from "../../src/routes/sessions/sessions";
import * as startpage from "../../src/routes/startpage/startpage";
import { signInWithCustomToken } from "../support/auth";
import { appFor, auth, firestore, ID_URL, testDeps, type TestDeps } from "../support/deps";
import { accountWithPerson, cookieFrom } from "../support/people";

const db = firestore();
const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 19_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/19.0 Mobile/15E148 Safari/604.1";

/** A browser signed in as the account: a session opened through POST /auth/verify, as the pages open one. */
async function browser(deps: TestDeps, uid: string, userAgent: string): Promise<string> {
  const idToken = await signInWithCustomToken(await auth().createCustomToken(uid, { sign_in_methods: ["otp"] }));
  const res = await request(appFor(sessions, deps))
    .post("/auth/verify")
    .set("User-Agent", userAgent)
    .send({ idToken, project: "startpage" });
  expect(res.status).toBe(200);
  return cookieFrom(res.headers["set-cookie"]) as string;
}

describe("a person's own sessions", () => {
  const deps = testDeps();
  const app = appFor(sessions, deps);
  const list = (cookie: string) => request(app).get("/auth/sessions").set("Cookie", cookie);
  const refresh = (cookie: string, on = app) => request(on).post("/auth/session/refresh").set("Cookie", cookie);

  it("lists every browser signed in, how and when, naming this one", async () => {
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const laptop = await browser(deps, account.uid, FIREFOX_LINUX);
    const phone = await browser(deps, account.uid, SAFARI_IPHONE);
    const res = await list(laptop);
    expect(res.status).toBe(200);
    expect(res.body.sessions).toHaveLength(2);
    const [mine] = res.body.sessions.filter((s: { current: boolean }) => s.current);
    expect(mine).toMatchObject({ browser: "Firefox", system: "Linux", methods: ["otp"] });
    expect(res.body.sessions.find((s: { current: boolean }) => !s.current)).toMatchObject({
      browser: "Safari",
      system: "iOS",
      current: false,
    });
    expect((await list(phone)).body.sessions.find((s: { current: boolean }) => s.current).browser).toBe("Safari");
  });

  it("ends another browser's session: it is refused at its next request, here and on another instance", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const laptop = await browser(deps, account.uid, FIREFOX_LINUX);
    const phone = await browser(deps, account.uid, SAFARI_IPHONE);
    const elsewhere = testDeps();
    const otherInstance = appFor(startpage, elsewhere);
    expect((await request(otherInstance).get("/startpage/notifications").set("Cookie", phone)).status).toBe(200);

    const phoneSession = (await list(laptop)).body.sessions.find((s: { current: boolean }) => !s.current);
    const ended = await request(app)
      .delete(`/auth/sessions/${phoneSession.sessionId}`)
      .set("Origin", ID_URL)
      .set("Cookie", laptop);
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ ended: 1 });
    expect(ended.headers["set-cookie"]).toBeUndefined();
    expect((await refresh(phone)).status).toBe(401);
    expect((await refresh(laptop)).status).toBe(200);
    expect((await list(laptop)).body.sessions).toHaveLength(1);
    // Another instance sees it once its copy of the person lapses, as after a logout.
    elsewhere.clock.advance(PERSON_CACHE_TTL_MS);
    expect((await request(otherInstance).get("/startpage/notifications").set("Cookie", phone)).status).toBe(401);
    expect(Object.keys((await db.collection("people").doc(person.id).get()).get("endedSessions"))).toEqual([
      phoneSession.sessionId,
    ]);
  });

  it("signs out everywhere else, keeping this browser signed in", async () => {
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const here = await browser(deps, account.uid, FIREFOX_LINUX);
    const others = [await browser(deps, account.uid, SAFARI_IPHONE), await browser(deps, account.uid, "")];
    const res = await request(app).post("/auth/sessions/end-others").set("Origin", ID_URL).set("Cookie", here);
    expect(res.body).toEqual({ ended: 2 });
    for (const other of others) expect((await refresh(other)).status).toBe(401);
    expect((await refresh(here)).status).toBe(200);
    expect((await list(here)).body.sessions.map((s: { current: boolean }) => s.current)).toEqual([true]);
  });

  it("signs out everywhere else a client that kept an ID token of an earlier sign-in, and keeps this browser", async () => {
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const here = await browser(deps, account.uid, FIREFOX_LINUX);
    // A client of its own (a script, an app) that signed in and kept its ID token as a bearer credential.
    const kept = await signInWithCustomToken(await auth().createCustomToken(account.uid, { sign_in_methods: ["otp"] }));
    const gated = (credential: Record<string, string>) =>
      request(appFor(startpage, deps)).get("/startpage/notifications").set(credential);
    expect((await gated({ Authorization: `Bearer ${kept}` })).status).toBe(200);
    // A second after that sign-in (the identity provider's clock names it, to the second): it is earlier.
    const signedInAt = (
      JSON.parse(Buffer.from(kept.split(".")[1] as string, "base64url").toString("utf8")) as {
        auth_time: number;
      }
    ).auth_time;
    deps.clock.set(new Date(Math.max(deps.clock.now().getTime(), (signedInAt + 1) * 1000)));
    const res = await request(app).post("/auth/sessions/end-others").set("Origin", ID_URL).set("Cookie", here);
    expect(res.status).toBe(200);
    expect((await gated({ Authorization: `Bearer ${kept}` })).status).toBe(401);
    // Nor does that sign-in open a session, and this browser's stays.
    const reopened = await request(app).post("/auth/verify").send({ idToken: kept, project: "startpage" });
    expect(reopened.status).toBe(401);
    expect((await gated({ Cookie: here })).status).toBe(200);
  });

  it("ends this browser's own session as a sign-out, clearing its cookie", async () => {
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const here = await browser(deps, account.uid, FIREFOX_LINUX);
    const [mine] = (await list(here)).body.sessions;
    const res = await request(app).delete(`/auth/sessions/${mine.sessionId}`).set("Origin", ID_URL).set("Cookie", here);
    expect(res.body).toEqual({ ended: 1 });
    expect(res.headers["set-cookie"]?.[0]).toMatch(/^__session=; Domain=example\.test; Path=\//);
    expect((await refresh(here)).status).toBe(401);
  });

  it("refuses to end a session that is not the person's own, and ends nothing", async () => {
    const { account: a } = await accountWithPerson({ projects: ["startpage"] });
    const { account: b } = await accountWithPerson({ projects: ["startpage"] });
    const mine = await browser(deps, a.uid, FIREFOX_LINUX);
    const theirs = await browser(deps, b.uid, SAFARI_IPHONE);
    const [theirSession] = (await list(theirs)).body.sessions;
    const res = await request(app)
      .delete(`/auth/sessions/${theirSession.sessionId}`)
      .set("Origin", ID_URL)
      .set("Cookie", mine);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Session not found" });
    expect((await refresh(theirs)).status).toBe(200);
  });

  it("refuses a foreign page (origin rule) and a browser with no session", async () => {
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const here = await browser(deps, account.uid, FIREFOX_LINUX);
    const foreign = await request(app)
      .post("/auth/sessions/end-others")
      .set("Origin", "https://evil.test")
      .set("Cookie", here);
    expect(foreign.status).toBe(403);
    expect((await request(app).get("/auth/sessions")).status).toBe(401);
  });

  it("says roughly when each session was last seen: written at most every ten minutes", async () => {
    const clocked = testDeps();
    const clockedApp = appFor(sessions, clocked);
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const cookie = await browser(clocked, account.uid, FIREFOX_LINUX);
    const seen = async () => (await request(clockedApp).get("/auth/sessions").set("Cookie", cookie)).body.sessions[0];
    const opened = (await seen()).lastSeenAt;
    clocked.clock.advance(5 * MINUTE);
    await refresh(cookie, clockedApp);
    expect((await seen()).lastSeenAt).toBe(opened);
    clocked.clock.advance(6 * MINUTE);
    await refresh(cookie, clockedApp);
    expect((await seen()).lastSeenAt).toBe(clocked.clock.now().toISOString());
  });
});
