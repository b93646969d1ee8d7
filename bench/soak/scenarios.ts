/**
 * What a virtual user does, each step a real request as a browser or app would send it. Weights
 * lean on the hot paths (refresh, gated reads) and still reach every write the invariants judge:
 * first sign-ins, email codes with wrong and right guesses, exchange redemptions, OIDC
 * authorization codes redeemed at the token endpoint, bridge sign-ins through the gaming and
 * federated providers, the identity provider's claims callback, several of them fired concurrently at one
 * code or account on purpose.
 */
import { bridgeStateCookie, idTokenFor, mailedCode, NO_ANSWER_MS, sessionCookie, type Exchange } from "./client.ts";
import type { FixturePerson } from "./fixture.ts";
import type { CodeTrace, LoadContext } from "./context.ts";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { BENCH_IDP_SIGNING_SECRET } from "../lib/service-deps.ts";
import { auth, issueExchangeCode, SOAK_CLIENT, within } from "./store.ts";

export interface User {
  index: number;
  /** The client network its requests come from (X-Forwarded-For). */
  network: string;
  own: FixturePerson[];
  /** ID tokens by uid, with when they were got: verify takes only a sign-in of the last 5 minutes. */
  tokens: Map<string, { token: string; at: number }>;
  cookies: Map<string, string>;
  /** When each owned address last got a 200 from send (ms since start). */
  lastSent: Map<string, number>;
  /** Counter for the addresses and accounts this user makes up. */
  made: number;
  /** Account numbers this user has signed in with at a bridge's provider (gaming or federated). */
  bridgeAccounts: string[];
}

const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)] as T;
const chance = (p: number) => Math.random() < p;
const otherThan = (code: string, n: number) => String((Number(code) + n + 1) % 1_000_000).padStart(6, "0");

/** Inside the service's five minutes for a recent sign-in, with room for a slow step. */
const FRESH_SIGN_IN_MS = 4 * 60_000;

async function idToken(ctx: LoadContext, user: User, p: FixturePerson): Promise<string> {
  const known = user.tokens.get(p.uid);
  if (known && ctx.recorder.now() - known.at < FRESH_SIGN_IN_MS) return known.token;
  const token = await idTokenFor(ctx.recorder, ctx.authHost, { email: p.email, password: p.password });
  user.tokens.set(p.uid, { token, at: ctx.recorder.now() });
  return token;
}

async function verify(ctx: LoadContext, user: User, uid: string, token: string, note?: string): Promise<void> {
  const res = await ctx.recorder.call("POST", "/auth/verify", {
    body: { idToken: token, project: "startpage" },
    key: uid,
    note,
  });
  const cookie = sessionCookie(res.setCookie);
  if (res.status === 200 && res.body?.approved === true && cookie) user.cookies.set(uid, cookie);
}

async function signIn(ctx: LoadContext, user: User): Promise<void> {
  const p = pick(user.own);
  await verify(ctx, user, p.uid, await idToken(ctx, user, p));
}

async function refresh(ctx: LoadContext, user: User): Promise<void> {
  const p = pick(user.own);
  if (!user.cookies.has(p.uid) && p.status === "approved") await verify(ctx, user, p.uid, await idToken(ctx, user, p));
  const cookie = user.cookies.get(p.uid);
  await ctx.recorder.call("POST", "/auth/session/refresh", { headers: cookie ? { cookie } : {} });
}

async function gatedRead(ctx: LoadContext, user: User): Promise<void> {
  const p = pick(user.own);
  const cookie = user.cookies.get(p.uid);
  const headers: Record<string, string> =
    cookie && chance(0.7) ? { cookie } : { authorization: `Bearer ${await idToken(ctx, user, p)}` };
  await ctx.recorder.call("GET", "/startpage/notifications?limit=5", { headers });
}

/** A first sign-in of a new account, sometimes from several tabs at once: one pending person. */
async function firstSignIn(ctx: LoadContext, user: User): Promise<void> {
  const email = `soak-new-${user.index}-${user.made++}@example.test`;
  const password = `pw-${email}`;
  const created = await within(
    10_000,
    auth().createUser({ email, password, emailVerified: true, displayName: "New Person" }),
  );
  const token = await idTokenFor(ctx.recorder, ctx.authHost, { email, password });
  const tabs = chance(0.35) ? 3 : 1;
  await Promise.all(
    Array.from({ length: tabs }, () => verify(ctx, user, (created as { uid: string }).uid, token, "first sign-in")),
  );
}

/**
 * How long the load waits for a code in the inbox: the mail leaves through the outbox, and one
 * queued while the mail server was down goes on a retry after it is back (15 s, then 45 s later).
 */
const MAIL_WAIT_MS = 120_000;

/** The code mailed to `address` by a send answered at `sentAt`, recorded for the invariants. */
async function codeMailedTo(ctx: LoadContext, address: string, sentAt: number): Promise<string> {
  const epoch = ctx.epoch();
  const code = await mailedCode(ctx.recorder, ctx.mailUrl, address, MAIL_WAIT_MS);
  const arrivedAt = code === null ? null : ctx.recorder.now();
  ctx.mailWaits.push({ address, sentAt, epoch, endEpoch: ctx.epoch(), arrivedAt });
  if (code === null) throw new Error("a sent code never reached the inbox");
  return code;
}

/** The send's exchange when it was answered 200, else null. */
async function send(ctx: LoadContext, user: User, address: string, purpose?: string): Promise<Exchange | null> {
  const res = await ctx.recorder.call("POST", "/auth/otp/send", {
    body: purpose ? { email: address, purpose } : { email: address },
    key: address,
    note: purpose ?? "signin",
    network: user.network,
  });
  return res.status === 200 ? res.exchange : null;
}

/** Wrong guesses (some fired together), then the right code: checked, and spent by sign-in, sometimes twice at once. */
async function emailCodeSignIn(ctx: LoadContext, user: User): Promise<void> {
  // Mostly an address free to send again; sometimes one inside its minute, to meet the limit.
  const byAge = [...user.own].sort(
    (a, b) => (user.lastSent.get(a.email) ?? -1e9) - (user.lastSent.get(b.email) ?? -1e9),
  );
  const p = chance(0.15)
    ? pick(user.own)
    : (byAge[Math.floor(Math.random() * Math.min(3, byAge.length))] as FixturePerson);
  const address = p.email;
  const sent = await send(ctx, user, address);
  if (sent === null) return;
  user.lastSent.set(address, ctx.recorder.now());
  const code = await codeMailedTo(ctx, address, ctx.recorder.now());
  const trace: CodeTrace = { address, epoch: ctx.epoch(), sent, wrong: [], right: [] };
  ctx.codes.push(trace);
  const wrong = pick([0, 0, 1, 2, 3, 5, 7]);
  const guess = (n: number) =>
    ctx.recorder.call("POST", "/auth/otp/verify", {
      body: { email: address, otp: otherThan(code, n) },
      key: address,
      note: "wrong",
    });
  const guesses =
    wrong >= 5 && chance(0.5)
      ? await Promise.all(Array.from({ length: wrong }, (_, n) => guess(n)))
      : await sequential(wrong, guess);
  trace.wrong.push(...guesses.map((g) => g.exchange));
  if (chance(0.5))
    trace.right.push(
      (
        await ctx.recorder.call("POST", "/auth/otp/verify", {
          body: { email: address, otp: code },
          key: address,
          note: "right",
        })
      ).exchange,
    );
  const tabs = chance(0.3) ? 2 : 1;
  const signIns = await Promise.all(
    Array.from({ length: tabs }, () =>
      ctx.recorder.call("POST", "/auth/otp/sign-in", {
        body: { email: address, otp: code },
        key: address,
        note: "right",
      }),
    ),
  );
  trace.right.push(...signIns.map((s) => s.exchange));
  const won = signIns.find((s) => s.status === 200 && typeof s.body?.customToken === "string");
  if (won && chance(0.4))
    await verify(ctx, user, p.uid, await idTokenFor(ctx.recorder, ctx.authHost, { customToken: won.body.customToken }));
}

async function sequential<T>(count: number, step: (n: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let n = 0; n < count; n++) out.push(await step(n));
  return out;
}

/** A sign-in code for an address nobody holds: answered like any other, then a guess at it. */
async function strangerCode(ctx: LoadContext, user: User): Promise<void> {
  const address = `soak-stranger-${user.index}-${user.made++}@example.test`;
  if ((await send(ctx, user, address)) === null) return;
  await ctx.recorder.call("POST", "/auth/otp/verify", {
    body: { email: address, otp: "000000" },
    key: address,
    note: "stranger guess",
  });
}

/** A stranger confirms an address for an access request, from two tabs at once: one pending person. */
async function requestAccess(ctx: LoadContext, user: User): Promise<void> {
  const address = `soak-request-${user.index}-${user.made++}@example.test`;
  const sent = await send(ctx, user, address, "request-access");
  if (sent === null) return;
  const code = await codeMailedTo(ctx, address, ctx.recorder.now());
  const body = { email: address, otp: code, purpose: "request-access" };
  const checks = await Promise.all(
    [0, 1].map(() => ctx.recorder.call("POST", "/auth/otp/verify", { body, key: address, note: "request-access" })),
  );
  ctx.codes.push({ address, epoch: ctx.epoch(), sent, wrong: [], right: checks.map((c) => c.exchange) });
}

/** A code issued for one of the user's people, redeemed once or by several requests at once. */
async function exchange(ctx: LoadContext, user: User): Promise<void> {
  const p = pick(user.own);
  ctx.recorder.helpers.harnessFirestore++;
  const code = await within(5000, issueExchangeCode(p.personId, p.uid));
  const trace = { code, status: p.status, epoch: ctx.epoch(), answers: [] as CodeTrace["wrong"] };
  ctx.exchanges.push(trace);
  const redeem = () => ctx.recorder.call("POST", "/auth/exchange", { body: { code }, key: code });
  const together = pick([1, 1, 1, 2, 2, 3]);
  trace.answers.push(...(await Promise.all(Array.from({ length: together }, redeem))).map((r) => r.exchange));
  if (chance(0.2)) trace.answers.push((await redeem()).exchange);
}

/**
 * A relying party signs the person in through the OIDC provider: authorise with the session
 * cookie, then the app's server redeems the code, sometimes from several requests at once (and
 * once with a wrong verifier), sometimes again later; then userinfo with the token it got.
 */
async function oidcSignIn(ctx: LoadContext, user: User): Promise<void> {
  const p = pick(user.own.filter((o) => o.status === "approved"));
  if (!p) return;
  if (!user.cookies.has(p.uid)) await verify(ctx, user, p.uid, await idToken(ctx, user, p));
  const cookie = user.cookies.get(p.uid);
  if (!cookie) return;
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    client_id: SOAK_CLIENT.clientId,
    redirect_uri: SOAK_CLIENT.redirectUri,
    response_type: "code",
    scope: "openid email",
    state: "soak",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  });
  const authorized = await ctx.recorder.call("GET", `/auth/oidc/authorize?${query}`, { headers: { cookie } });
  const code = authorized.location ? new URL(authorized.location).searchParams.get("code") : null;
  if (authorized.status !== 302 || code === null) return;
  const trace = { code, status: p.status, epoch: ctx.epoch(), answers: [] as CodeTrace["wrong"] };
  ctx.authorizations.push(trace);
  const basic = `Basic ${Buffer.from(`${SOAK_CLIENT.clientId}:${SOAK_CLIENT.clientSecret}`).toString("base64")}`;
  const redeem = (codeVerifier: string, note?: string) =>
    ctx.recorder.call("POST", "/auth/oidc/token", {
      form: {
        grant_type: "authorization_code",
        code,
        redirect_uri: SOAK_CLIENT.redirectUri,
        code_verifier: codeVerifier,
      },
      headers: { authorization: basic },
      key: code,
      note,
    });
  const together = pick([1, 1, 1, 2, 3]);
  const attempts = Array.from({ length: together }, () => redeem(verifier));
  if (chance(0.2)) attempts.push(redeem(randomBytes(32).toString("base64url"), "wrong verifier"));
  const answers = await Promise.all(attempts);
  if (chance(0.15)) answers.push(await redeem(verifier));
  trace.answers.push(...answers.filter((a) => a.exchange.note !== "wrong verifier").map((a) => a.exchange));
  const won = answers.find((a) => a.status === 200 && typeof a.body?.access_token === "string");
  if (won && chance(0.5))
    await ctx.recorder.call("GET", "/auth/oidc/userinfo", {
      headers: { authorization: `Bearer ${won.body.access_token}` },
    });
}

/** One browser through a bridge: start, the provider's page, the callback (sometimes twice at once). */
async function bridgeFlow(
  ctx: LoadContext,
  user: User,
  bridge: "gaming" | "federated",
  account: string,
): Promise<void> {
  const started = await ctx.recorder.call(
    "GET",
    bridge === "gaming" ? "/auth/bridge/gaming/start" : "/auth/bridge/federated/start?idp=search",
  );
  const cookie = bridgeStateCookie(started.setCookie);
  if (started.status !== 302 || !started.location || !cookie) return;
  ctx.recorder.helpers.bridgeProvider++;
  const who =
    bridge === "gaming"
      ? `&account=${account}`
      : `&account=${account}&email=${account}@soak.example.test&name=Soak%20${account}`;
  const atProvider = await fetch(`${started.location}${who}`, {
    redirect: "manual",
    signal: AbortSignal.timeout(NO_ANSWER_MS),
  });
  await atProvider.arrayBuffer();
  const back = atProvider.headers.get("location");
  if (atProvider.status !== 302 || !back) throw new Error("the bridge provider did not send the browser back");
  const to = new URL(back);
  const state = to.searchParams.get("state") as string;
  const trace = { code: state, status: "pending", epoch: ctx.epoch(), answers: [] as CodeTrace["wrong"] };
  ctx.bridges.push(trace);
  const callback = () => ctx.recorder.call("GET", to.pathname + to.search, { headers: { cookie }, key: state });
  const answers = await Promise.all(Array.from({ length: chance(0.2) ? 2 : 1 }, callback));
  trace.answers.push(...answers.map((a) => a.exchange));
  const won = answers.find((a) => a.status === 302 && a.location);
  const customToken = won?.location ? new URL(won.location).searchParams.get("customToken") : null;
  // The identity host's next step: the custom token becomes an ID token, and verify says "pending".
  if (bridge === "gaming" && customToken && chance(0.3))
    await verify(
      ctx,
      user,
      `gaming:${account}`,
      await idTokenFor(ctx.recorder, ctx.authHost, { customToken }),
      "bridge",
    );
}

/**
 * Sign-in through a bridge (gaming, or the federated bridge's OpenID Connect provider) with a new
 * account or one signed in before, sometimes from two tabs at once (one person for the account,
 * whatever the order).
 */
async function bridgeSignIn(ctx: LoadContext, user: User): Promise<void> {
  const bridge = chance(0.5) ? "gaming" : "federated";
  const known = user.bridgeAccounts.length > 0 && chance(0.5);
  const account = known
    ? pick(user.bridgeAccounts)
    : `7656119${String(user.index).padStart(3, "0")}${String(user.made++).padStart(7, "0")}`;
  if (!known) user.bridgeAccounts.push(account);
  await Promise.all(Array.from({ length: chance(0.2) ? 2 : 1 }, () => bridgeFlow(ctx, user, bridge, account)));
}

/**
 * Logout, then the same cookie replayed at once (as a copy of it would be): refresh and a gated
 * read must both refuse it. Sometimes a logout with no cookie at all, which is simply ok.
 */
async function logout(ctx: LoadContext, user: User): Promise<void> {
  const p = pick(user.own.filter((o) => user.cookies.has(o.uid)));
  const cookie = p ? user.cookies.get(p.uid) : undefined;
  if (!p || !cookie || chance(0.2)) {
    await ctx.recorder.call("POST", "/auth/logout");
    return;
  }
  const out = await ctx.recorder.call("POST", "/auth/logout", { headers: { cookie }, note: "logout" });
  if (out.status !== 200) return;
  user.cookies.delete(p.uid);
  const replays = [
    await ctx.recorder.call("POST", "/auth/session/refresh", { headers: { cookie }, note: "replay" }),
    await ctx.recorder.call("GET", "/startpage/notifications?limit=5", { headers: { cookie }, note: "replay" }),
  ];
  ctx.logouts.push({ logout: out.exchange, replays: replays.map((r) => r.exchange) });
}

/**
 * The identity provider asking for an account's claims, signed as it signs them; now and then a
 * request signed with a secret the service does not have, which must get nothing.
 */
async function claimsCallback(ctx: LoadContext, user: User): Promise<void> {
  const p = pick(user.own);
  const forged = chance(0.1);
  const body = { uid: p.uid };
  const t = Math.floor((performance.timeOrigin + performance.now()) / 1000);
  const v1 = createHmac("sha256", forged ? "not-the-secret" : BENCH_IDP_SIGNING_SECRET)
    .update(`${t}.${JSON.stringify(body)}`)
    .digest("hex");
  const res = await ctx.recorder.call("POST", "/auth/idp/claims", {
    body,
    headers: { "idp-signature": `t=${t},v1=${v1}` },
  });
  const claims = res.body?.claims as Record<string, unknown> | undefined;
  let outcome: "person" | "none" | "wrong" | null = null;
  if (res.status === 200) {
    if (claims && Object.keys(claims).length === 0) outcome = "none";
    else
      outcome =
        claims?.["urn:identity:personId"] === p.personId && claims?.["urn:identity:status"] === p.status
          ? "person"
          : "wrong";
  }
  ctx.claims.push({ answer: res.exchange, forged, outcome });
}

export const scenarios: Array<{ name: string; weight: number; run: (ctx: LoadContext, user: User) => Promise<void> }> =
  [
    { name: "refresh", weight: 22, run: refresh },
    { name: "gated read", weight: 22, run: gatedRead },
    { name: "sign-in", weight: 10, run: signIn },
    { name: "first sign-in", weight: 3, run: firstSignIn },
    { name: "email-code sign-in", weight: 12, run: emailCodeSignIn },
    { name: "stranger code", weight: 6, run: strangerCode },
    { name: "access request", weight: 3, run: requestAccess },
    { name: "exchange", weight: 18, run: exchange },
    { name: "OIDC sign-in", weight: 8, run: oidcSignIn },
    { name: "bridge sign-in", weight: 6, run: bridgeSignIn },
    { name: "logout and replay", weight: 4, run: logout },
    { name: "claims callback", weight: 4, run: claimsCallback },
  ];
