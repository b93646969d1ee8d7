/**
 * The service as a function instance runs it, in this process: the email-code, sessions and
 * people groups in one express app on loopback, built by the service's own createApp and
 * buildDeps, with its settings read by its own readConfig from the environment the runner gives
 * (every setting at its default, as a deploy that sets none resolves them, SMTP to the dev inbox).
 * Beside the production adapters, two things are the bench's: the mail task runs in this process,
 * dispatched as its task queue dispatches it (bench/lib/mail-task.ts), and every transaction is counted
 * (how many ran, how many attempts the client library made, how many failed). The log goes to a file.
 */
import { appendFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { requireFromFunctions, service } from "../lib/functions.ts";
import { mailTask } from "../lib/mail-task.ts";

const express = requireFromFunctions("express");
const { getApps, initializeApp } = requireFromFunctions("firebase-admin/app");
const { getFirestore } = requireFromFunctions("firebase-admin/firestore");
const { getAuth } = requireFromFunctions("firebase-admin/auth");
const { buildDeps } = service<any>("deps");
const { readConfig } = service<any>("config/config");
const { firebaseIdentity } = service<any>("adapters/identity");
const { smtpMailer } = service<any>("adapters/mailer");
const { AppError } = service<any>("core/errors");
const { createApp } = service<any>("http/app");
const { jsonErrors } = service<any>("http/presenters");
const groups = ["otp", "sessions", "people"].map((name) => service<any>(`routes/${name}/${name}`));

export interface TransactionCounts {
  /** In flight now. */
  running: number;
  runs: number;
  /** Times the client library ran a transaction's work: one per run, plus one per retry. */
  attempts: number;
  /** Runs that ended in an error other than a refusal of the service's own (ABORTED after its retries, a deadline). */
  failed: number;
}

export interface Service {
  base: string;
  deps: any;
  store: any;
  counts: TransactionCounts;
  /** The mail task's queue: whether a drain is running or about to be (wakes for later aside). */
  mailTasks: { busy(): boolean };
  /** Log lines by severity and message (an "unhandled error" is a 500). */
  logged: Record<string, number>;
  close(): Promise<void>;
}

/** A logger that writes JSON lines to `path` and counts them by severity and message. */
function fileLogger(path: string, logged: Record<string, number>) {
  const write = (severity: string) => (message: string, fields?: Record<string, unknown>) => {
    const key = `${severity} ${message}`;
    logged[key] = (logged[key] ?? 0) + 1;
    appendFileSync(path, `${JSON.stringify({ severity, message, ...fields })}\n`);
  };
  return { info: write("INFO"), warn: write("WARNING"), error: write("ERROR") };
}

/** The service's settings as readConfig reads them, with `settings` in place of the environment's. */
function configWith(settings: Record<string, string>): any {
  const saved = Object.keys(settings).map((k) => [k, process.env[k]] as const);
  Object.assign(process.env, settings);
  try {
    return readConfig();
  } finally {
    for (const [k, v] of saved)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

/**
 * The service on a port of its own. `settings` replace the environment's for this one (a second
 * service beside the first, with a budget raised, say). On the first service's store, or with
 * `project`, on a project of its own in the same emulator: a store that starts empty.
 */
export async function startService(
  logPath: string,
  settings: Record<string, string> = {},
  project?: string,
): Promise<Service> {
  if (getApps().length === 0) initializeApp({ projectId: process.env.GCLOUD_PROJECT });
  const own = project === undefined ? undefined : initializeApp({ projectId: project }, project);
  const store = getFirestore(own);
  const config = configWith(settings);
  const logged: Record<string, number> = {};
  const log = fileLogger(logPath, logged);
  const counts: TransactionCounts = { running: 0, runs: 0, attempts: 0, failed: 0 };
  const transaction = <T>(work: (tx: unknown) => Promise<T>): Promise<T> => {
    counts.running++;
    counts.runs++;
    let refused = false;
    return store
      .runTransaction(async (tx: unknown) => {
        counts.attempts++;
        try {
          return await work(tx);
        } catch (err) {
          refused = err instanceof AppError;
          throw err;
        }
      })
      .catch((err: unknown) => {
        if (!refused) counts.failed++;
        throw err;
      })
      .finally(() => counts.running--);
  };
  const mailTasks = mailTask(log);
  const deps = buildDeps(config, {
    store,
    identity: firebaseIdentity(getAuth(own)),
    mailer: smtpMailer(config.smtp),
    mailQueue: mailTasks.mailQueue,
    transaction,
    log,
  });
  // Every group presents refusals with jsonErrors, so one app serves them all.
  const router = express.Router();
  for (const group of groups) router.use(group.routes(deps));
  const app = createApp(router, { presenter: jsonErrors, allowedOrigins: config.allowedOrigins, log });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    base: `http://127.0.0.1:${port}`,
    deps,
    store,
    counts,
    mailTasks,
    logged,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
