import type { Role } from "./model/person";

/**
 * The shape core reads: what the rules are configured with, as plain values. Where settings are
 * read and checked is config/ (one home: each setting's name, default, parsing and check), which
 * fills this shape from the platform's params and secrets once per instance. It lives here, not
 * there, because core ranks below config/ and may not import it: the rules depend on this shape,
 * not on how it is read.
 */

export interface Config {
  parentDomain: string;
  /** Origin of the service ({base_url}): the OpenID Connect issuer. */
  serviceUrl: string;
  idUrl: string;
  /** The seven origins allowed to call with credentials. */
  allowedOrigins: string[];
  smtp: { host: string; port: number; secure: boolean; user: string; password: string; from: string } | null;
  sessionKeys: string;
  codePepper: string;
  /**
   * Running on the emulators (a `demo-` project, or the Functions emulator): a subscription to
   * events may then be posted over http to a loopback address, so a test or the local stack runs
   * its own receiver. Never in a deployment.
   */
  loopbackHooks: boolean;
  idpSigningSecret: string;
  /** The namespace of the claims callback's claims: `urn:<claimNamespace>:personId` and so on. */
  claimNamespace: string;
  /** The `gaming` bridge's OpenID 2.0 endpoint (https, or loopback http); null: not configured. */
  gamingEndpoint: string | null;
  /** The `federated` bridge's providers and how to sign in at the identity provider; null: not configured. */
  federated: FederatedConfig | null;
  /** The shared calendar's iCalendar feed (https, or loopback http); null: none. */
  calendarUrl: string | null;
  /** What GET /location answers when the calendar places no one anywhere. */
  defaultLocation: string | null;
  /**
   * The family's MCP server's own resource URL (MCP_RESOURCE_URL, RFC 8707): the audience its
   * access tokens must name, and what its protected resource metadata says it is. Its path is
   * `/mcp`, where the route manifest serves it (paths.ts).
   */
  mcpResourceUrl: string;
  /** Apps that take a signed-in person by an exchange code (POST /auth/handoff), by id. */
  handoffApps: Record<string, HandoffApp>;
  /**
   * What a proven address at a mail domain is given when its owner first comes (ADDRESS_RULES,
   * core/arrival/arrival): approved with projects and groups, or left for review with them
   * suggested. None by default: everyone is reviewed.
   */
  addressRules: AddressRule[];
  /**
   * The providers behind the identity provider (`google.com`, `oidc.<name>`) whose verified address
   * is proof enough for an invitation or an approving rule at a first sign-in (ARRIVAL_PROVIDERS),
   * beside the service's own email code and the identity provider's own verified addresses
   * (`password`). Another provider's word is not: that newcomer waits, and an invitation of the
   * address is taken up by a code (core/arrival/arrival).
   */
  arrivalProviders: string[];
  /** Email-code sends beyond each address's own limits: per client, network, recipient domain and service. */
  sendBudgets: SendBudgets;
  /**
   * How many proxies in front of the functions append the address they were reached from to
   * `X-Forwarded-For` (http/caller): the client is the entry the outermost of them appended.
   * 0: the header is ignored and the socket's peer is the client.
   */
  clientAddressHops: number;
  /** Who hears of people waiting for review, how often, and whether a person hears of a rejection. */
  review: ReviewSettings;
  /** Which security notices people are mailed (NOTIFY_*), each on by default. */
  notices: NoticeSettings;
  /**
   * The roles whose holders act in that role only from a passkey sign-in (PASSKEY_ROLES; `admin`
   * by default, none on the local stack): the deployment's rule, which the operator's word, kept
   * in Firestore, overrides (core/people/acting).
   */
  passkeyRoles: Role[];
  /** Clients registering themselves (OIDC_REGISTRATION, core/oidc/registration), and how many may. */
  oidcRegistration: RegistrationSettings;
}

/**
 * `closed`: the operator registers every client (the default, the contract's word); `reviewed`:
 * a client may register itself, and waits for the operator's approval; `open`: it is usable at once.
 */
export type RegistrationPolicy = "closed" | "reviewed" | "open";

export interface RegistrationSettings {
  policy: RegistrationPolicy;
  /** The bounds on registrations (core/oidc/registration-budget): fixed, not settings; tests set their own. */
  budgets: RegistrationBudgets;
  /**
   * Where clients' metadata documents may be read from although the guard would refuse it
   * (adapters/document-fetch): origins on loopback or plain http, and a certificate authority to
   * trust beside the system's. Only the emulators take any (OIDC_METADATA_DEV_ORIGINS); a
   * deployment has none.
   */
  documents: { devOrigins: string[]; ca: string | null };
}

/** At most this many registrations in each clock hour (UTC), from each source. */
export interface RegistrationBudgets {
  /** From one network: an IPv4 /24, an IPv6 /48 (which holds every /64 in it). */
  perNetworkHour: number;
  /** Through one edge of the platform's front end, or one caller going around it (core/model/caller). */
  perEdgeHour: number;
  /** From everyone: what bounds the store's growth whoever registers. */
  perServiceHour: number;
}

/** The bounds a deployment has (core/oidc/registration-budget): not settings, since the docs promise these figures. */
export const REGISTRATION_BUDGETS: RegistrationBudgets = {
  perNetworkHour: 10,
  // An edge of the CDN carries many networks' requests; a caller going around it is one source.
  perEdgeHour: 50,
  perServiceHour: 500,
};

export interface AddressRule {
  /** The mail domain, exactly as after the @ (subdomains are domains of their own). */
  domain: string;
  /** `approve`: in at once, with these grants; `suggest`: reviewed, with them suggested to the reviewer. */
  then: "approve" | "suggest";
  projects: string[];
  groups: string[];
}

export interface NoticeSettings {
  /** A sign-in from a browser not seen before for the person (NOTIFY_NEW_BROWSER); each person may also turn it off. */
  newBrowser: boolean;
  /** A passkey, an address or a number added or removed (NOTIFY_WAYS_IN). */
  waysIn: boolean;
  /** Role, status, projects or groups changed, or sessions ended, by someone else (NOTIFY_ACCESS_CHANGED). */
  access: boolean;
}

export interface ReviewSettings {
  /** At most one digest to the reviewers in this long (REVIEW_DIGEST_MINUTES). */
  digestWindowMs: number;
  /** The reviewers' addresses (REVIEWERS); empty: every approved administrator. */
  reviewers: string[];
  /** Whether a person is told their request was rejected (NOTIFY_REJECTED); never by default. */
  notifyRejected: boolean;
}

export interface SendBudgets {
  /** Sends one client (an IPv4 address, an IPv6 /64) may make in an hour, whatever the addresses. */
  perClientPerHour: number;
  /** Sends the whole service makes in a minute: the ceiling on mail a flood can cause. */
  perServicePerMinute: number;
  /** Sends to the addresses of one mail domain in an hour: a breadth attack on one organisation. */
  perDomainPerHour: number;
  /** Domains shared by the public (large mail providers), which no one organisation owns: no domain budget. */
  domainBudgetExempt: string[];
}

/** An app outside the parent domain that a signed-in person can be handed to (core/sessions/handoff). */
export interface HandoffApp {
  id: string;
  /** What the person is asked to continue to. */
  name: string;
  redirectUris: string[];
}

/** The provider selectors the contract names for the `federated` bridge. */
export const FEDERATED_IDPS = ["search", "professional", "codehost", "devicemaker", "native"] as const;

export type FederatedIdp = (typeof FEDERATED_IDPS)[number];

/**
 * A provider behind the identity provider, as the federated bridge reaches it: an OpenID Connect
 * provider (`issuer`), whose ID tokens the bridge checks itself, or a plain OAuth 2.0 one
 * (`endpoints`, e.g. a code host without ID tokens), whose access token only the identity
 * provider can check, with the provider.
 */
export interface FederatedProvider {
  /** Discovery, and the `iss` its ID tokens must carry (https, or loopback http); null on OAuth 2.0. */
  issuer: string | null;
  endpoints: { authorization: string; token: string } | null;
  clientId: string;
  clientSecret: string;
  /** Its provider id at the identity provider (`google.com`, `github.com`, `oidc.<name>`). */
  providerId: string;
  /** Empty: the provider's default. */
  scope: string;
  /**
   * How the provider sends its answer back: `query` (a redirect, the default) or `form_post` (a
   * POST of the same fields to the callback, as some providers require).
   */
  responseMode: "query" | "form_post";
}

export interface FederatedConfig {
  apiKey: string;
  providers: Partial<Record<FederatedIdp, FederatedProvider>>;
}
