import type { Clock } from "../clock";
import type { Logger } from "../logger";
import type { Random } from "../random";
import type { Firestore } from "../store/db";
import type {
  ClientCache,
  DocumentFetch,
  Fetch,
  HealthCounts,
  Identity,
  Mailer,
  MailQueue,
  PersonCache,
  SessionTokens,
  TransactionRunner,
} from "./ports";
import type { Config } from "./settings";
import type { PepperKey } from "./pepper";
import type { TtlCache } from "./ttl-cache";

/**
 * Everything the rules touch in the world, as one plain object; each rule takes a Pick of it.
 * Put together in one place, src/deps.ts (buildDeps), for production, the tests and the bench.
 */
export interface Deps {
  config: Config;
  /** Firestore, for the store modules' reads and writes. */
  store: Firestore;
  /**
   * Firestore's read-write transactions; the only way the rules open one. One that queued something
   * for the outbox wakes its drain once it has committed (core/outbox/wake).
   */
  transaction: TransactionRunner;
  /** The network: providers, their keys, the calendar feed. */
  fetch: Fetch;
  /** The network where a stranger names the URL: clients' metadata documents, guarded (adapters/document-fetch). */
  documents: DocumentFetch;
  clock: Clock;
  random: Random;
  log: Logger;
  identity: Identity;
  tokens: SessionTokens;
  personCache: PersonCache;
  /** Registered OIDC clients, per instance. */
  clients: ClientCache;
  /** Sessions this instance has recorded as seen lately (core/sessions/active-sessions): no write for them. */
  seen: TtlCache<true>;
  /** null when SMTP is not configured: email codes answer 503, and the outbox keeps its mail. */
  mailer: Mailer | null;
  /** Wakes the outbox's drain (core/outbox/wake). */
  mailQueue: MailQueue;
  /** Refusals this instance counts for the health report (core/status/health-counts). */
  counts: HealthCounts;
  /** CODE_PEPPER, parsed once per instance; null in a function that does not read the secret. */
  pepper: PepperKey[] | null;
}
