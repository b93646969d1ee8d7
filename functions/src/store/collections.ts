/**
 * Every collection the store writes, and the field after which a document of it no longer
 * matters: Firestore's TTL policy (firestore.indexes.json) deletes it some time past that
 * instant (usually within a day), so the code still checks expiry itself. `null`: kept until
 * someone removes it. test/store/ttl.test.ts holds the modules, this table and the policies together:
 * a collection written without a row here, or a short-lived one without its policy, fails it.
 */
export const COLLECTIONS = {
  people: null,
  // The audit log of what was done to each person: kept as long as the service is.
  personHistory: null,
  // The audit trail of privileged acts across the service: kept AUDIT_KEPT_MS (core/model/audit).
  auditTrail: "forgetAfter",
  // Refusals counted per hour and instance for the health report (core/status/health-counts):
  // kept COUNTS_KEPT_MS, past the report's longest window.
  healthCounts: "forgetAfter",
  // The reviewers' digest: when the last one went (core/notices/review-notices).
  reviewDigests: null,
  personKeys: null,
  apiKeys: null,
  // Clients: kept, but a self-registered one waiting for review, forgotten once it has waited
  // WAITING_CLIENT_KEPT_MS unreviewed (store/oidc-clients).
  oidcClients: "forgetAfter",
  // The family's resources, for tokens meant for one of them: kept until the operator removes one.
  oidcResources: null,
  // The apps' subscriptions to events (core/events): kept until the operator removes one.
  hooks: null,
  // An address let in before it asked: until it is taken up or revoked, or a while past its expiry.
  invitations: "forgetAfter",
  notifications: null,
  startpageReads: null,
  emailCodes: "expiresAt",
  emailCodeLimits: "forgetAfter",
  // One record per send let through the budgets beyond its address, kept for the longest window.
  sends: "forgetAfter",
  // An address's send in one minute, claimed by the send let through (store/send-claims): a minute.
  sendClaims: "forgetAfter",
  // Kept a week past its last chance of delivery, for the log's sake (core/outbox/enqueue).
  outbox: "forgetAfter",
  exchangeCodes: "expiresAt",
  bridgeStates: "expiresAt",
  // Not its own expiry: a used code names the access token to revoke if it is presented again,
  // so it is kept as long as that token lives.
  oidcCodes: "forgetAfter",
  oidcAccessTokens: "expiresAt",
  // What a person let an app do while away, and every refresh token issued on it: until its end.
  oidcGrants: "forgetAfter",
  oidcRefreshTokens: "forgetAfter",
  // A sign-in to a client from one session, for back-channel logout: until the session would expire.
  oidcSignIns: "forgetAfter",
  // An app disconnected from a person: until they let it in again, or are erased.
  oidcDisconnects: null,
  // What a person let an app that registered itself do: until they take it back, or are erased.
  oidcConsents: null,
  clientThrottles: "forgetAfter",
  // How many clients registered themselves in one hour from one source: until the hour is past.
  registrationBudgets: "forgetAfter",
  // What the service remembers of a session, until the session token would have expired.
  sessions: "expiresAt",
  passkeys: null,
  // A person's one-time recovery codes, as keyed hashes: until they make new ones or are erased.
  recoveryCodes: null,
  passkeyChallenges: "expiresAt",
  // An erasure begun and not finished (store/personal-data): the provider accounts still to delete,
  // kept until it is done, however long that takes.
  erasures: null,
  // When a person last reached a project: forgotten a year after the last time (core/sessions).
  projectAccess: "forgetAfter",
  // The security notices a person was sent in the last hour (core/notices/security-mail).
  noticeWindows: "forgetAfter",
  // The operator's word on the passkey rule, and its lifts (core/people/acting): one document.
  signInRules: null,
} as const satisfies Record<string, string | null>;

export type Collection = keyof typeof COLLECTIONS;
