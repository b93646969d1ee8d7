/**
 * The service under soak: the sessions, otp, startpage and people groups, built as the functions
 * build them (bench/servers/ours.ts, plus the groups it leaves out) with real dependencies:
 * firebase-admin on the soak's emulators, SMTP to its maildev, production pacing and cache.
 * One process, started once and never restarted: recovering from a fault is its job.
 * env: PORT, SESSION_KEYS, CODE_PEPPER, SMTP_PORT, GCLOUD_PROJECT, FIRESTORE_EMULATOR_HOST,
 * FIREBASE_AUTH_EMULATOR_HOST.
 */
import { requireFromFunctions, service } from "../lib/functions.ts";

const { initializeApp } = requireFromFunctions("firebase-admin/app");
const { getFirestore } = requireFromFunctions("firebase-admin/firestore");
const { getAuth } = requireFromFunctions("firebase-admin/auth");
const express = requireFromFunctions("express");
const { createApp } = service<any>("http/app");
const { jsonErrors } = service<any>("http/presenters");
const { tokensFor } = service<any>("deps");
const { personCache } = service<any>("core/person-cache");
const { systemClock } = service<any>("clock");
const { cryptoRandom } = service<any>("random");
const { firebaseIdentity } = service<any>("identity");
const { consoleLogger } = service<any>("logger");
const { smtpMailer } = service<any>("mailer");
const { originsFor } = service<any>("config");
const groups = ["sessions", "otp", "startpage", "people"].map((name) => service<any>(`routes/${name}`));

initializeApp({ projectId: process.env.GCLOUD_PROJECT });
const smtp = { host: "127.0.0.1", port: Number(process.env.SMTP_PORT), secure: false, user: "", password: "", from: "Sign-in <no-reply@example.test>" };
const config = {
  parentDomain: "example.test",
  idUrl: "https://id.example.test",
  allowedOrigins: originsFor("example.test", "https://id.example.test", ["startpage", "status", "calendar", "location"]),
  smtp,
  sessionKeys: process.env.SESSION_KEYS,
  codePepper: process.env.CODE_PEPPER,
  idpSigningSecret: "",
};
const deps = {
  config,
  store: getFirestore(),
  clock: systemClock,
  random: cryptoRandom,
  // Logged, not silenced: the log file is where the cause of an unexpected 5xx is found.
  log: consoleLogger,
  identity: firebaseIdentity(getAuth()),
  tokens: tokensFor(config),
  people: personCache(systemClock),
  mailer: smtpMailer(smtp, cryptoRandom),
};

// Every group renders refusals with jsonErrors, so one app can serve them all.
const router = express.Router();
for (const group of groups) router.use(group.routes(deps));
const app = createApp(router, { presenter: jsonErrors, allowedOrigins: config.allowedOrigins, log: consoleLogger });
app.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"));

process.on("SIGTERM", () => process.exit(0));
// The runner holds our stdin: when it goes away for any reason, so do we.
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
