/* eslint-disable @typescript-eslint/no-require-imports -- the task queue's client loads with the first wake */
/**
 * How a command wakes the `mail` function for the mail it queued (an approval's notice, a file's
 * invitations), so that the mail goes whether or not anything else happens after the command exits.
 *
 * - A real project: a task on the `mail` function's Cloud Tasks queue, as the functions enqueue
 *   theirs (adapters/mail-queue), its token for the service account the `mail` function runs as.
 * - The local stack: a task on the stack's Cloud Tasks emulator, where the Functions emulator made
 *   the `mail` function's queue for the stack's project: the stack's `mail` function sends the mail
 *   as in production, and the command exits at once.
 * - A `demo-` project the stack's functions do not serve (a test's own project): no `mail` function
 *   there, so the command sends what it queued itself before it exits, for 15 s at most.
 */
import { systemClock } from "../clock";
import { cloudTasksQueue, MAIL_FUNCTION, MAIL_LOCATION } from "../adapters/mail-queue";
import type { MailQueue, TaskEnqueuer } from "../core/ports";
import { errorText, type Logger } from "../logger";
import { accessToken } from "./credentials";
import type { Target } from "./target";

/** What the command waits for before it exits: the mail it sends itself, if any; at most `ms`. */
export interface Wakes extends MailQueue {
  settle(ms: number): Promise<void>;
}

/**
 * Mail sent by this process, before it exits: each wake for now runs one mail round here, after
 * the one before. A wake for later (a retry) is left for the next round of whatever sends it.
 */
function roundsHere(round: () => Promise<unknown>, log: Logger): Wakes {
  let settled: Promise<unknown> = Promise.resolve();
  return {
    async wake(at) {
      if (at !== undefined && at.getTime() > systemClock.now().getTime()) return;
      settled = settled.then(round).catch((err: unknown) => log.error("mail round failed", { error: errorText(err) }));
    },
    async settle(ms) {
      // A round may ask for the next (an event fanned out into its deliveries): each is awaited.
      const until = systemClock.now().getTime() + ms;
      for (let last: unknown = null; last !== settled && systemClock.now().getTime() < until;) {
        last = settled;
        await within(until - systemClock.now().getTime(), settled);
      }
    },
  };
}

/** Waits for `work`, or `ms` at most. */
export async function within(ms: number, work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([work, bound]);
  clearTimeout(timer);
}

/** The `mail` function's queue in the Cloud Tasks emulator at `host`, as the Functions emulator keys it. */
export const emulatedQueueKey = (projectId: string) => `queue:${projectId}-${MAIL_LOCATION}-${MAIL_FUNCTION}`;

/** Whether the Cloud Tasks emulator at `host` holds the `mail` queue of `projectId`: whether a stack's function serves it. */
export async function stackServes(host: string, projectId: string): Promise<boolean> {
  try {
    const res = await fetch(`http://${host}/queueStats`, { signal: AbortSignal.timeout(3_000) });
    if (!res.ok) return false;
    return emulatedQueueKey(projectId) in ((await res.json()) as Record<string, unknown>);
  } catch {
    return false;
  }
}

/** The queue `queue` gives, as wakes by Cloud Tasks (adapters/mail-queue): nothing is left to wait for. */
function byCloudTasks(queue: () => TaskEnqueuer): Wakes {
  const wakes = cloudTasksQueue(systemClock, queue);
  return { wake: (at) => wakes.wake(at), settle: async () => undefined };
}

/**
 * On the local stack: the stack's `mail` function, through its Cloud Tasks emulator (the admin
 * SDK finds it by CLOUD_TASKS_EMULATOR_HOST, which applyTarget sets), when it serves the target's
 * project; otherwise rounds here. Decided at the first wake: a command that queues no mail asks
 * nothing.
 */
export function localWakes(target: Target, round: () => Promise<unknown>, log: Logger): Wakes {
  let chosen: Promise<Wakes> | undefined;
  const choose = async (): Promise<Wakes> => {
    if (target.tasks !== null && (await stackServes(target.tasks, target.projectId)))
      return byCloudTasks(() => {
        const { getFunctions } = require("firebase-admin/functions") as typeof import("firebase-admin/functions");
        return getFunctions().taskQueue(MAIL_FUNCTION);
      });
    return roundsHere(round, log);
  };
  return {
    async wake(at) {
      chosen ??= choose();
      await (await chosen).wake(at);
    },
    async settle(ms) {
      if (chosen !== undefined) await (await chosen).settle(ms);
    },
  };
}

type Fetch = typeof fetch;

/**
 * The service account the deployed `mail` function runs as (Cloud Functions API): the one a
 * task's token must be for, as the functions' own tasks are. Without it the admin SDK, on a
 * person's credentials (`gcloud auth application-default login`), names no account at all and
 * enqueues nothing.
 */
export async function mailFunctionAccount(
  projectId: string,
  token: () => Promise<string> = accessToken,
  fetchFn: Fetch = fetch,
): Promise<string> {
  const url = `https://cloudfunctions.googleapis.com/v2/projects/${projectId}/locations/${MAIL_LOCATION}/functions/${MAIL_FUNCTION}`;
  const res = await fetchFn(url, {
    headers: { authorization: `Bearer ${await token()}`, "x-goog-user-project": projectId },
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json().catch(() => ({}))) as {
    serviceConfig?: { serviceAccountEmail?: unknown };
    error?: { message?: string };
  };
  const account = body.serviceConfig?.serviceAccountEmail;
  if (res.ok && typeof account === "string" && account !== "") return account;
  throw new Error(
    `the \`${MAIL_FUNCTION}\` function's service account could not be read (Cloud Functions answered ${res.status}` +
      `${body.error?.message === undefined ? "" : `: ${body.error.message.split("\n")[0]}`}); ` +
      "its mail goes at the next wake",
  );
}

/**
 * On a real project: the `mail` function's queue, through an app of its own that names the
 * function's service account for the task's token (looked up at the first wake).
 */
export function projectWakes(
  projectId: string,
  account: () => Promise<string> = () => mailFunctionAccount(projectId),
): Wakes {
  let queue: Promise<TaskEnqueuer> | undefined;
  const named = async (): Promise<TaskEnqueuer> => {
    const serviceAccountId = await account();
    const { getApps, initializeApp } = require("firebase-admin/app") as typeof import("firebase-admin/app");
    const { getFunctions } = require("firebase-admin/functions") as typeof import("firebase-admin/functions");
    const app =
      getApps().find((a) => a.name === "mail-wakes") ?? initializeApp({ projectId, serviceAccountId }, "mail-wakes");
    return getFunctions(app).taskQueue(MAIL_FUNCTION);
  };
  return byCloudTasks(() => ({
    async enqueue(data, options) {
      queue ??= named();
      await (await queue).enqueue(data, options);
    },
  }));
}
