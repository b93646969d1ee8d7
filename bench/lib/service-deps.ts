/**
 * The service's dependencies as `productionDeps()` builds them in a function, but from settings
 * a bench server is given instead of params and secrets: real firebase-admin on the emulators
 * named by the environment, the service's own clock, randomness, tokens and person cache.
 */
import { requireFromFunctions, service } from "./functions.ts";

const { initializeApp } = requireFromFunctions("firebase-admin/app");
const { getFirestore } = requireFromFunctions("firebase-admin/firestore");
const { getAuth } = requireFromFunctions("firebase-admin/auth");
const { buildDeps } = service<any>("deps");
const { personCache } = service<any>("core/people/person-cache");
const { systemClock } = service<any>("clock");
const { firebaseIdentity } = service<any>("adapters/identity");
const { federatedConfig, originsFor } = service<any>("config/config");
const { smtpMailer } = service<any>("adapters/mailer");
const { REGISTRATION_BUDGETS } = service<any>("core/settings");

/** How long after a wake the bench's mail task starts (a task queue's dispatch takes about this). */
export const DISPATCH_DELAY_MS = 200;

/** The identity provider's signing secret of the bench's service (its claims callback). */
export const BENCH_IDP_SIGNING_SECRET = "bench-idp-signing-secret";

/** A logger that says nothing, for servers under load. */
export const silentLogger = { info: () => {}, warn: () => {}, error: () => {} };

export interface BenchSettings {
  sessionKeys: string;
  codePepper?: string;
  /** The dev inbox's SMTP port; no mail is configured without it. */
  smtpPort?: number;
  log: unknown;
  personTtlMs?: number;
  /** The gaming bridge's OpenID 2.0 endpoint (the soak's local provider). */
  gamingEndpoint?: string;
  /** FEDERATED_PROVIDERS and FEDERATED_CLIENT_SECRETS as JSON (the soak's local OpenID Connect provider). */
  federated?: { providers: string; secrets: string };
  /** Email-code send budgets; by default out of the way (load comes from one loopback address). */
  /** The mail queue, given the deps (bench/lib/mail-task.ts, which only the servers load). */
  mailQueue: (deps: unknown) => unknown;
  sendBudgets?: {
    perClientPerHour: number;
    perServicePerMinute: number;
    perDomainPerHour: number;
    domainBudgetExempt: string[];
  };
}

/** The service's dependencies through its own buildDeps, from settings instead of params and secrets. */
export function serviceDeps(settings: BenchSettings): any {
  initializeApp({ projectId: process.env.GCLOUD_PROJECT });
  const smtp =
    settings.smtpPort === undefined
      ? null
      : {
          host: "127.0.0.1",
          port: settings.smtpPort,
          secure: false,
          user: "",
          password: "",
          from: "Sign-in <no-reply@example.test>",
        };
  const config = {
    parentDomain: "example.test",
    serviceUrl: "https://example.test",
    idUrl: "https://id.example.test",
    allowedOrigins: originsFor("example.test", "https://id.example.test", [
      "startpage",
      "status",
      "calendar",
      "location",
    ]),
    smtp,
    sessionKeys: settings.sessionKeys,
    codePepper: settings.codePepper ?? "",
    idpSigningSecret: BENCH_IDP_SIGNING_SECRET,
    claimNamespace: "identity",
    gamingEndpoint: settings.gamingEndpoint ?? null,
    federated: settings.federated
      ? federatedConfig(settings.federated.providers, settings.federated.secrets, "bench-api-key")
      : null,
    calendarUrl: null,
    defaultLocation: null,
    handoffApps: {},
    addressRules: [],
    // The settings added since, each at its default as readConfig reads it on a demo project.
    loopbackHooks: true,
    mcpResourceUrl: "https://startpage.example.test/mcp",
    arrivalProviders: ["google.com", "apple.com"],
    passkeyRoles: ["admin"],
    oidcRegistration: { policy: "closed", budgets: REGISTRATION_BUDGETS, documents: { devOrigins: [], ca: null } },
    sendBudgets: settings.sendBudgets ?? {
      perClientPerHour: 1_000_000,
      perServicePerMinute: 1_000_000,
      perDomainPerHour: 1_000_000,
      domainBudgetExempt: [],
    },
    // The load's client stands in for the CDN: its X-Forwarded-For names the network it sends from.
    clientAddressHops: 1,
    review: { digestWindowMs: 15 * 60_000, reviewers: [], notifyRejected: false },
    notices: { newBrowser: true, waysIn: true, access: true },
  };
  // The mail task, as the platform runs it: a function of its own, woken a moment after the
  // request that asked (a Cloud Tasks dispatch), so its reads are never counted as the request's.
  const deps = buildDeps(config, {
    store: getFirestore(),
    identity: firebaseIdentity(getAuth()),
    mailer: smtp === null ? null : smtpMailer(smtp),
    mailQueue: settings.mailQueue,
    log: settings.log,
  });
  // The bench varies the person cache's lifetime to show what the cache is worth.
  return settings.personTtlMs === undefined
    ? deps
    : { ...deps, people: personCache(systemClock, settings.personTtlMs) };
}
