import { getApps, initializeApp } from "firebase-admin/app";
import { getAuth } from "firebase-admin/auth";
import { getFirestore } from "firebase-admin/firestore";
import { generateKeyPairSync } from "node:crypto";
import type { Express } from "express";
import { originsFor, type Config } from "../../src/config/config";
import { buildDeps, type Deps } from "../../src/deps";
import { manualClock, silentLogger, type ManualClock } from "./fakes";
import { firebaseIdentity } from "../../src/adapters/identity";
import { createApp } from "../../src/http/app";
import type { Group } from "../../src/groups";
import { smtpMailer } from "../../src/adapters/mailer";
import { cloudTasksQueue, MAIL_QUEUE } from "../../src/adapters/mail-queue";
import { taskQueueDouble, type TaskQueueDouble } from "./task-queue";
import { run as mailRound } from "../../src/tasks/mail";
import { cryptoRandom } from "../../src/random";
import { REGISTRATION_BUDGETS } from "../../src/core/oidc/registration-budget";

export const PARENT_DOMAIN = "example.test";
export const ID_URL = "https://id.example.test";
export const SERVICE_URL = "https://example.test";
export const APP_ORIGIN = "https://startpage.example.test";
/** The MCP server's resource URL, as MCP_RESOURCE_URL's default makes it for the parent domain. */
export const MCP_RESOURCE_URL = `${APP_ORIGIN}/mcp`;

/** A signing key made for this test run, as the SESSION_KEYS secret holds it. */
export function sessionKeyJwk(kid: string) {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { ...privateKey.export({ format: "jwk" }), kid, alg: "RS256" };
}
export const TEST_SESSION_KEYS = JSON.stringify([sessionKeyJwk("test-1")]);

/** The CODE_PEPPER secret of the tests: one key, with its kid. */
export const TEST_CODE_PEPPER = "test-pepper-1:test-pepper-secret-of-the-suite-0123456789";

/** Budgets no test meets unless it sets its own; every test address is at example.test. */
export const UNLIMITED_SENDS: Config["sendBudgets"] = {
  perClientPerHour: 1_000_000,
  perServicePerMinute: 1_000_000,
  perDomainPerHour: 1_000_000,
  domainBudgetExempt: [],
};

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    parentDomain: PARENT_DOMAIN,
    serviceUrl: SERVICE_URL,
    idUrl: ID_URL,
    allowedOrigins: originsFor(PARENT_DOMAIN, ID_URL, ["startpage", "status", "calendar", "location"]),
    smtp: {
      host: "127.0.0.1",
      port: Number(process.env.STACK_SMTP_PORT ?? "1025"),
      secure: false,
      user: "",
      password: "",
      from: "Sign-in <no-reply@example.test>",
    },
    sessionKeys: TEST_SESSION_KEYS,
    codePepper: TEST_CODE_PEPPER,
    // The tests run their own receivers of events on loopback, as on the emulators.
    loopbackHooks: true,
    idpSigningSecret: "dev-idp-signing-secret",
    claimNamespace: "identity",
    gamingEndpoint: null,
    federated: null,
    calendarUrl: null,
    defaultLocation: null,
    mcpResourceUrl: MCP_RESOURCE_URL,
    handoffApps: {},
    addressRules: [],
    arrivalProviders: ["google.com", "apple.com"],
    // Every test request comes from one loopback address; the budget tests set their own.
    sendBudgets: UNLIMITED_SENDS,
    clientAddressHops: 1,
    review: { digestWindowMs: 15 * 60_000, reviewers: [], notifyRejected: false },
    notices: { newBrowser: true, waysIn: true, access: true },
    // Off, as on the test stack: the files that test the passkey rule turn it on.
    passkeyRoles: [],
    // Closed, as a deployment's default: the files that test registration open it.
    oidcRegistration: {
      policy: "closed",
      budgets: REGISTRATION_BUDGETS,
      documents: { devOrigins: [], ca: null },
    },
    ...overrides,
  };
}

function adminApp() {
  return getApps().find((app) => app.name === "[DEFAULT]") ?? initializeApp({ projectId: process.env.GCLOUD_PROJECT });
}

/**
 * The file's own Firestore project where it has one (test/support/environment.cjs), so no other
 * file sees its data; the stack's otherwise. Auth stays the stack's: the Auth emulator signs a
 * browser's or a script's sign-in into the project it was started with, whatever the caller's.
 */
function firestoreApp() {
  const project = process.env.TEST_FIRESTORE_PROJECT;
  if (!project) return adminApp();
  return getApps().find((app) => app.name === project) ?? initializeApp({ projectId: project }, project);
}

export function firestore() {
  return getFirestore(firestoreApp());
}

export function auth() {
  return getAuth(adminApp());
}

export type TestDeps = Deps & {
  clock: ManualClock;
  /** The stand-in for the `mail` function's task queue behind `mailQueue` (none where a test gave its own). */
  tasks: TaskQueueDouble | null;
};

/**
 * Real emulators behind every dependency; only the clock is ours to step. Its start is the
 * real time, because ID tokens from the Auth emulator carry real issue times.
 */
export function testDeps(overrides: Partial<Deps> = {}, { digests = false }: { digests?: boolean } = {}): TestDeps {
  const config = overrides.config ?? testConfig();
  // eslint-disable-next-line no-restricted-syntax -- the manual clock starts at the emulator's now
  const clock = (overrides.clock as ManualClock | undefined) ?? manualClock(new Date());
  const tasks =
    overrides.mailQueue === undefined
      ? taskQueueDouble(() => mailRound(built, { digest: digests }), MAIL_QUEUE, { clock })
      : null;
  const built: Deps = buildDeps(config, {
    store: overrides.store ?? firestore(),
    identity: overrides.identity ?? firebaseIdentity(auth()),
    // Real SMTP to the stack's dev inbox, sent by the outbox's drainer in this process.
    mailer: "mailer" in overrides ? (overrides.mailer ?? null) : config.smtp === null ? null : smtpMailer(config.smtp),
    // The service's own wakes, on a stand-in for the `mail` function's task queue that keeps this
    // test's clock: a drain at once after each send; a retry, or a wake for later, when the test
    // moves its clock and asks (`tasks.runDue()`). The task drains the outbox; the reviewers'
    // digest too only where asked (`digests`, on a database of the test's own), or every test's
    // pending people would gather into digests to every test's administrators.
    mailQueue: overrides.mailQueue ?? cloudTasksQueue(clock, () => tasks as TaskQueueDouble),
    transaction: overrides.transaction,
    fetch: overrides.fetch,
    clock,
    random: overrides.random ?? cryptoRandom,
    log: overrides.log ?? silentLogger,
  });
  // The transaction given is the one buildDeps wrapped: what it runs wakes the drain after its commit.
  const { transaction: _wrapped, ...rest } = overrides;
  return { ...built, ...rest, clock, tasks };
}

/** The same express app a Cloud Function serves, built around test deps. */
export function appFor(group: Group, deps: Deps, options: { deadlineMs?: number } = {}): Express {
  return createApp(group.routes(deps), {
    presenter: group.presenter,
    allowedOrigins: deps.config.allowedOrigins,
    idOrigin: new URL(deps.config.idUrl).origin,
    log: deps.log,
    ...options,
  });
}

export function unique(prefix = "t"): string {
  return `${prefix}${cryptoRandom
    .token(6)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "x")}`;
}

/** The registration policy a test file opens, with its budgets, and no document origins but those it names. */
export function registrationSettings(
  policy: Config["oidcRegistration"]["policy"],
  budgets: Config["oidcRegistration"]["budgets"] = REGISTRATION_BUDGETS,
  documents: Config["oidcRegistration"]["documents"] = { devOrigins: [], ca: null },
): Config["oidcRegistration"] {
  return { policy, budgets, documents };
}
