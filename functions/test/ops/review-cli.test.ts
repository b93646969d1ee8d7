/**
 * The review loop on the command line, run as the operator runs it (the compiled CLI, a process of
 * its own) against a project of its own on the emulators: the queue, a person's history (every
 * change through the CLI and the API alike), their sessions listed and ended, and the approval's
 * notice sent before the command exits.
 */
import request from "supertest";
import { hostname, userInfo } from "node:os";
import { transactionRunner } from "../../src/store/db";
import * as peopleRoutes from "../../src/routes/people/people";
import * as sessionRoutes from "../../src/routes/sessions/sessions";
import * as startpage from "../../src/routes/startpage/startpage";
import { signedUp, signInWithCustomToken } from "../support/auth";
import { appFor, auth, firestore, testDeps, unique } from "../support/deps";
import { waitForMail } from "../support/inbox";
import { operator, operatorJson as json, freshProject } from "../support/operator-cli";
import { cookieFrom, personFor, sessionCookieFor } from "../support/people";

// The suite's own project is the default app (its accounts, its sign-ins): made before the fresh one's.
firestore();
const project = freshProject();
const { db, env } = project;
const deps = testDeps({ store: db, transaction: transactionRunner(db) });
// The fresh project has no settings file of its own: its mail goes to the stack's dev inbox, as the local stack's does.
const mail = { SMTP_HOST: "127.0.0.1", SMTP_PORT: process.env.STACK_SMTP_PORT as string };
const cli = (args: string[]) => operator(args, { ...env, ...mail });
const cliJson = <T>(args: string[]) => json<T>(args, { ...env, ...mail });
const operatorName = `${userInfo().username}@${hostname()}`;
// A test here starts the CLI up to eight times, each a node process loading it (2 to 5 s on this
// machine, more while the suite's other files run): the budget is the operator CLI test's.
jest.setTimeout(120_000);

describe("the review loop on the command line", () => {
  it("lists who waits, oldest first, with what they proved and their note", async () => {
    const first = await personFor(
      { uid: unique("u"), email: `${unique("q1")}@example.test` },
      { status: "pending", note: "From the <b>lab</b>", origin: { via: "email", address: "x@example.test" } },
      db,
      unique("q"),
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await personFor(
      { uid: unique("u"), email: `${unique("q2")}@example.test` },
      { status: "pending" },
      db,
      unique("q"),
    );
    const queue = await cliJson<{ waiting: number; people: Array<{ id: string; note: string }> }>(["people", "queue"]);
    expect(queue.waiting).toBeGreaterThanOrEqual(2);
    const ids = queue.people.map((p) => p.id);
    expect(ids.indexOf(first.id)).toBeLessThan(ids.indexOf(second.id));
    expect(queue.people.find((p) => p.id === first.id)?.note).toBe("From the <b>lab</b>");
    const text = await cli(["people", "queue"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^\d+ waiting/);
    expect(text.stdout).toContain("the address x@example.test");
  });

  it("shows every change, through the CLI and the API, in the person's history; an approval's notice goes before the command exits", async () => {
    const account = await signedUp();
    const person = await personFor(account, { status: "pending" }, db);
    expect((await cli(["people", "approve", account.email])).code).toBe(0);
    // Sent by the command itself on the local stack, before it exited.
    const [notice] = await waitForMail(account.email);
    expect(notice!.subject).toBe("Your access is approved");
    expect((await cli(["people", "grant", account.email, "startpage"])).code).toBe(0);
    const reviewer = await signedUp();
    const admin = await personFor(reviewer, { role: "admin", projects: ["*"] }, db);
    // The API's clock at the real time, as the CLI's is: the history is in the order things happened.
    // eslint-disable-next-line no-restricted-syntax -- the CLI runs on the real clock
    deps.clock.set(new Date());
    const cookie = await sessionCookieFor(deps, reviewer.uid, admin.id);
    const patched = await request(appFor(peopleRoutes, deps))
      .patch(`/auth/people/${person.id}`)
      .set("Cookie", cookie)
      .send({ groups: ["ops"] });
    expect(patched.status).toBe(200);
    expect((await cli(["people", "revoke", person.id, "startpage", "--yes"])).code).toBe(0);

    const entries = await cliJson<
      Array<{ by: Record<string, unknown>; via: string; changes: Record<string, unknown> }>
    >(["people", "history", account.email]);
    expect(entries.map((e) => [e.via, Object.keys(e.changes)])).toEqual([
      ["cli", ["projects"]],
      ["api", ["groups"]],
      ["cli", ["projects"]],
      ["cli", ["status"]],
    ]);
    expect(entries[0]!.by).toEqual({ kind: "operator", name: operatorName });
    // With how their session began: this one by a test's cookie, which names no method.
    expect(entries[1]!.by).toEqual({ kind: "admin", personId: admin.id, email: reviewer.email, amr: [] });
    const text = await cli(["people", "history", person.id]);
    expect(text.stdout).toContain(`operator ${operatorName}`);
    expect(text.stdout).toContain("status pending -> approved");
  });

  it("lists a person's sessions and ends one, then every one: each is refused at its next request", async () => {
    const account = await signedUp();
    await personFor(account, { projects: ["startpage"] }, db);
    const browser = async () => {
      const idToken = await signInWithCustomToken(
        await auth().createCustomToken(account.uid, { sign_in_methods: ["otp"] }),
      );
      const res = await request(appFor(sessionRoutes, deps))
        .post("/auth/verify")
        .set("User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0")
        .send({ idToken, project: "startpage" });
      return cookieFrom(res.headers["set-cookie"]) as string;
    };
    const cookies = [await browser(), await browser(), await browser()];
    const listed = await cliJson<Array<{ sessionId: string; browser: string; system: string }>>([
      "sessions",
      "list",
      account.email,
    ]);
    expect(listed).toHaveLength(3);
    expect(listed[0]).toMatchObject({ browser: "Firefox", system: "Windows" });
    expect((await cli(["sessions", "list", account.email])).stdout).toContain("Firefox on Windows");

    expect((await cli(["sessions", "end", account.email, listed[0]!.sessionId])).code).toBe(2);
    expect((await cli(["sessions", "end", account.email])).code).toBe(2);
    const one = await cliJson<{ ended: number }>(["sessions", "end", account.email, listed[0]!.sessionId, "--yes"]);
    expect(one).toEqual({ ended: 1, apps: [] });
    // Another instance, which reads the person anew.
    const gate = (cookie: string) =>
      request(appFor(startpage, testDeps({ store: db, transaction: transactionRunner(db) })))
        .get("/startpage/notifications")
        .set("Cookie", cookie);
    expect((await Promise.all(cookies.map(async (c) => (await gate(c)).status))).sort()).toEqual([200, 200, 401]);
    expect(await cliJson<{ ended: number }>(["sessions", "end", account.email, "--all", "--yes"])).toEqual({
      ended: 2,
      apps: [],
    });
    expect((await Promise.all(cookies.map(async (c) => (await gate(c)).status))).sort()).toEqual([401, 401, 401]);
    const history = await cliJson<Array<{ event: string; by: unknown }>>(["people", "history", account.email]);
    expect(history.slice(0, 2).map((e) => e.event)).toEqual(["sessions-ended", "sessions-ended"]);
    expect(history[0]!.by).toEqual({ kind: "operator", name: operatorName });
  });
});
