/**
 * The one place the dependencies are put together: `buildDeps(config, adapters)`, used by every
 * function (productionDeps), by the tests (test/support/deps.ts) and by the bench.
 */
import { getApps, initializeApp } from "firebase-admin/app";
import type * as AdminAuth from "firebase-admin/auth";
import { getFirestore } from "firebase-admin/firestore";
import { firebaseIdentity } from "./adapters/identity";
import { smtpMailer } from "./adapters/mailer";
import { cloudTasksQueue } from "./adapters/mail-queue";
import { documentFetch } from "./adapters/document-fetch";
import { DOCUMENT_MAX_BYTES, DOCUMENT_TIMEOUT_MS } from "./core/oidc/metadata-documents";
import { systemClock, type Clock } from "./clock";
import { readConfig, type Config } from "./config/config";
import type { Deps } from "./core/deps";
import { parsePepper } from "./core/pepper";
import { clientCache } from "./core/oidc/clients";
import { wakingAfterCommit } from "./core/outbox/wake";
import { personCache } from "./core/people/person-cache";
import { SEEN_EVERY_MS } from "./core/sessions/active-sessions";
import { ttlCache } from "./core/ttl-cache";
import type { DocumentFetch, Fetch, Identity, Mailer, MailQueue, SessionTokens, TransactionRunner } from "./core/ports";
import { sessionTokens } from "./core/sessions/session-token";
import { consoleLogger, type Logger } from "./logger";
import { cryptoRandom, type Random } from "./random";
import { transactionRunner, type Firestore } from "./store/db";
import { loggingAuditAfterCommit } from "./core/audit";
import { healthCounts } from "./core/status/health-counts";

export type { Deps } from "./core/deps";

/** What reaches outside the process, given from outside; the rest has defaults. */
export interface Adapters {
  store: Firestore;
  identity: Identity;
  mailer: Mailer | null;
  /**
   * What wakes the outbox's drainer: the `mail` function's task queue, or, given the deps being
   * built, a queue that drains with them (a stand-in for the task queue in tests and the bench).
   */
  mailQueue: MailQueue | ((deps: Deps) => MailQueue);
  transaction?: TransactionRunner;
  fetch?: Fetch;
  documents?: DocumentFetch;
  clock?: Clock;
  random?: Random;
  log?: Logger;
}

/** A function without the SESSION_KEYS secret can neither issue nor read sessions. */
const missing = () => new Error("SESSION_KEYS is not available to this function");
const noSessionKeys: SessionTokens = {
  issue: () => Promise.reject(missing()),
  verify: () => Promise.reject(missing()),
  signIdToken: () => Promise.reject(missing()),
  signLogoutToken: () => Promise.reject(missing()),
  signAccessToken: () => Promise.reject(missing()),
  readAccessToken: () => null,
  publicJwks: () => {
    throw missing();
  },
};

export function tokensFor(config: Config): SessionTokens {
  return config.sessionKeys === ""
    ? noSessionKeys
    : sessionTokens(config.sessionKeys, config.idUrl, config.parentDomain);
}

/** Secrets are parsed here, once per instance: a malformed one stops the function at its start, named. */
export function buildDeps(config: Config, adapters: Adapters): Deps {
  const clock = adapters.clock ?? systemClock;
  const log = adapters.log ?? consoleLogger;
  const { store } = adapters;
  const deps: Deps = {
    config,
    store,
    // A transaction that queued something for the outbox wakes its drain once it has committed.
    transaction: wakingAfterCommit(
      loggingAuditAfterCommit(adapters.transaction ?? transactionRunner(store), () => deps.log),
      () => deps,
    ),
    fetch: adapters.fetch ?? ((input, init) => fetch(input, init)),
    documents:
      adapters.documents ??
      documentFetch({
        timeoutMs: DOCUMENT_TIMEOUT_MS,
        maxBytes: DOCUMENT_MAX_BYTES,
        devOrigins: config.oidcRegistration.documents.devOrigins,
        ca: config.oidcRegistration.documents.ca ?? undefined,
      }),
    clock,
    random: adapters.random ?? cryptoRandom,
    log,
    identity: adapters.identity,
    tokens: tokensFor(config),
    personCache: personCache(clock),
    clients: clientCache(clock),
    seen: ttlCache<true>(clock, SEEN_EVERY_MS, 10_000),
    mailer: adapters.mailer,
    mailQueue: { wake: () => Promise.reject(new Error("the mail queue is not built yet")) },
    pepper: config.codePepper === "" ? null : parsePepper(config.codePepper),
    counts: healthCounts(() => deps),
  };
  deps.mailQueue = typeof adapters.mailQueue === "function" ? adapters.mailQueue(deps) : adapters.mailQueue;
  return deps;
}

let production: Deps | undefined;

/** Built once per instance, on the first request, so module load stays cheap. */
export function productionDeps(): Deps {
  if (!production) {
    if (getApps().length === 0) initializeApp();
    const config = readConfig();
    production = buildDeps(config, {
      store: getFirestore(),
      // Loaded by the first call that needs the provider: sessions of our own format never do.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      identity: firebaseIdentity(() => (require("firebase-admin/auth") as typeof AdminAuth).getAuth()),
      mailer: config.smtp === null ? null : smtpMailer(config.smtp),
      mailQueue: cloudTasksQueue(),
    });
  }
  return production;
}
