/**
 * The gate's steps timed in process, on the core it is pinned to: each step of a gated request of
 * a person already cached and a token verified before, called in a loop, against a fresh copy of
 * the cookie header each call (a request's header is a new string, whose hash no map has seen).
 * Prints `steps <json>` (µs per call by step), then `ready`.
 * env: SESSION_KEYS, BENCH_TOKEN, FIRESTORE_EMULATOR_HOST, GCLOUD_PROJECT.
 */
import { service } from "../lib/functions.ts";
import { quietServiceDeps } from "../lib/mail-task.ts";

const { requireAccess } = service<any>("http/gate");
const { readSessionCookie } = service<any>("http/cookies");
const { readSession, personFor, signInEnded } = service<any>("core/sessions/sessions");
const { ensureAccess } = service<any>("core/people/access");
const { noteSeen } = service<any>("core/sessions/active-sessions");

const deps = quietServiceDeps();
const token = process.env.BENCH_TOKEN as string;
const bytes = Buffer.from(`__session=${token}`);
/** A new string with the header's content, as the parser makes for each request. */
const header = (): string => bytes.toString("latin1");
const value = (): string => bytes.toString("latin1", "__session=".length);
const request = () => ({ headers: { cookie: header() }, method: "GET", path: "/bench/gated" });
const NEED = { project: "startpage" };

// The first request reads the person and notes the session, as on a fresh instance; then all is cached.
await requireAccess(deps, request(), NEED);
const principal = await readSession(deps, token);
const person = await personFor(deps, principal);

const CALLS = 200_000;
async function perCall(step: () => unknown): Promise<number> {
  for (let i = 0; i < CALLS / 10; i++) await step();
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) await step();
  return ((performance.now() - t0) * 1000) / CALLS;
}

const copy = await perCall(header);
const steps = {
  whole: (await perCall(() => requireAccess(deps, request(), NEED))) - copy,
  cookie: (await perCall(() => readSessionCookie({ headers: { cookie: header() } }))) - copy,
  token: (await perCall(() => deps.tokens.verify(value(), deps.clock.now()))) - copy,
  clock: await perCall(() => deps.clock.now()),
  person: await perCall(() => personFor(deps, principal)),
  rules: await perCall(() => (signInEnded(person, principal), ensureAccess(person, NEED, "gate"))),
  seen: await perCall(() => noteSeen(deps, principal)),
  await: await perCall(() => undefined),
};
console.log(`steps ${JSON.stringify(steps)}`);
console.log("ready");
process.on("SIGTERM", () => process.exit(0));
