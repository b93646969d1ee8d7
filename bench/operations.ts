/**
 * Target 3: what each request costs in Firestore operations, counted (not guessed) by the
 * stand-in (`GET /emulator/v1/operations`) around one request at a time, against the service
 * as it runs in the soak (bench/soak/server.ts: real firebase-admin, the Auth emulator, maildev).
 * `functions/test/platform/operations.test.ts` asserts the same bounds, and that the refresh and gated
 * paths make no call to the provider; this script reports the figures.
 *
 *   node bench/operations.ts [--write]   (after `npm run build` in functions/; `npm run bench:operations`
 *                                        builds and writes section 3 of bench/RESULTS.md)
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root, service } from "./lib/functions.ts";
import { sessionKeysJson } from "./lib/keys.ts";
import { BENCH_IDP_SIGNING_SECRET, DISPATCH_DELAY_MS } from "./lib/service-deps.ts";
import { bridgeStateCookie, idTokenFor, mailedCode, Recorder, sessionCookie } from "./soak/client.ts";
import { Environment, PROJECT } from "./soak/environment.ts";
import { assertion, storedPasskey } from "./lib/passkey.ts";
import { auth, connect, createPeople, db, issueExchangeCode, registerSoakClient, SOAK_CLIENT } from "./soak/store.ts";

export interface Operations {
  documentReads: number;
  queries: number;
  lookups: number;
  transactions: number;
  commits: number;
  writes: number;
}

export interface Row {
  request: string;
  ops: Operations;
  status: number;
  target: string;
}

interface Tokens {
  issue(
    c: { uid: string; personId: string; sessionId: string; authTime: Date; amr: string[] },
    now: Date,
    ms: number,
  ): Promise<{ token: string }>;
}

export async function runOperations(): Promise<Row[]> {
  // Only the stand-in counts operations (`GET /emulator/v1/operations`).
  const env = new Environment({ kind: "stand-in", why: "operations are counted by the stand-in" });
  try {
    await env.startAll();
    connect(PROJECT, env.firestoreHost, env.authHost);
    const keys = sessionKeysJson("ops");
    const pepper = `ops-1:${randomBytes(24).toString("hex")}`;
    const { base } = await env.startService({ sessionKeys: keys, codePepper: pepper });

    const client = new Recorder(base, () => env.epoch);
    const opsUrl = `http://127.0.0.1:${env.ports.firestore}/emulator/v1/operations`;
    const rows: Row[] = [];
    /** One request, alone: the counts are reset before it and read once it has been answered. */
    const count = async (request: string, target: string, send: () => Promise<{ status: number }>) => {
      // The mail task a previous request woke runs apart, and has finished by now.
      await new Promise((resolve) => setTimeout(resolve, 4 * DISPATCH_DELAY_MS));
      await fetch(opsUrl, { method: "DELETE" });
      const { status } = await send();
      const ops = (await (await fetch(opsUrl)).json()) as Operations;
      rows.push({ request, ops, status, target });
    };
    const { sessionTokens } = service<{ sessionTokens: (k: string, i: string, a: string) => Tokens }>(
      "core/sessions/session-token",
    );
    const tokens = sessionTokens(keys, "https://id.example.test", "example.test");
    let n = 0;
    /** An approved person with an account, as another instance would have signed them in. */
    const person = async () => {
      const i = n++;
      const p = {
        personId: `ops-person-${i}`,
        uid: `ops-uid-${i}`,
        email: `ops-${i}@example.test`,
        password: `ops-password-${i}`,
        status: "approved" as const,
        projects: ["startpage"],
      };
      await auth().createUser({ uid: p.uid, email: p.email, password: p.password, emailVerified: true });
      await createPeople([p]);
      const now = new Date(performance.timeOrigin + performance.now());
      const { token } = await tokens.issue(
        { uid: p.uid, personId: p.personId, sessionId: p.personId, authTime: now, amr: ["otp"] },
        now,
        14 * 24 * 3600 * 1000,
      );
      return { ...p, cookie: `__session=${token}` };
    };
    const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
      client.call("POST", path, { body, headers });

    await count("POST /auth/logout", "0", () => post("/auth/logout"));

    const stranger = { email: `ops-new-${randomBytes(4).toString("hex")}@example.test`, password: "ops-new-password" };
    await auth().createUser({ ...stranger, emailVerified: true });
    const strangerToken = await idTokenFor(client, env.authHost, stranger);
    await count(
      "POST /auth/verify, a person nobody knows (created pending)",
      "≤ 3 reads (the address's invitation among them) + 1 write (one commit)",
      () => post("/auth/verify", { idToken: strangerToken, project: "startpage" }),
    );

    const known = await person();
    const knownToken = await idTokenFor(client, env.authHost, known);
    let verified: { status: number; setCookie: string[] } = { status: 0, setCookie: [] };
    await count(
      "POST /auth/verify, a known approved person (cookie set)",
      "≤ 2 reads; a first browser remembered: + 1 write (its outbox entry)",
      async () => (verified = await post("/auth/verify", { idToken: knownToken, project: "startpage" })),
    );
    if (!sessionCookie(verified.setCookie)) throw new Error("POST /auth/verify set no cookie for an approved person");
    await count(
      "POST /auth/verify, the same person from a browser not seen before (mailed a notice)",
      "as above + 1 write (the notice's outbox entry); nothing read for it",
      () => post("/auth/verify", { idToken: knownToken, project: "startpage" }),
    );

    const cold = await person();
    await count("POST /auth/session/refresh, person not yet cached on this instance", "≤ 1 read", () =>
      post("/auth/session/refresh", undefined, { cookie: cold.cookie }),
    );
    await count("POST /auth/session/refresh, person cached", "0", () =>
      post("/auth/session/refresh", undefined, { cookie: cold.cookie }),
    );

    const reader = await person();
    await count("GET /startpage/notifications, person not yet cached (gate + page)", "gate ≤ 1 read", () =>
      client.call("GET", "/startpage/notifications", { headers: { cookie: reader.cookie } }),
    );
    await count("GET /startpage/notifications, person cached (the page's own reads only)", "gate 0", () =>
      client.call("GET", "/startpage/notifications", { headers: { cookie: reader.cookie } }),
    );
    await count("POST /auth/project-access", "1 write", () =>
      post("/auth/project-access", { project: "startpage" }, { cookie: reader.cookie }),
    );

    const mailer = await person();
    await count(
      "POST /auth/otp/send, delivered",
      "≤ 2 queries and ≤ 6 reads (9 reads, 6 queries before); the send's record, its claim + 1 transaction; 5 writes",
      () => post("/auth/otp/send", { email: mailer.email }),
    );
    const code = await mailedCode(client, env.mailUrl, mailer.email);
    if (!code) throw new Error("the code never reached the inbox");
    await count("POST /auth/otp/verify, right code", "1 transaction; nothing written (a verify earns nothing)", () =>
      post("/auth/otp/verify", { email: mailer.email, otp: code }),
    );
    await count("POST /auth/otp/sign-in, right code", "1 transaction (its send marked used)", () =>
      post("/auth/otp/sign-in", { email: mailer.email, otp: code }),
    );

    // A passkey sign-in, beside the code's: options (the challenge, and the browser's binding), then verify.
    const keyHolder = await person();
    const passkey = await storedPasskey(db(), keyHolder);
    let offered: { status: number; body: any; setCookie: string[] } = { status: 0, body: null, setCookie: [] };
    await count(
      "POST /auth/passkeys/sign-in/options",
      "1 write (the challenge)",
      async () => (offered = await post("/auth/passkeys/sign-in/options", {})),
    );
    const binding = /^__session=passkey\.[^;]+/.exec(offered.setCookie[0] ?? "")?.[0] ?? "";
    await count("POST /auth/passkeys/sign-in/verify, a registered passkey", "1 transaction", () =>
      post(
        "/auth/passkeys/sign-in/verify",
        { credential: assertion(passkey, offered.body.options) },
        { cookie: binding },
      ),
    );

    const redeemer = await person();
    const exchangeCode = await issueExchangeCode(redeemer.personId, redeemer.uid);
    await count("POST /auth/exchange", "1 transaction", () => post("/auth/exchange", { code: exchangeCode }));

    // OIDC: authorise with a session (the client and the person already cached), then the token;
    // then, for a client registered for refresh tokens, the rest of a grant's life.
    await registerSoakClient();
    await registerSoakClient(true);
    const basicOf = (clientId: string) =>
      `Basic ${Buffer.from(`${clientId}:${SOAK_CLIENT.clientSecret}`).toString("base64")}`;
    const codeFor = async (clientId: string, scope: string, label: string | null) => {
      const signedIn = await person();
      const verifier = randomBytes(32).toString("base64url");
      const authorizeUrl = `/auth/oidc/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: SOAK_CLIENT.redirectUri, response_type: "code", scope, code_challenge: createHash("sha256").update(verifier).digest("base64url"), code_challenge_method: "S256" })}`;
      const authorize = () => client.call("GET", authorizeUrl, { headers: { cookie: signedIn.cookie } });
      await authorize();
      let authorized: { status: number; location: string | null } = { status: 0, location: null };
      if (label === null) authorized = await authorize();
      else
        await count(
          label,
          "1 read (whether the person disconnected the app) + 1 write (the code)",
          async () => (authorized = await authorize()),
        );
      const code = new URL(authorized.location ?? "https://x.invalid/").searchParams.get("code") ?? "";
      const form = {
        grant_type: "authorization_code",
        code,
        redirect_uri: SOAK_CLIENT.redirectUri,
        code_verifier: verifier,
      };
      return { form, authorization: basicOf(clientId) };
    };
    const first = await codeFor(
      SOAK_CLIENT.clientId,
      "openid",
      "GET /auth/oidc/authorize, signed in (client and person cached)",
    );
    await count("POST /auth/oidc/token", "1 transaction", () =>
      client.call("POST", "/auth/oidc/token", { form: first.form, headers: { authorization: first.authorization } }),
    );
    const offline = await codeFor(`${SOAK_CLIENT.clientId}-offline`, "openid offline_access", null);
    const headers = { authorization: offline.authorization };
    const minted = await client.call("POST", "/auth/oidc/token", { form: offline.form, headers });
    let refreshed: { body: any } = { body: null };
    await count("POST /auth/oidc/token, grant_type=refresh_token (rotated)", "1 transaction", async () => {
      const answer = await client.call("POST", "/auth/oidc/token", {
        form: { grant_type: "refresh_token", refresh_token: String(minted.body?.refresh_token) },
        headers,
      });
      refreshed = answer;
      return answer;
    });
    const accessToken = String(refreshed.body?.access_token);
    await count(
      "POST /auth/oidc/introspect, a live access token",
      "2 lookups: the token, then its person and client in one",
      () => client.call("POST", "/auth/oidc/introspect", { form: { token: accessToken }, headers }),
    );
    await count("GET /auth/oidc/userinfo", "2 lookups: the token, then its person and client in one", () =>
      client.call("GET", "/auth/oidc/userinfo", { headers: { authorization: `Bearer ${accessToken}` } }),
    );
    await count("POST /auth/oidc/revoke, a refresh token (its grant ended)", "1 transaction", () =>
      client.call("POST", "/auth/oidc/revoke", {
        form: { token: String(refreshed.body?.refresh_token) },
        headers,
      }),
    );

    // The identity provider's claims callback, signed as the provider signs it.
    const claimsOf = (fields: Record<string, unknown>) => {
      const t = Math.floor((performance.timeOrigin + performance.now()) / 1000);
      const v1 = createHmac("sha256", BENCH_IDP_SIGNING_SECRET)
        .update(`${t}.${JSON.stringify(fields)}`)
        .digest("hex");
      return post("/auth/idp/claims", fields, { "idp-signature": `t=${t},v1=${v1}` });
    };
    const holder = await person();
    await count("POST /auth/idp/claims, an account a person holds", "1 read, no write", () =>
      claimsOf({ uid: holder.uid }),
    );

    // The gaming bridge, through the soak's local OpenID 2.0 provider.
    const bridgeAccount = `7656119${String(randomBytes(5).readUIntBE(0, 5)).padStart(13, "0")}`;
    const bridge = async (label: string, target: string) => {
      let started: { status: number; location: string | null; setCookie: string[] } = {
        status: 0,
        location: null,
        setCookie: [],
      };
      if (label === "new")
        await count(
          "GET /auth/bridge/gaming/start",
          "1 write (the state)",
          async () => (started = await client.call("GET", "/auth/bridge/gaming/start")),
        );
      else started = await client.call("GET", "/auth/bridge/gaming/start");
      const cookie = bridgeStateCookie(started.setCookie) ?? "";
      const back =
        (await fetch(`${started.location}&account=${bridgeAccount}`, { redirect: "manual" })).headers.get("location") ??
        "";
      const to = new URL(back);
      await count(
        `GET /auth/bridge/gaming/callback, ${label === "new" ? "an account nobody knows (person created pending)" : "a known account"}`,
        target,
        () => client.call("GET", to.pathname + to.search, { headers: { cookie } }),
      );
    };
    await bridge("new", "1 transaction (the state); new person: ≤ 2 reads + 1 commit");
    await bridge("known", "1 transaction (the state) + 1 read");

    // The federated bridge, through the soak's local OpenID Connect provider and the Auth emulator.
    const sub = String(randomBytes(4).readUInt32BE(0));
    const federated = async (label: string, target: string) => {
      let started: { status: number; location: string | null; setCookie: string[] } = {
        status: 0,
        location: null,
        setCookie: [],
      };
      if (label === "new")
        await count(
          "GET /auth/bridge/federated/start?idp=search",
          "1 write (the state)",
          async () => (started = await client.call("GET", "/auth/bridge/federated/start?idp=search")),
        );
      else started = await client.call("GET", "/auth/bridge/federated/start?idp=search");
      const cookie = bridgeStateCookie(started.setCookie) ?? "";
      const back =
        (
          await fetch(`${started.location}&account=${sub}&email=ops-${sub}@example.test`, { redirect: "manual" })
        ).headers.get("location") ?? "";
      const to = new URL(back);
      await count(
        `GET /auth/bridge/federated/callback, ${label === "new" ? "an account nobody knows (person created pending)" : "a known account"}`,
        target,
        () => client.call("GET", to.pathname + to.search, { headers: { cookie } }),
      );
    };
    await federated(
      "new",
      "1 transaction (the state); new person: 1 lookup + 1 transaction (≤ 3 reads, the address's invitation among them, + 1 commit)",
    );
    await federated("known", "1 transaction (the state) + 1 read");

    // The reviewers' queue with 1,000 people waiting, a page of 50 at a time, as the review page asks.
    await reviewQueue(count, client, tokens);
    return rows;
  } finally {
    await env.stopAll();
  }
}

/** How many wait in the reviewers' queue, and how many one page shows (the review page's own). */
const WAITING = 1000;
const PAGE = 50;

async function reviewQueue(
  count: (request: string, target: string, send: () => Promise<{ status: number }>) => Promise<void>,
  client: Recorder,
  tokens: Tokens,
): Promise<void> {
  const tag = randomBytes(4).toString("hex");
  const reviewer = {
    personId: `ops-reviewer-${tag}`,
    uid: `ops-reviewer-${tag}`,
    email: `ops-reviewer-${tag}@example.test`,
  };
  await createPeople([{ ...reviewer, status: "approved", projects: ["*"], role: "admin" }]);
  await createPeople(
    Array.from({ length: WAITING }, (_, i) => ({
      personId: `ops-waiting-${tag}-${String(i).padStart(4, "0")}`,
      uid: `ops-waiting-${tag}-${i}`,
      email: `ops-waiting-${tag}-${i}@example.test`,
      status: "pending" as const,
      projects: [],
    })),
  );
  const now = new Date(performance.timeOrigin + performance.now());
  const { token } = await tokens.issue(
    // A passkey sign-in, as the rule asks of administrators (PASSKEY_ROLES): the queue answers it.
    {
      uid: reviewer.uid,
      personId: reviewer.personId,
      sessionId: reviewer.personId,
      authTime: now,
      amr: ["hwk", "user"],
    },
    now,
    14 * 24 * 3600 * 1000,
  );
  const cookie = `__session=${token}`;
  // The reviewer's person is read once, before the pages: the pages' own cost is what is counted.
  await client.call("GET", `/auth/people/queue?limit=1`, { headers: { cookie } });
  let cursor: string | null = null;
  let page = 0;
  do {
    page++;
    const query: string = `limit=${PAGE}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    let answer: { status: number; body: unknown } = { status: 0, body: null };
    const send = async () =>
      (answer = await client.call("GET", `/auth/people/queue?${query}`, { headers: { cookie } }));
    if (page === 1 || page === 10 || page === 20) {
      await count(
        `GET /auth/people/queue, page ${page} (${PAGE} a page, ${WAITING} and more waiting)`,
        `1 query of ${PAGE + 1} documents + 1 count; the passkey rule, 1 read`,
        send,
      );
    } else await send();
    cursor = (answer.body as { next?: string | null } | null)?.next ?? null;
  } while (cursor !== null && page < 100);
}

export function operationsTable(rows: Row[]): string[] {
  return [
    "| Request | Status | Document reads | Queries | Lookups (get / getAll calls) | Transactions | Commits | Writes | Target |",
    "|---|---|---|---|---|---|---|---|---|",
    ...rows.map(
      ({ request, status, ops: o, target }) =>
        `| ${request} | ${status} | ${o.documentReads} | ${o.queries} | ${o.lookups} | ${o.transactions} | ${o.commits} | ${o.writes} | ${target} |`,
    ),
  ];
}

/**
 * Puts a fresh table into section 3 of bench/RESULTS.md, leaving the rest as it is: the figures
 * are counts, not timings, so they need no baseline from the same run.
 */
function writeSection(table: string[]): void {
  const path = join(root, "bench", "RESULTS.md");
  const lines = readFileSync(path, "utf8").split("\n");
  const heading = lines.findIndex((l) => l.startsWith("## 3. "));
  const first = lines.findIndex((l, i) => i > heading && l.startsWith("| Request |"));
  if (heading < 0 || first < 0) throw new Error("bench/RESULTS.md has no section 3 table to replace");
  let last = first;
  while (lines[last + 1]?.startsWith("|")) last++;
  lines.splice(first, last - first + 1, ...table);
  writeFileSync(path, lines.join("\n"));
  console.log("\nsection 3 written to bench/RESULTS.md");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const table = operationsTable(await runOperations());
  for (const line of table) console.log(line);
  if (process.argv.includes("--write")) writeSection(table);
  process.exit(0);
}
