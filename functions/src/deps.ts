import { getApps, initializeApp } from "firebase-admin/app";
import type * as AdminAuth from "firebase-admin/auth";
import { getFirestore, type Firestore } from "firebase-admin/firestore";
import { systemClock, type Clock } from "./clock";
import { readConfig, type Config } from "./config";
import type { Mailer } from "./core/email-codes/code-mail";
import { clientCache, type ClientCache } from "./core/oidc/clients";
import { personCache, type PersonCache } from "./core/people/person-cache";
import { sessionTokens, type SessionTokens } from "./core/sessions/session-token";
import { firebaseIdentity, type Identity } from "./adapters/identity";
import { consoleLogger, type Logger } from "./logger";
import { smtpMailer } from "./adapters/mailer";
import { cryptoRandom, type Random } from "./random";

/** Everything the rules touch in the world, as one plain object. Functions take a Pick of it. */
export interface Deps {
  config: Config;
  store: Firestore;
  clock: Clock;
  random: Random;
  log: Logger;
  identity: Identity;
  tokens: SessionTokens;
  people: PersonCache;
  /** Registered OIDC clients, per instance. */
  clients: ClientCache;
  /** null when SMTP is not configured: email codes answer 503. */
  mailer: Mailer | null;
}

/** A function without the SESSION_KEYS secret can neither issue nor read sessions. */
const missing = () => new Error("SESSION_KEYS is not available to this function");
const noSessionKeys: SessionTokens = {
  issue: () => Promise.reject(missing()),
  verify: () => Promise.reject(missing()),
  signIdToken: () => Promise.reject(missing()),
  publicJwks: () => {
    throw missing();
  },
};

export function tokensFor(config: Config): SessionTokens {
  return config.sessionKeys === "" ? noSessionKeys : sessionTokens(config.sessionKeys, config.idUrl, config.parentDomain);
}

let production: Deps | undefined;

/** Built once per instance, on the first request, so module load stays cheap. */
export function productionDeps(): Deps {
  if (!production) {
    if (getApps().length === 0) initializeApp();
    const config = readConfig();
    production = {
      config,
      store: getFirestore(),
      clock: systemClock,
      random: cryptoRandom,
      log: consoleLogger,
      // Loaded by the first call that needs the provider: sessions of our own format never do.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      identity: firebaseIdentity(() => (require("firebase-admin/auth") as typeof AdminAuth).getAuth()),
      tokens: tokensFor(config),
      people: personCache(systemClock),
      clients: clientCache(systemClock),
      mailer: config.smtp === null ? null : smtpMailer(config.smtp, cryptoRandom),
    };
  }
  return production;
}
