/**
 * The deploy manifest: one HTTPS function per endpoint group, the secrets each may read, and what
 * each may cost. Every app applies the contract's cross-origin rules itself (http/cors). Why each
 * value: docs/deploying.md ("The functions").
 */
// First, so every module loaded after it comes from the compile cache.
import "./compile-cache";
import type { SecretParam } from "firebase-functions/params";
import { codePepper, federatedClientSecrets, idpSigningSecret, inUse, sessionKeys, smtpPassword } from "./params";
import { GROUPS } from "./groups";
import { httpsFunction, type GroupOptions } from "./http/function";

/**
 * Above the 8 s after which every app answers 503 itself (http/app), so a caller sees the
 * contract's answer rather than the platform's 504.
 */
const TIMEOUT = 15;
/** I/O-bound handlers on one vCPU: many requests share an instance, as the platform's default. */
const CONCURRENCY = 80;
/** Code loads per group on its first request (bench/RESULTS.md §4): no instance is kept warm. */
const ALWAYS_ON = 0;

/**
 * `secrets`: every secret the function reads. It declares those the deployment uses (params.ts,
 * `inUse`): SMTP_PASSWORD only with SMTP_USER set, FEDERATED_CLIENT_SECRETS only with
 * FEDERATED_PROVIDERS, so a deploy never asks for a secret nothing will read.
 */
const options = (maxInstances: number, secrets: SecretParam[]): GroupOptions => ({
  memory: "256MiB",
  timeoutSeconds: TIMEOUT,
  concurrency: CONCURRENCY,
  minInstances: ALWAYS_ON,
  maxInstances,
  secrets: inUse(secrets),
});

export const sessions = httpsFunction("sessions", GROUPS.sessions, options(20, [sessionKeys]));
export const otp = httpsFunction("otp", GROUPS.otp, options(5, [sessionKeys, codePepper, smtpPassword]));
export const bridge = httpsFunction("bridge", GROUPS.bridge, options(5, [sessionKeys, federatedClientSecrets]));
export const oidc = httpsFunction("oidc", GROUPS.oidc, options(10, [sessionKeys]));
export const people = httpsFunction("people", GROUPS.people, options(3, [sessionKeys]));
export const startpage = httpsFunction("startpage", GROUPS.startpage, options(10, [sessionKeys]));
export const calendar = httpsFunction("calendar", GROUPS.calendar, options(5, [sessionKeys]));
export const location = httpsFunction("location", GROUPS.location, options(5, [sessionKeys]));
export const status = httpsFunction("status", GROUPS.status, options(2, [sessionKeys, smtpPassword]));
export const claims = httpsFunction("claims", GROUPS.claims, options(10, [idpSigningSecret]));
