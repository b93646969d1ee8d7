/**
 * One emulator's run of the contention bench, in a process of its own (firebase-admin reads the
 * emulators' hosts once): the service in this process on FIRESTORE_EMULATOR_HOST, the people the
 * scenarios act on, an administrator's session, a short warm-up, then each scenario in turn, its
 * results written as JSON to CONTENTION_RESULT.
 * env: as the runner gives it (bench/contention.ts): the emulators' hosts, GCLOUD_PROJECT, every
 * setting, SESSION_KEYS and CODE_PEPPER, CONTENTION_MAIL_URL, CONTENTION_LOG, CONTENTION_SCENARIOS,
 * and CONTENTION_FIRESTORE_PGID (the emulator's process group, whose CPU the rising rates read).
 */
import { writeFileSync } from "node:fs";
import { requireFromFunctions, service } from "../lib/functions.ts";
import { BURSTS, SENDS, sendBurst } from "./bursts.ts";
import { catchAllAttacker, NEIGHBOURS } from "./catch-all.ts";
import { check, settle, type Context, type Result } from "./context.ts";
import { drainRace } from "./drain.ts";
import { earnBackAttacker } from "./earn-back.ts";
import { eventsToApps } from "./events.ts";
import { Inbox } from "./inbox.ts";
import { call, now } from "./measure.ts";
import { mondayMorning, OFFICE } from "./office.ts";
import { APPLICANT_ID, approvalRace, guessRace, RACE_PEOPLE, sendRace, signInRace } from "./races.ts";
import { risingRates } from "./rates.ts";
import { startService, type Service } from "./service.ts";
import { distributedSpray, sprayOneNetwork } from "./sprays.ts";

const people = service<any>("store/people");
const { systemClock } = service<any>("clock");

const ADMIN = { id: "admin", uid: "admin-uid", email: "admin@people.example", password: "admin-password-0" };

interface Seed {
  id: string;
  email: string;
  status: "approved" | "pending";
  role?: "admin";
}

function seedPeople(): Seed[] {
  const list: Seed[] = [
    { id: ADMIN.id, email: ADMIN.email, status: "approved", role: "admin" },
    { id: APPLICANT_ID, email: RACE_PEOPLE.applicant, status: "pending" },
    ...[RACE_PEOPLE.signIn, RACE_PEOPLE.verify, RACE_PEOPLE.send].map((email, i) => ({
      id: `race-${i}`,
      email,
      status: "approved" as const,
    })),
  ];
  for (const b of BURSTS)
    for (let i = 0; i < SENDS; i++) list.push({ id: `burst-${b.id}-${i}`, email: b.address(i), status: "approved" });
  for (let i = 0; i < OFFICE.people; i++)
    list.push({ id: `office-${i}`, email: OFFICE.address(i), status: "approved" });
  for (let i = 0; i < NEIGHBOURS.people; i++)
    list.push({ id: `neighbour-${i}`, email: NEIGHBOURS.address(i), status: "approved" });
  return list;
}

/** People and their key claims through the service's own store code, 100 to a batch. */
async function createPeople(store: any, list: Seed[]): Promise<void> {
  for (let i = 0; i < list.length; i += 100) {
    const batch = store.batch();
    for (const p of list.slice(i, i + 100)) {
      const fields = {
        uids: [p.id === ADMIN.id ? ADMIN.uid : `uid-${p.id}`],
        emails: [p.email],
        phones: [],
        name: "Bench Person",
        role: p.role ?? "user",
        projects: [],
        groups: [],
        status: p.status,
      };
      people.create(store, batch, fields, p.id, systemClock.now());
    }
    await batch.commit();
  }
}

/**
 * The administrator signs in with a password at the Auth emulator and opens a session (POST
 * /auth/verify); then, since the passkey rule (PASSKEY_ROLES, at its default) lets an
 * administrator act only from a passkey's sign-in, the session is given a passkey's methods, as a
 * passkey sign-in would have opened it.
 */
async function adminSession(svc: Service): Promise<string> {
  const base = svc.base;
  const { getAuth } = requireFromFunctions("firebase-admin/auth");
  await getAuth().createUser({ uid: ADMIN.uid, email: ADMIN.email, password: ADMIN.password, emailVerified: true });
  const host = process.env.FIREBASE_AUTH_EMULATOR_HOST;
  const res = await fetch(`http://${host}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=bench`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password, returnSecureToken: true }),
  });
  const { idToken } = (await res.json()) as { idToken: string };
  const verified = await call(base, "POST", "/auth/verify", { body: { idToken, project: "startpage" } });
  const cookie = verified.setCookie.map((c) => /^__session=[^;]+/.exec(c)?.[0]).find((c) => c !== undefined);
  if (verified.body?.approved !== true || cookie === undefined)
    throw new Error(`the administrator did not sign in: ${verified.status} ${JSON.stringify(verified.body)}`);
  const at = systemClock.now();
  const opened = await svc.deps.tokens.verify(cookie.slice("__session=".length), at);
  const day = 24 * 3600 * 1000;
  const { token } = await svc.deps.tokens.issue({ ...opened, authTime: at, amr: ["hwk", "user"] }, at, day);
  return `__session=${token}`;
}

type Scenario = { id: string; run: (ctx: Context) => Promise<Result | Result[]> };

/** A scenario the harness could not carry through (a code that never came, say): reported, not judged. */
function unfinished(id: string, err: unknown): Result {
  const detail = err instanceof Error ? err.message : String(err);
  return {
    id,
    title: "(not finished)",
    requests: 0,
    statuses: {},
    successes: 0,
    expected: "",
    exact: false,
    p50: NaN,
    p99: NaN,
    rate: NaN,
    transactions: { runs: 0, attempts: 0, failed: 0 },
    checks: [check("the scenario ran", false, detail, false)],
    wallMs: 0,
  };
}

// The drain goes first, while nothing else is queued: the service's own mail task stays out of it.
// The events to the apps (11) follow it for the same reason, and leave nothing pending behind them.
// The one-network spray (7) takes a minute and leaves little in the service's minute, so Monday
// morning (6) rarely waits for it to empty; the catch-all and earn-back attackers (10) wait for it,
// and leave their client and network budgets to themselves; the rising rates (9) run on a service and a budget of
// their own while what Monday morning sent leaves the minute the distributed spray (8) starts empty.
const SCENARIOS: Scenario[] = [
  { id: "5", run: drainRace },
  { id: "11", run: eventsToApps },
  { id: "1a", run: signInRace },
  { id: "1b", run: guessRace },
  { id: "2", run: sendRace },
  ...BURSTS.map((b) => ({ id: b.id, run: (ctx: Context) => sendBurst(ctx, b) })),
  { id: "4", run: approvalRace },
  { id: "7", run: sprayOneNetwork },
  { id: "6", run: mondayMorning },
  { id: "10", run: async (ctx: Context) => [...(await catchAllAttacker(ctx)), await earnBackAttacker(ctx)] },
  { id: "9", run: risingRates },
  { id: "8", run: distributedSpray },
];

const svc = await startService(process.env.CONTENTION_LOG as string);
const inbox = new Inbox(process.env.CONTENTION_MAIL_URL as string);
await createPeople(svc.store, seedPeople());
const ctx: Context = { svc, inbox, adminCookie: await adminSession(svc) };

// Warm-up: the JVM compiles its hot paths, the SMTP connection opens.
for (let i = 0; i < 10; i++)
  await call(svc.base, "POST", "/auth/otp/send", {
    body: { email: `warm-${i}@warm.example`, purpose: "request-access" },
    headers: { "x-forwarded-for": `10.250.${i}.9` },
  });
await settle(svc);

const only = (process.env.CONTENTION_SCENARIOS ?? "").split(",").filter((s) => s !== "");
const results: Result[] = [];
for (const scenario of SCENARIOS.filter((s) => only.length === 0 || only.includes(s.id))) {
  const t = now();
  const ran = await scenario.run(ctx).catch((err: unknown) => unfinished(scenario.id, err));
  for (const result of [ran].flat()) {
    results.push(result);
    const bugs = result.checks.filter((c) => !c.ok && c.bug).map((c) => `${c.what} (${c.detail})`);
    console.log(
      `  ${result.id} ${result.title}: ${JSON.stringify(result.statuses)}, p50 ${Math.round(result.p50)} ms, ` +
        `${Math.round((now() - t) / 100) / 10} s${bugs.length ? `; BROKEN: ${bugs.join(", ")}` : ""}`,
    );
  }
}
writeFileSync(process.env.CONTENTION_RESULT as string, JSON.stringify({ results, logged: svc.logged }));
await svc.close();
process.exit(0);
