/**
 * Races on one document: 50 sign-ins with one right code, 50 wrong guesses at one code, 50 sends
 * to one address, and 20 approvals of one person. Each fires its requests in the same tick and
 * then reads what was stored.
 */
import { call, now, race } from "./measure.ts";
import {
  addressId,
  check,
  count,
  docs,
  send,
  settle,
  snapshot,
  summary,
  type Context,
  type Result,
} from "./context.ts";

const WIDTH = 50;
const APPROVALS = 20;

/** People the races act on; created by the runner before they start. */
export const RACE_PEOPLE = {
  signIn: "race-sign-in@people.example",
  verify: "race-verify@people.example",
  send: "race-send@people.example",
  /** Pending, for the approvals. */
  applicant: "applicant@applicants.example",
};
export const APPLICANT_ID = "race-applicant";

async function codeSent(ctx: Context, email: string, ip: string): Promise<string> {
  const sent = await send(ctx, email, ip);
  if (sent.status !== 200) throw new Error(`the code for ${email} was not sent: ${sent.status} ${sent.reason}`);
  return ctx.inbox.codeFor(email, 60_000);
}

/** 1a: 50 sign-ins at once with the one right code; one token, the code spent. */
export async function signInRace(ctx: Context): Promise<Result> {
  const email = RACE_PEOPLE.signIn;
  const otp = await codeSent(ctx, email, "10.11.0.9");
  await settle(ctx.svc);
  const before = snapshot(ctx.svc);
  const t = now();
  const answers = await race(WIDTH, () => call(ctx.svc.base, "POST", "/auth/otp/sign-in", { body: { email, otp } }));
  await settle(ctx.svc);
  const wallMs = now() - t;
  const [code] = await docs(ctx, "emailCodes", [addressId(ctx, email)]);
  const ok = count(answers, 200);
  const tokens = answers.filter((a) => a.status === 200 && typeof a.body?.customToken === "string").length;
  return summary(
    { id: "1a", title: `${WIDTH} sign-ins at once with one right code`, expected: "exactly 1" },
    answers,
    ok,
    ok === 1,
    before,
    snapshot(ctx.svc),
    [
      check("at most one sign-in", ok <= 1, `${ok} answered 200 (${tokens} with a custom token)`),
      check("the code is spent", code === null, code === null ? "gone" : `still stored (${code?.state})`),
    ],
    wallMs,
  );
}

/** 1b: 50 wrong guesses at once at one code: five compared, then the code destroyed. */
export async function guessRace(ctx: Context): Promise<Result> {
  const email = RACE_PEOPLE.verify;
  const right = await codeSent(ctx, email, "10.12.0.9");
  await settle(ctx.svc);
  const wrong = (i: number) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, "0");
  const before = snapshot(ctx.svc);
  const t = now();
  const answers = await race(WIDTH, (i) =>
    call(ctx.svc.base, "POST", "/auth/otp/verify", { body: { email, otp: wrong(i) } }),
  );
  await settle(ctx.svc);
  const wallMs = now() - t;
  const id = addressId(ctx, email);
  const [code, limits] = [...(await docs(ctx, "emailCodes", [id])), ...(await docs(ctx, "emailCodeLimits", [id]))];
  const compared = Number(limits?.failures ?? 0);
  const invalid = answers.filter((a) => a.reason === "code_invalid").length;
  const ok = count(answers, 200);
  // A guess whose transaction never committed was never answered either: it is not counted, and
  // the code lives on until five are.
  const destroyed = code?.state === "exhausted";
  return summary(
    { id: "1b", title: `${WIDTH} wrong codes at once at one code`, expected: "5 compared, then destroyed" },
    answers,
    compared,
    compared === 5 && destroyed,
    before,
    snapshot(ctx.svc),
    [
      check("no wrong code accepted", ok === 0, `${ok} answered 200`),
      check(
        "at most five guesses compared",
        compared <= 5 && invalid <= 4,
        `${compared} stored as compared, ${invalid} answered code_invalid`,
      ),
      check(
        "the code destroyed once five were compared, and only then",
        destroyed === compared >= 5,
        `${compared} compared, the code ${code?.state ?? "gone"}`,
      ),
    ],
    wallMs,
  );
}

/** 2: 50 sends to one address at once, each from a network of its own: one code, one mail. */
export async function sendRace(ctx: Context): Promise<Result> {
  const email = RACE_PEOPLE.send;
  await ctx.inbox.clear();
  const before = snapshot(ctx.svc);
  const t = now();
  const answers = await race(WIDTH, (i) => send(ctx, email, `10.2.${i}.9`));
  await settle(ctx.svc);
  const wallMs = now() - t;
  const [limits] = await docs(ctx, "emailCodeLimits", [addressId(ctx, email)]);
  const sends = Array.isArray(limits?.sends) ? limits.sends.length : 0;
  await ctx.inbox.atLeast(sends, 30_000);
  const mails = (await ctx.inbox.to(email)).length;
  const ok = count(answers, 200);
  return summary(
    { id: "2", title: `${WIDTH} sends to one address at once`, expected: "exactly 1" },
    answers,
    ok,
    ok === 1,
    before,
    snapshot(ctx.svc),
    [
      check("at most one send", ok <= 1 && sends <= 1, `${ok} answered 200, ${sends} sends stored`),
      check("no send answered 200 and lost", sends >= ok, `${sends} stored for ${ok} answered 200`),
      check("one mail per stored send", mails === sends, `${mails} mails for ${sends} sends`, mails > sends),
    ],
    wallMs,
  );
}

/** 4: 20 approvals of one pending person at once by an administrator: one change, one notice, one mail. */
export async function approvalRace(ctx: Context): Promise<Result> {
  const path = `/auth/people/${APPLICANT_ID}`;
  const headers = { cookie: ctx.adminCookie };
  const warm = await call(ctx.svc.base, "GET", path, { headers });
  if (warm.status !== 200)
    throw new Error(`the administrator cannot read the applicant: ${warm.status} ${warm.reason}`);
  await ctx.inbox.clear();
  const before = snapshot(ctx.svc);
  const t = now();
  const answers = await race(APPROVALS, () =>
    call(ctx.svc.base, "PATCH", path, { body: { status: "approved" }, headers }),
  );
  await settle(ctx.svc);
  const wallMs = now() - t;
  const { store } = ctx.svc;
  const history = (await store.collection("personHistory").where("personId", "==", APPLICANT_ID).get()).docs
    .map((d: any) => d.data())
    .filter((e: any) => e.changes?.status !== undefined);
  const notices = (
    await store.collection("outbox").where("about", "==", APPLICANT_ID).where("kind", "==", "approval").get()
  ).docs.length;
  await ctx.inbox.atLeast(notices, 30_000);
  const mails = (await ctx.inbox.to(RACE_PEOPLE.applicant)).length;
  const [person] = await docs(ctx, "people", [APPLICANT_ID]);
  const ok = count(answers, 200);
  return summary(
    { id: "4", title: `${APPROVALS} approvals of one person at once`, expected: `all ${APPROVALS}` },
    answers,
    ok,
    ok === APPROVALS,
    before,
    snapshot(ctx.svc),
    [
      check("approved", person?.status === "approved", `stored status: ${person?.status}`, ok > 0),
      check(
        "one change in the history",
        history.length === 1,
        `${history.length} entries change the status`,
        history.length > 1 || (history.length === 0 && ok > 0),
      ),
      check(
        "one approval notice queued",
        notices === 1,
        `${notices} in the outbox`,
        notices > 1 || (notices === 0 && ok > 0),
      ),
      check("one approval mail", mails === 1, `${mails} delivered`, mails > 1),
    ],
    wallMs,
  );
}
