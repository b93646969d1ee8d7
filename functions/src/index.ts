/**
 * The deploy manifest: one HTTPS function per endpoint group and one task-queue function per
 * task (groups.ts), the secrets each may read, and what each may cost. Every app applies the
 * contract's cross-origin rules itself (http/cors). Why each value: docs/deploying.md ("The functions").
 */
import type { SecretParam } from "firebase-functions/params";
import {
  codePepper,
  federatedClientSecrets,
  idpSigningSecret,
  inUse,
  sessionKeys,
  smtpPassword,
} from "./config/params";
import type { GroupName, TaskName } from "./groups";
import { httpsFunction, taskFunction, type GroupOptions } from "./runtime/function";
import { MAIL_QUEUE } from "./adapters/mail-queue";

/**
 * Above the 8 s after which every app answers 503 itself (http/app), so a caller sees the
 * contract's answer rather than the platform's 504.
 */
const TIMEOUT = 15;
/** I/O-bound handlers on one vCPU: many requests share an instance, as the platform's default. */
const CONCURRENCY = 80;
/** A fresh instance answers its first request in well under a second (bench/RESULTS.md §4b): none is kept warm. */
const ALWAYS_ON = 0;

/**
 * `secrets`: every secret the function reads. It declares those the deployment uses (config/params.ts,
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

/** The function of group `name`, served by that group's bundle (runtime/bundles.ts). */
const group = (name: GroupName, maxInstances: number, secrets: SecretParam[]) =>
  httpsFunction(name, options(maxInstances, secrets));

export const sessions = group("sessions", 20, [sessionKeys]);
// Queues code mail in the outbox and wakes `mail`; it never talks to the mail server itself.
export const otp = group("otp", 5, [sessionKeys, codePepper]);
export const bridge = group("bridge", 5, [sessionKeys, federatedClientSecrets]);
// CODE_PEPPER keys the token endpoint's throttle records (core/oidc/client-throttle).
export const oidc = group("oidc", 10, [sessionKeys, codePepper]);
export const people = group("people", 3, [sessionKeys]);
export const startpage = group("startpage", 10, [sessionKeys]);
export const calendar = group("calendar", 5, [sessionKeys]);
export const location = group("location", 5, [sessionKeys]);
export const status = group("status", 2, [sessionKeys, smtpPassword]);
export const claims = group("claims", 10, [idpSigningSecret]);
// Reads sessions (registration, the person's list) and mints custom tokens (sign-in); CODE_PEPPER
// keys the recovery codes' hashes and the address's run of failed checks (core/passkeys/recovery-codes).
export const passkeys = group("passkeys", 5, [sessionKeys, codePepper]);
// An MCP server for agents: SESSION_KEYS is the key ring its access tokens (at+jwt) are verified with.
export const mcp = group("mcp", 5, [sessionKeys]);
/**
 * Drains the mail outbox (core/outbox/drain), woken through its task queue. Up to five drains at
 * once, each sending its batch one mail at a time: the mail server sees a handful of connections.
 * SESSION_KEYS signs the logout tokens it posts to the OpenID Connect clients (core/oidc/backchannel).
 */
export const mail = taskFunction("mail", {
  ...options(5, [sessionKeys, codePepper, smtpPassword]),
  timeoutSeconds: 300,
  queue: MAIL_QUEUE,
});

/**
 * Every group's and task's function, by its name in groups.ts: one missing from this manifest, or
 * one here that is neither, does not compile.
 */
const manifest = {
  sessions,
  otp,
  bridge,
  oidc,
  people,
  startpage,
  calendar,
  location,
  status,
  claims,
  passkeys,
  mcp,
  mail,
} satisfies Record<GroupName | TaskName, unknown>;
void manifest;
