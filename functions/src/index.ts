/**
 * The deploy manifest: one HTTPS function per endpoint group, the secrets each may read, and what
 * each may cost. Every app applies the contract's cross-origin rules itself (http/cors). Why each
 * value: docs/deploying.md ("The functions").
 */
// First, so every module loaded after it comes from the compile cache.
import "./compile-cache";
import { codePepper, federatedClientSecrets, idpSigningSecret, sessionKeys, smtpPassword } from "./params";
import { GROUPS, TASKS } from "./groups";
import { httpsFunction, taskFunction, type GroupOptions } from "./http/function";

/**
 * Above the 8 s after which every app answers 503 itself (http/app), so a caller sees the
 * contract's answer rather than the platform's 504.
 */
const TIMEOUT = 15;
/** I/O-bound handlers on one vCPU: many requests share an instance, as the platform's default. */
const CONCURRENCY = 80;
/** Code loads per group on its first request (bench/RESULTS.md §4): no instance is kept warm. */
const ALWAYS_ON = 0;

const options = (maxInstances: number, secrets: GroupOptions["secrets"]): GroupOptions => ({
  memory: "256MiB",
  timeoutSeconds: TIMEOUT,
  concurrency: CONCURRENCY,
  minInstances: ALWAYS_ON,
  maxInstances,
  secrets,
});

export const sessions = httpsFunction("sessions", GROUPS.sessions, options(20, [sessionKeys]));
// Queues code mail in the outbox and wakes `mail`; it never talks to the mail server itself.
export const otp = httpsFunction("otp", GROUPS.otp, options(5, [sessionKeys, codePepper]));
export const bridge = httpsFunction("bridge", GROUPS.bridge, options(5, [sessionKeys, federatedClientSecrets]));
export const oidc = httpsFunction("oidc", GROUPS.oidc, options(10, [sessionKeys]));
export const people = httpsFunction("people", GROUPS.people, options(3, [sessionKeys]));
export const startpage = httpsFunction("startpage", GROUPS.startpage, options(10, [sessionKeys]));
export const calendar = httpsFunction("calendar", GROUPS.calendar, options(5, [sessionKeys]));
export const location = httpsFunction("location", GROUPS.location, options(5, [sessionKeys]));
export const status = httpsFunction("status", GROUPS.status, options(2, [sessionKeys, smtpPassword]));
export const claims = httpsFunction("claims", GROUPS.claims, options(10, [idpSigningSecret]));
// Reads sessions (registration, the person's list) and mints custom tokens (sign-in).
export const passkeys = httpsFunction("passkeys", GROUPS.passkeys, options(5, [sessionKeys]));
/**
 * Drains the mail outbox (core/mail/outbox), woken through its task queue. Up to five drains at
 * once, each sending its batch one mail at a time: the mail server sees a handful of connections.
 */
export const mail = taskFunction("mail", TASKS.mail, {
  ...options(5, [codePepper, smtpPassword]),
  timeoutSeconds: 300,
  maxAttempts: 5,
  maxConcurrentDispatches: 5,
});
