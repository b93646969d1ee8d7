/**
 * 9: sends across many networks and domains at rising offered rates, 15 s a step, up to five times
 * the default service budget (50 a second), on a second service beside the first (same emulator,
 * same process) with OTP_SENDS_PER_MINUTE raised to 3000 to match, so that no budget refuses
 * any, a CODE_PEPPER of its own, so that its sends count against its own budgets only, and a
 * project of its own in the emulator, whose store starts empty: Google's emulator reads a
 * collection whole for every query (a count of 30 records took 22 ms beside no other records,
 * 324 ms beside 20,000 that match nothing), where production reads the index's entries only. Within a step requests go out on a schedule, whether or not earlier ones have been
 * answered (at most 400 in flight), so a step offers its rate however slow the answers come; the
 * next step starts once the step's answers are in and its work is done, and none starts after a
 * step in which fewer than half the sends succeeded (the machine is saturated; higher rates only
 * pile up more). Per step: what was offered, sent and answered, the latencies, and how busy the
 * machine's cores were, this process's (the service and the load both) and the emulator's.
 */
import { readdirSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { service } from "../lib/functions.ts";
import { firstUnavailable, now, type Answer } from "./measure.ts";
import { busiestMinute, ledger, serviceKey } from "./ledger.ts";
import { check, count, send, settle, snapshot, summary, type Context, type Result } from "./context.ts";
import { startService, type TransactionCounts } from "./service.ts";

const { systemClock } = service<any>("clock");
const sends = service<any>("store/sends");

export const RATES = [2, 5, 10, 20, 30, 40, 50];
const STEP_MS = 15_000;
const MAX_IN_FLIGHT = 400;
export const RAISED_PER_MINUTE = 3000;

/** Each send from a client and network of its own (a /24 each), to an address on no account; 500 domains. */
const ip = (i: number) => `10.${150 + (i % 50)}.${Math.floor(i / 50) % 256}.9`;
const address = (i: number) => `nobody-${i}@d${i % 500}.rates.example`;

const TICKS_PER_S = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

interface Cpu {
  at: number;
  machineBusy: number;
  machineTotal: number;
  /** This process, µs. */
  self: number;
  /** The Firestore emulator's process group, ticks. */
  firestore: number;
}

function groupTicks(pgid: number): number {
  let ticks = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the command's closing parenthesis, from the third (state) on.
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(f[2]) === pgid) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks;
}

function cpuNow(): Cpu {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] as string).trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const total = fields.reduce((a, b) => a + b, 0);
  const usage = process.cpuUsage();
  const pgid = Number(process.env.CONTENTION_FIRESTORE_PGID ?? 0);
  return {
    at: now(),
    machineBusy: total - idle,
    machineTotal: total,
    self: usage.user + usage.system,
    firestore: pgid > 0 ? groupTicks(pgid) : 0,
  };
}

/** The machine's cores busy (of all), this process's and the emulator's, in cores, between two samples. */
function cpuBetween(a: Cpu, b: Cpu) {
  const seconds = (b.at - a.at) / 1000;
  return {
    machine: (b.machineBusy - a.machineBusy) / Math.max(1, b.machineTotal - a.machineTotal),
    service: (b.self - a.self) / 1e6 / seconds,
    firestore: (b.firestore - a.firestore) / TICKS_PER_S / seconds,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

interface Step {
  rate: number;
  answers: Answer[];
  sentS: number;
  cpu: ReturnType<typeof cpuBetween>;
  before: TransactionCounts;
  after: TransactionCounts;
  maxInFlight: number;
  /** One count of the service's minute as each send makes it, once the step's work is done: its records, and ms (median of 3). */
  minute: { records: number; ms: number };
}

/**
 * What one send's count of the service's minute costs once the step is over and its work done:
 * the sends of the minute that ended with the step, counted as the service counts them.
 */
async function minuteCount(ctx: Context, endedAt: Date): Promise<{ records: number; ms: number }> {
  const { scope, key } = serviceKey(ctx);
  const times: number[] = [];
  let records = 0;
  for (let i = 0; i < 3; i++) {
    const t = now();
    records = (await sends.tally(ctx.svc.store, scope, key, new Date(endedAt.getTime() - 60_000))).sent;
    times.push(now() - t);
  }
  return { records, ms: times.sort((a, b) => a - b)[1] as number };
}

/** One step: `rate` sends a second for STEP_MS, then its answers and its work waited for. */
async function step(ctx: Context, rate: number, first: number): Promise<Step> {
  const start = now();
  const mark = cpuNow();
  const before = snapshot(ctx.svc);
  const pending: Array<Promise<Answer>> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const n = (rate * STEP_MS) / 1000;
  for (let k = 0; k < n; k++) {
    await sleep(start + (k * 1000) / rate - now());
    while (inFlight >= MAX_IN_FLIGHT) await sleep(5);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const i = first + k;
    pending.push(send(ctx, address(i), ip(i)).finally(() => inFlight--));
  }
  const sentS = (now() - start) / 1000 + 1 / rate;
  await sleep(start + STEP_MS - now());
  const cpu = cpuBetween(mark, cpuNow());
  const endedAt = systemClock.now();
  const answers = await Promise.all(pending);
  await settle(ctx.svc);
  const after = snapshot(ctx.svc);
  return { rate, answers, sentS, cpu, before, after, maxInFlight, minute: await minuteCount(ctx, endedAt) };
}

export async function risingRates(ctx: Context): Promise<Result[]> {
  const log = (process.env.CONTENTION_LOG as string).replace(/\.log$/, `-${RAISED_PER_MINUTE}.log`);
  // A pepper of its own too: its sends count against its own service budget, not the first service's.
  // And a project of its own: Google's emulator reads a collection whole for each query, so the
  // other scenarios' records would cost every count here what production's indexes never do.
  const svc = await startService(
    log,
    { OTP_SENDS_PER_MINUTE: String(RAISED_PER_MINUTE), CODE_PEPPER: `rates-1:${randomBytes(24).toString("hex")}` },
    `${process.env.GCLOUD_PROJECT}-rates`,
  );
  const raised: Context = { ...ctx, svc };
  const since = systemClock.now();
  const t = now();
  const steps: Step[] = [];
  for (const rate of RATES) {
    const s = await step(
      raised,
      rate,
      steps.reduce((n, x) => n + x.answers.length, 0),
    );
    steps.push(s);
    if (count(s.answers, 200) < s.answers.length / 2) break;
  }
  const wallMs = now() - t;
  const busiest = busiestMinute(
    (await ledger(raised, new Date(since.getTime() - 60_000), serviceKey(raised))).map((s) => s.at),
  );
  await svc.close();
  for (const [k, n] of Object.entries(svc.logged)) ctx.svc.logged[k] = (ctx.svc.logged[k] ?? 0) + n;
  return steps.map((st, s) => {
    const { answers } = st;
    const ok = count(answers, 200);
    const refused = answers.filter((a) => a.status === 429).length;
    const last = s === steps.length - 1;
    const result = summary(
      {
        id: `9${String.fromCharCode(97 + s)}`,
        title: `rising rates, OTP_SENDS_PER_MINUTE=${RAISED_PER_MINUTE}: offered ${st.rate}/s for ${STEP_MS / 1000} s, each from a network of its own to addresses on no account at 500 domains`,
        expected: `all ${answers.length}, no budget reached`,
      },
      answers,
      ok,
      ok === answers.length,
      st.before,
      st.after,
      [
        check("no budget refusal", refused === 0, `${refused} answered 429`, false),
        ...(last
          ? [check("the raised minute held", busiest <= RAISED_PER_MINUTE, `busiest minute ${busiest} sends`)]
          : []),
      ],
      wallMs,
    );
    const facts = {
      offered: st.rate,
      sent: answers.length / st.sentS,
      machineBusy: st.cpu.machine,
      serviceCores: st.cpu.service,
      firestoreCores: st.cpu.firestore,
      maxInFlight: st.maxInFlight,
      minuteRecords: st.minute.records,
      minuteCountMs: st.minute.ms,
      busiest,
      stepsRun: steps.length,
    };
    return { ...result, first503: firstUnavailable(answers), facts };
  });
}
