/**
 * A bridge callback answers with its own page (500, HTML) before the request deadline (8 s),
 * however slow its store: its steps (the state, the provider, the person, the custom token) share
 * what is left of the deadline, so a store that was slow leaves the provider less time rather than
 * letting the deadline answer 503 for it. On a Firestore emulator of the file's own, frozen with
 * SIGSTOP as gate.test.ts does.
 */
import type { ChildProcess } from "node:child_process";
import type { Firestore } from "firebase-admin/firestore";
import request from "supertest";
import { REQUEST_DEADLINE_MS } from "../../src/http/app";
import * as bridge from "../../src/routes/bridge/bridge";
import { cryptoRandom } from "../../src/random";
import { appFor, testConfig, testDeps } from "../support/deps";
import { startGamingProvider, type GamingProvider } from "../support/gaming-provider";
import { firestoreAt, ownFirestore, frozenNow, signal, stopped } from "../support/own-firestore";

let provider: GamingProvider;
let emulator: ChildProcess;
let db: Firestore;

beforeAll(async () => {
  provider = await startGamingProvider();
  const own = await ownFirestore();
  emulator = own.emulator;
  const port = own.port;
  db = firestoreAt(`127.0.0.1:${port}`);
  // A fresh emulator's first write is slow: taken here, not by a test's sign-in start.
  await db.doc("probe/warm").set({ at: 0 });
}, 90_000);
afterAll(async () => {
  await db.terminate();
  await stopped(emulator);
  await provider.stop();
});
afterEach(async () => {
  signal(emulator, "SIGCONT");
  await provider.setMode("normal");
});

const app = () => appFor(bridge, testDeps({ store: db, config: testConfig({ gamingEndpoint: provider.endpoint }) }));

/** Started, and back from the provider: the callback's address and the state cookie to bring to it. */
async function atCallback(served: ReturnType<typeof app>): Promise<{ to: URL; cookie: string }> {
  const started = await request(served).get("/auth/bridge/gaming/start");
  expect(started.status).toBe(302);
  const setCookie = ([] as string[]).concat(started.headers["set-cookie"] ?? []);
  const cookie = (setCookie.find((c) => c.startsWith("__session=bridge.")) as string).split(";")[0] as string;
  const who = String(76561190000000000n + BigInt(cryptoRandom.int(0, 1_000_000_000)));
  const back = await fetch(`${started.headers.location}&account=${who}`, { redirect: "manual" });
  return { to: new URL(back.headers.get("location") as string), cookie };
}

/** The freeze, until `thawAfterMs` (or until the test ends). */
async function freeze(thawAfterMs?: number): Promise<void> {
  signal(emulator, "SIGSTOP");
  await frozenNow(db);
  if (thawAfterMs !== undefined) setTimeout(() => signal(emulator, "SIGCONT"), thawAfterMs);
}

async function timed(req: request.Test): Promise<{ res: request.Response; ms: number }> {
  const began = performance.now();
  const res = await req;
  return { res, ms: performance.now() - began };
}

/** Its own page: the bridge's 500, never the deadline's 503, and before the deadline. */
function expectOwnPage({ res, ms }: { res: request.Response; ms: number }, text: RegExp): void {
  expect(res.status).toBe(500);
  expect(res.headers["content-type"]).toMatch(/^text\/html/);
  expect(res.text).toMatch(text);
  expect(ms).toBeLessThan(REQUEST_DEADLINE_MS);
}

describe("GET /auth/bridge/:provider/callback with a slow store", () => {
  it("answers its own page in time when the store was slow and then the provider hangs", async () => {
    const served = app();
    const { to, cookie } = await atCallback(served);
    await provider.setMode("hang");
    // The state's read and use waits 4 s; the provider's own 5 s after it would pass the deadline.
    await freeze(4000);
    const answer = await timed(request(served).get(`${to.pathname}${to.search}`).set("Cookie", cookie));
    expectOwnPage(answer, /Sign-in failed/);
  }, 90_000);

  it("answers its own page in time when the store does not answer at all", async () => {
    const served = app();
    const { to, cookie } = await atCallback(served);
    await freeze();
    const answer = await timed(request(served).get(`${to.pathname}${to.search}`).set("Cookie", cookie));
    expectOwnPage(answer, /Sign-in failed\. Please try again\./);
  }, 90_000);
});

describe("POST /auth/bridge/:provider/callback with a slow store", () => {
  it("answers its own page in time when the store does not answer at all", async () => {
    const served = app();
    const { to } = await atCallback(served);
    await freeze();
    const answer = await timed(
      request(served)
        .post("/auth/bridge/gaming/callback")
        .type("form")
        .send({ state: to.searchParams.get("state") as string, code: "c" }),
    );
    expectOwnPage(answer, /Sign-in failed\. Please try again\./);
  }, 90_000);
});
