/**
 * What each request costs in Firestore operations, counted by a stand-in of this test's own
 * (GET /emulator/v1/operations), and in calls to the identity provider, counted at our Identity
 * interface. A change that adds a read to a hot path fails here.
 */
import type { ChildProcess } from "node:child_process";
import type { Firestore } from "firebase-admin/firestore";
import request from "supertest";
import type { Identity, MailQueue } from "../../src/core/ports";
import { cryptoRandom } from "../../src/random";
import { createHmac } from "node:crypto";
import * as bridge from "../../src/routes/bridge/bridge";
import * as claims from "../../src/routes/claims/claims";
import * as otp from "../../src/routes/otp/otp";
import * as sessions from "../../src/routes/sessions/sessions";
import * as startpage from "../../src/routes/startpage/startpage";
import { signedUp } from "../support/auth";
import { allTasksIdle } from "../support/task-queue";
import { appFor, testConfig, testDeps, type TestDeps } from "../support/deps";
import { startFederatedProvider } from "../support/federated-provider";
import { startGamingProvider } from "../support/gaming-provider";
import { federatedConfig } from "../../src/config/config";
import { codeFor } from "../support/inbox";
import { newBrowser, passkeyWorld } from "../support/passkeys";
import { accountWithPerson, cookieFrom } from "../support/people";
import { firestoreAt, freePort, startStandIn, stopped } from "../support/own-firestore";

interface Operations {
  documentReads: number;
  queries: number;
  lookups: number;
  commits: number;
  writes: number;
  transactions: number;
}

let standIn: ChildProcess;
let port: number;
let store: Firestore;

beforeAll(async () => {
  port = await freePort();
  standIn = await startStandIn(port);
  store = firestoreAt(`127.0.0.1:${port}`);
});
afterAll(async () => {
  await store.terminate();
  await stopped(standIn);
});

async function counted<T>(work: () => Promise<T>): Promise<Operations> {
  // What earlier requests woke the drainer for runs apart in production: not this request's.
  await allTasksIdle();
  await fetch(`http://127.0.0.1:${port}/emulator/v1/operations`, { method: "DELETE" });
  await work();
  return (await (await fetch(`http://127.0.0.1:${port}/emulator/v1/operations`)).json()) as Operations;
}

/** Our Identity interface with every call to the provider counted; calls still go through. */
function countingIdentity(identity: Identity): { identity: Identity; calls: () => number } {
  let calls = 0;
  const counted = Object.fromEntries(
    Object.entries(identity).map(([name, fn]) => [
      name,
      (...args: unknown[]) => {
        calls++;
        return (fn as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as unknown as Identity;
  return { identity: counted, calls: () => calls };
}

/**
 * The drainer, woken by a request that queues mail or makes a new pending person (the reviewers'
 * digest), runs apart from it in production (a Cloud Tasks wake costs no Firestore operation):
 * here it is not woken, so its reads are not counted as the request's.
 */
const apart: MailQueue = { wake: async () => {} };

function depsOnCountedStore(mailQueue?: MailQueue): TestDeps & { providerCalls: () => number } {
  const base = testDeps({ store, ...(mailQueue ? { mailQueue } : {}) });
  const { identity, calls } = countingIdentity(base.identity);
  return { ...base, identity, providerCalls: calls };
}

/** A person in the counted store, approved for startpage, and a session cookie for them. */
async function signedInHere(deps: TestDeps): Promise<string> {
  const { account } = await accountWithPerson({ projects: ["startpage"] }, store);
  const res = await request(appFor(sessions, deps))
    .post("/auth/verify")
    .send({ idToken: account.idToken, project: "startpage" });
  return cookieFrom(res.headers["set-cookie"]) as string;
}

describe("Firestore operations per request", () => {
  // The account's and the address's claims, and the address's invitation (core/arrival/arrival).
  it("POST /auth/verify for a new person: at most 3 reads and 1 commit", async () => {
    const deps = depsOnCountedStore(apart);
    const account = await signedUp();
    const ops = await counted(() =>
      request(appFor(sessions, deps)).post("/auth/verify").send({ idToken: account.idToken, project: "startpage" }),
    );
    expect(ops.documentReads).toBeLessThanOrEqual(3);
    expect(ops.commits).toBe(1);
  });

  it("POST /auth/verify for a known person from a known browser: 1 read and 1 write (the session's record)", async () => {
    const deps = depsOnCountedStore();
    const { account } = await accountWithPerson({ projects: ["startpage"] }, store);
    // The identifier the identity host's page keeps for its browser (site/src/shared/browser-id.ts).
    const browser = cryptoRandom.token(32);
    const verify = () =>
      request(appFor(sessions, deps))
        .post("/auth/verify")
        .send({ idToken: account.idToken, project: "startpage", browser });
    // The first browser is learned (by the drainer, apart) without a notice.
    expect((await verify()).body.approved).toBe(true);
    await allTasksIdle();
    const ops = await counted(() => verify());
    expect(ops.documentReads).toBe(1);
    expect(ops.commits).toBe(1);
  });

  it("POST /auth/verify from a browser not seen before: the notice adds 1 write (its outbox entry), and nothing else", async () => {
    const deps = depsOnCountedStore(apart);
    const { account, person } = await accountWithPerson({ projects: ["startpage"] }, store);
    await store
      .collection("people")
      .doc(person.id)
      .update({ knownBrowsers: { elsewhere: deps.clock.now() } });
    const ops = await counted(() =>
      request(appFor(sessions, deps)).post("/auth/verify").send({ idToken: account.idToken, project: "startpage" }),
    );
    // The person (1 read); the session's record and the notice. Its place among the person's
    // notices is decided by the drainer, apart.
    expect(ops).toMatchObject({ documentReads: 1, lookups: 0, commits: 2, writes: 2, transactions: 0 });
  });

  it("POST /auth/session/refresh: 1 read and the session seen (1 write) on a cold instance, nothing once warm, no provider call", async () => {
    const deps = depsOnCountedStore();
    const cookie = await signedInHere(deps);
    // A fresh instance: same keys and provider, an empty person cache.
    const app = appFor(
      sessions,
      testDeps({ store, identity: deps.identity, tokens: deps.tokens, config: deps.config }),
    );
    const before = deps.providerCalls();
    const cold = await counted(() => request(app).post("/auth/session/refresh").set("Cookie", cookie).expect(200));
    const warm = await counted(() => request(app).post("/auth/session/refresh").set("Cookie", cookie).expect(200));
    // The session's "last seen", written once per ten minutes per instance (core/sessions/active-sessions).
    expect(cold).toMatchObject({ documentReads: 1, commits: 1 });
    expect(warm).toMatchObject({ documentReads: 0, commits: 0 });
    expect(deps.providerCalls()).toBe(before);
  });

  it("a gated GET: the gate reads nothing once the person is cached, and calls no provider", async () => {
    const deps = depsOnCountedStore();
    const cookie = await signedInHere(deps);
    const app = appFor(startpage, deps);
    const before = deps.providerCalls();
    await request(app).get("/startpage/notifications").set("Cookie", cookie).expect(200);
    const warm = await counted(() => request(app).get("/startpage/notifications").set("Cookie", cookie).expect(200));
    // What is left is the endpoint's own content: the notifications query and the read state.
    expect(warm).toMatchObject({ queries: 1, lookups: 1, commits: 0 });
    expect(deps.providerCalls()).toBe(before);
  });
});

describe("Firestore operations of email codes", () => {
  it("POST /auth/otp/send that is delivered: the send's own record, then one transaction; no document another send writes", async () => {
    const deps = depsOnCountedStore(apart);
    const { person } = await accountWithPerson({ projects: ["startpage"] }, store);
    const ops = await counted(() =>
      request(appFor(otp, deps)).post("/auth/otp/send").send({ email: person.emails[0] }).expect(200),
    );
    // Reads, each one document by id or one count: who holds the address, its invitation and its
    // limits; the service's minute, and the sends of where it came from and where it went (the two
    // queries, far from every budget's limit); its limits again in the transaction. Writes: the
    // send's record in the ledger, its claim of the address's minute, then the address's limits,
    // its code and the outbox record, each the address's or the send's own. A send that gains a
    // read or a query fails here.
    expect(ops).toMatchObject({ transactions: 1, commits: 3, writes: 5, queries: 2, documentReads: 6 });
  });

  it("POST /auth/otp/sign-in for a person with an account: one transaction, one commit", async () => {
    const deps = depsOnCountedStore();
    const { person } = await accountWithPerson({ projects: ["startpage"] }, store);
    const email = person.emails[0] as string;
    const app = appFor(otp, deps);
    await request(app).post("/auth/otp/send").send({ email }).expect(200);
    const code = await codeFor(email);
    const ops = await counted(() => request(app).post("/auth/otp/sign-in").send({ email, otp: code }).expect(200));
    expect(ops).toMatchObject({ transactions: 1, commits: 1 });
  });
});

describe("Firestore operations of a passkey sign-in", () => {
  it("options: one write (the challenge); verify: one transaction reading the challenge, the passkey and its person", async () => {
    const w = passkeyWorld(depsOnCountedStore());
    const { authenticator } = await w.withPasskey();
    const browser = newBrowser();
    let options: Record<string, unknown> = {};
    const offered = await counted(async () => (options = await w.signInOptions(browser)));
    expect(offered).toMatchObject({ documentReads: 0, transactions: 0, commits: 1, writes: 1 });
    const verified = await counted(async () =>
      expect((await w.verify(browser, authenticator.get(options as never))).status).toBe(200),
    );
    expect(verified).toMatchObject({ documentReads: 3, queries: 0, transactions: 1, commits: 1, writes: 2 });
  });
});

describe("Firestore operations of a bridge sign-in", () => {
  it("start: one write; callback: one transaction for the state, then the person (one read when known)", async () => {
    const provider = await startGamingProvider();
    try {
      const base = testDeps({ store, mailQueue: apart, config: testConfig({ gamingEndpoint: provider.endpoint }) });
      const app = appFor(bridge, base);
      const account = `7656119${String(cryptoRandom.int(0, 1e9)).padStart(10, "0")}`;
      const signIn = async () => {
        let started: request.Response | undefined;
        const start = await counted(
          async () => (started = await request(app).get("/auth/bridge/gaming/start").expect(302)),
        );
        const cookie = (started?.headers["set-cookie"] as unknown as string[])[0]?.split(";")[0] as string;
        const back = new URL(
          (await fetch(`${started?.headers.location}&account=${account}`, { redirect: "manual" })).headers.get(
            "location",
          ) as string,
        );
        const callback = await counted(() =>
          request(app)
            .get(back.pathname + back.search)
            .set("Cookie", cookie)
            .expect(302),
        );
        return { start, callback };
      };
      const first = await signIn();
      expect(first.start).toMatchObject({ documentReads: 0, transactions: 0, commits: 1, writes: 1 });
      // The state's transaction (its read and commit); then the person: a lookup by account that
      // finds nobody, and one transaction that checks the account's claim and commits the new
      // person with it.
      expect(first.callback).toMatchObject({ documentReads: 2, commits: 2 });
      const again = await signIn();
      expect(again.callback).toMatchObject({ transactions: 1, commits: 1, documentReads: 2 });
    } finally {
      await provider.stop();
    }
  });
});

describe("Firestore operations of a federated sign-in", () => {
  it("start: one write; callback: one transaction for the state, then the person (one read when known)", async () => {
    const provider = await startFederatedProvider();
    try {
      const federated = federatedConfig(
        JSON.stringify({ search: { issuer: provider.issuer, clientId: provider.clientId, providerId: "google.com" } }),
        JSON.stringify({ search: provider.clientSecret }),
        "ops-api-key",
      );
      const app = appFor(bridge, testDeps({ store, mailQueue: apart, config: testConfig({ federated }) }));
      const sub = String(cryptoRandom.int(1, 2e9));
      const signIn = async () => {
        let started: request.Response | undefined;
        const start = await counted(
          async () => (started = await request(app).get("/auth/bridge/federated/start?idp=search").expect(302)),
        );
        const cookie = (started?.headers["set-cookie"] as unknown as string[])[0]?.split(";")[0] as string;
        const back = new URL(
          (
            await fetch(`${started?.headers.location}&account=${sub}&email=ops-${sub}@example.test`, {
              redirect: "manual",
            })
          ).headers.get("location") as string,
        );
        const callback = await counted(() =>
          request(app)
            .get(back.pathname + back.search)
            .set("Cookie", cookie)
            .expect(302),
        );
        return { start, callback };
      };
      const first = await signIn();
      expect(first.start).toMatchObject({ documentReads: 0, transactions: 0, commits: 1, writes: 1 });
      // The state's transaction; then the person: a lookup by account that finds nobody, and one
      // transaction that checks the address's and the account's claims and the address's
      // invitation, and commits the new person.
      expect(first.callback).toMatchObject({ transactions: 2, commits: 2, documentReads: 4 });
      const again = await signIn();
      expect(again.callback).toMatchObject({ transactions: 1, commits: 1, documentReads: 2 });
    } finally {
      await provider.stop();
    }
  });
});

describe("Firestore operations of the claims callback", () => {
  it("one query for an account a person holds, a second only for a verified address; no write, no provider call", async () => {
    const deps = depsOnCountedStore();
    const { account } = await accountWithPerson({}, store);
    const ask = (fields: Record<string, unknown>) => {
      const body = JSON.stringify(fields);
      const t = Math.floor(deps.clock.now().getTime() / 1000);
      const v1 = createHmac("sha256", deps.config.idpSigningSecret).update(`${t}.${body}`).digest("hex");
      return request(appFor(claims, deps))
        .post("/auth/idp/claims")
        .set("Content-Type", "application/json")
        .set("Idp-Signature", `t=${t},v1=${v1}`)
        .send(body)
        .expect(200);
    };
    expect(await counted(() => ask({ uid: account.uid }))).toMatchObject({
      queries: 1,
      documentReads: 1,
      commits: 0,
      transactions: 0,
    });
    expect(
      await counted(() => ask({ uid: "nobody-holds-this", email: "nobody@example.test", emailVerified: true })),
    ).toMatchObject({ queries: 2, commits: 0 });
    expect(deps.providerCalls()).toBe(0);
  });
});
