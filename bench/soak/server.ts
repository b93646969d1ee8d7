/**
 * The service under soak: the sessions, otp, passkeys, startpage, people, claims, oidc and bridge groups, built as the functions
 * build them (bench/servers/ours.ts, plus the groups it leaves out) with real dependencies:
 * firebase-admin on the soak's emulators, SMTP to its maildev, production pacing and cache, and
 * the mail task dispatched as its Cloud Tasks queue dispatches it (bench/lib/mail-task.ts), since on real transaction semantics concurrent drains contend for the same entries.
 * One process, started once and never restarted: recovering from a fault is its job.
 * env: PORT, SESSION_KEYS, CODE_PEPPER, SMTP_PORT, GCLOUD_PROJECT, FIRESTORE_EMULATOR_HOST,
 * FIREBASE_AUTH_EMULATOR_HOST, GAMING_OPENID_ENDPOINT, FEDERATED_PROVIDERS, FEDERATED_CLIENT_SECRETS.
 */
import { requireFromFunctions, service } from "../lib/functions.ts";
import { serviceDeps } from "../lib/service-deps.ts";
import { mailTask } from "../lib/mail-task.ts";

const express = requireFromFunctions("express");
const { createApp } = service<any>("http/app");
const { jsonErrors } = service<any>("http/presenters");
const oidc = service<any>("routes/oidc/oidc");
const bridge = service<any>("routes/bridge/bridge");
const { consoleLogger: plainLogger } = service<any>("logger");
// Each line with its wall time, so the harness can place a mail's history against the faults.
const timed = (write: (m: string, f?: Record<string, unknown>) => void) => (m: string, f?: Record<string, unknown>) =>
  write(m, { at: Date.now(), ...f });
const consoleLogger = {
  info: timed(plainLogger.info),
  warn: timed(plainLogger.warn),
  error: timed(plainLogger.error),
};
const groups = ["sessions", "otp", "passkeys", "startpage", "people", "claims"].map((name) =>
  service<any>(`routes/${name}/${name}`),
);

// Logged, not silenced: the log file is where the cause of an unexpected 5xx is found.
const deps = serviceDeps({
  sessionKeys: process.env.SESSION_KEYS as string,
  codePepper: process.env.CODE_PEPPER,
  smtpPort: Number(process.env.SMTP_PORT),
  log: consoleLogger,
  mailQueue: mailTask(consoleLogger).mailQueue,
  gamingEndpoint: process.env.GAMING_OPENID_ENDPOINT,
  federated: { providers: process.env.FEDERATED_PROVIDERS ?? "", secrets: process.env.FEDERATED_CLIENT_SECRETS ?? "" },
  sendBudgets: JSON.parse(process.env.SEND_BUDGETS as string),
});

// Every wake of the mail task, logged: the soak's account of a code that never came lists them.
const woken = deps.mailQueue;
deps.mailQueue = {
  wake: (at?: Date) => {
    consoleLogger.info("mail woken", { for: at === undefined ? "now" : at.toISOString() });
    return woken.wake(at);
  },
};

// Every group renders refusals with jsonErrors, so one app can serve them all.
const router = express.Router();
for (const group of groups) router.use(group.routes(deps));
const app = createApp(router, {
  presenter: jsonErrors,
  allowedOrigins: deps.config.allowedOrigins,
  log: consoleLogger,
});
// The OIDC and bridge groups refuse in their own shapes (OAuth JSON, HTML pages), so each keeps its own app.
const oidcApp = createApp(oidc.routes(deps), {
  presenter: oidc.presenter,
  allowedOrigins: deps.config.allowedOrigins,
  log: consoleLogger,
});
const bridgeApp = createApp(bridge.routes(deps), {
  presenter: bridge.presenter,
  allowedOrigins: deps.config.allowedOrigins,
  log: consoleLogger,
});
const server = express();
server.use((req: any, res: any, next: any) =>
  (req.path.startsWith("/auth/oidc/") ? oidcApp : req.path.startsWith("/auth/bridge/") ? bridgeApp : app)(
    req,
    res,
    next,
  ),
);
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"));

process.on("SIGTERM", () => process.exit(0));
// The runner holds our stdin: when it goes away for any reason, so do we.
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
