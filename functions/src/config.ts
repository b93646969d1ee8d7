import { defineSecret, defineString } from "firebase-functions/params";
import { z } from "zod";
import { isRedirectUriForm } from "./core/sessions/handoff-redirects";

/**
 * Every setting the service reads, declared once. Code never reads these params directly:
 * `readConfig()` turns them into a plain `Config` once per instance, and tests build their own.
 */
export const parentDomain = defineString("PARENT_DOMAIN", {
  default: "example.test",
  description: "Parent domain of every host; the session cookie's Domain",
});
export const serviceUrl = defineString("SERVICE_URL", {
  default: "https://example.test",
  description: "Origin of the service itself ({base_url}); the issuer of its OpenID Connect provider",
});
export const idUrl = defineString("ID_URL", {
  default: "https://id.example.test",
  description: "Origin of the identity host that issues ID tokens",
});
// A comma-separated string, not defineList: the CLI writes lists as CSV, the runtime reads JSON.
export const appHosts = defineString("APP_HOSTS", {
  default: "startpage,status,calendar,location",
  description: "Comma-separated application host names under the parent domain, allowed to call with credentials",
});
export const smtpHost = defineString("SMTP_HOST", { default: "", description: "SMTP server; empty disables mail" });
export const smtpPort = defineString("SMTP_PORT", { default: "587" });
export const smtpSecure = defineString("SMTP_SECURE", { default: "false", description: "true for implicit TLS (465)" });
export const smtpUser = defineString("SMTP_USER", { default: "" });
export const mailFrom = defineString("MAIL_FROM", { default: "Sign-in <no-reply@example.test>" });

export const gamingOpenIdEndpoint = defineString("GAMING_OPENID_ENDPOINT", {
  default: "",
  description: "OpenID 2.0 endpoint of the gaming bridge's provider; empty leaves the bridge unavailable",
});

export const federatedProviders = defineString("FEDERATED_PROVIDERS", {
  default: "",
  description:
    'The `federated` bridge\'s providers, as JSON: { "<idp>": { "issuer", "clientId", "providerId", "scope"? } } for idp search, professional, codehost, devicemaker or native; empty leaves the bridge unavailable',
});
export const idpApiKey = defineString("IDP_API_KEY", {
  default: "",
  description: "The identity provider's web API key, with which the federated bridge signs people in at the identity provider",
});

export const calendarIcsUrl = defineString("CALENDAR_ICS_URL", {
  default: "",
  description: "The shared calendar the calendar and location endpoints read (iCalendar over https); empty: none",
});
export const defaultLocation = defineString("DEFAULT_LOCATION", {
  default: "",
  description: "Where GET /location says people are when the calendar says nothing (empty: null)",
});
export const claimNamespace = defineString("CLAIM_NAMESPACE", {
  default: "identity",
  description: "The claims callback names its claims urn:<this>:… (letters, digits, hyphens)",
});
export const handoffAppsParam = defineString("HANDOFF_APPS", {
  default: "",
  description:
    'Apps a signed-in person can be handed to with a single-use exchange code, as JSON: { "<app>": { "name", "redirectUris": [...] } }; empty: none',
});
export const smtpPassword = defineSecret("SMTP_PASSWORD");
/** JSON array of private JWKs, each with a `kid`; the first signs, all verify (rotation). */
export const sessionKeys = defineSecret("SESSION_KEYS");
/** `kid:secret` pairs separated by commas; the first keys new hashes, all verify (rotation). */
export const codePepper = defineSecret("CODE_PEPPER");
export const idpSigningSecret = defineSecret("IDP_SIGNING_SECRET");
/** JSON object of the federated bridge's client secrets, one per idp: { "<idp>": "<secret>" }. */
export const federatedClientSecrets = defineSecret("FEDERATED_CLIENT_SECRETS");

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
  /** Apps that take a signed-in person by an exchange code (POST /auth/handoff), by id. */
  handoffApps: Record<string, HandoffApp>;
}

/** An app outside the parent domain that a signed-in person can be handed to (core/handoff). */
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
}

export interface FederatedConfig {
  apiKey: string;
  providers: Partial<Record<FederatedIdp, FederatedProvider>>;
}

/**
 * FEDERATED_PROVIDERS with its secrets. A mistake here stops the function at its first request
 * with a message naming the setting, rather than failing sign-ins one by one.
 */
export function federatedConfig(providersJson: string, secretsJson: string, apiKey: string): FederatedConfig | null {
  if (providersJson.trim() === "") return null;
  const fail = (what: string) => new Error(`FEDERATED_PROVIDERS: ${what}`);
  const parse = (json: string, name: string): Record<string, unknown> => {
    try {
      const value: unknown = JSON.parse(json === "" ? "{}" : json);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // Reported below, without the text: it may hold a secret.
    }
    throw new Error(`${name} must be a JSON object`);
  };
  const rows = parse(providersJson, "FEDERATED_PROVIDERS");
  const secrets = parse(secretsJson, "FEDERATED_CLIENT_SECRETS");
  if (apiKey.trim() === "") throw fail("IDP_API_KEY must be set too");
  const providers: FederatedConfig["providers"] = {};
  for (const [idp, row] of Object.entries(rows)) {
    if (!(FEDERATED_IDPS as readonly string[]).includes(idp)) throw fail(`unknown idp "${idp}"`);
    const r = (typeof row === "object" && row !== null ? row : {}) as Record<string, unknown>;
    const text = (key: string) => (typeof r[key] === "string" && (r[key] as string).trim() !== "" ? (r[key] as string).trim() : null);
    const issuer = text("issuer");
    const authorization = text("authorizationEndpoint");
    const token = text("tokenEndpoint");
    const clientId = text("clientId");
    const providerId = text("providerId");
    const secret = typeof secrets[idp] === "string" ? (secrets[idp] as string) : "";
    if (clientId === null || providerId === null) throw fail(`${idp} needs clientId and providerId`);
    if ((issuer === null) === (authorization === null || token === null) || (issuer !== null && (authorization ?? token) !== null)) {
      throw fail(`${idp} needs either issuer (OpenID Connect) or authorizationEndpoint and tokenEndpoint (OAuth 2.0)`);
    }
    if (secret === "") throw fail(`${idp} has no client secret in FEDERATED_CLIENT_SECRETS`);
    const scope = text("scope") ?? (issuer !== null ? "openid email profile" : "");
    if (issuer !== null && !scope.split(" ").includes("openid")) throw fail(`${idp}'s scope must include openid`);
    const endpoint = (key: string, value: string) => remoteEndpoint(`FEDERATED_PROVIDERS ${idp}.${key}`, value) as string;
    if (issuer !== null) endpoint("issuer", issuer);
    const endpoints = authorization !== null && token !== null ? { authorization: endpoint("authorizationEndpoint", authorization), token: endpoint("tokenEndpoint", token) } : null;
    providers[idp as FederatedIdp] = { issuer, endpoints, clientId, clientSecret: secret, providerId, scope };
  }
  return Object.keys(providers).length === 0 ? null : { apiKey: apiKey.trim(), providers };
}

const handoffAppsSchema = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "app ids are lowercase letters, digits and hyphens"),
  z.strictObject({
    name: z.string().trim().min(1).max(80),
    redirectUris: z.array(z.string().refine(isRedirectUriForm, "a redirect URI is https, loopback http, or a private-use scheme (RFC 8252)")).min(1).max(20),
  }),
);

/** HANDOFF_APPS, checked whole: a mistake stops the function with the setting named. */
export function parseHandoffApps(json: string): Record<string, HandoffApp> {
  if (json.trim() === "") return {};
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error("HANDOFF_APPS must be a JSON object");
  }
  const parsed = handoffAppsSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`HANDOFF_APPS: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return Object.fromEntries(Object.entries(parsed.data).map(([id, app]) => [id, { id, ...app }]));
}

export function originsFor(domain: string, identityUrl: string, hosts: string[]): string[] {
  const own = [`https://${domain}`, `https://www.${domain}`, new URL(identityUrl).origin];
  return [...new Set([...own, ...hosts.map((h) => `https://${h}.${domain}`)])];
}

function orDefault(value: string, fallback: string): string {
  return value.trim() === "" ? fallback : value.trim();
}

/** An address the service calls out to: https, or http on loopback for local stand-ins. */
export function remoteEndpoint(name: string, value: string): string | null {
  if (value.trim() === "") return null;
  const url = new URL(value.trim());
  const loopback = url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.hostname === "[::1]";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) throw new Error(`${name} must be https`);
  return url.toString();
}

/** An endpoint the bridge may send people to and call. */
export function openIdEndpoint(value: string): string | null {
  return remoteEndpoint("GAMING_OPENID_ENDPOINT", value);
}

/** A URN namespace identifier (RFC 8141 §2): 2 to 32 letters, digits and inner hyphens. */
export function urnNamespace(value: string): string {
  const ns = value.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,30}[A-Za-z0-9]$/.test(ns)) throw new Error("CLAIM_NAMESPACE must be 2–32 letters, digits or inner hyphens");
  return ns;
}

/** Reads every param once. A secret is only present in a function that declares it in index.ts. */
export function readConfig(): Config {
  const domain = orDefault(parentDomain.value(), "example.test");
  const identity = orDefault(idUrl.value(), "https://id.example.test");
  const hosts = orDefault(appHosts.value(), "startpage,status,calendar,location")
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
  const secret = (s: typeof smtpPassword) => process.env[s.name] ?? "";
  const host = smtpHost.value();
  return {
    parentDomain: domain,
    serviceUrl: new URL(orDefault(serviceUrl.value(), `https://${domain}`)).origin,
    idUrl: identity,
    allowedOrigins: originsFor(domain, identity, hosts),
    smtp:
      host === ""
        ? null
        : {
            host,
            port: Number(orDefault(smtpPort.value(), "587")),
            secure: smtpSecure.value() === "true",
            user: smtpUser.value(),
            password: secret(smtpPassword),
            from: orDefault(mailFrom.value(), "Sign-in <no-reply@example.test>"),
          },
    sessionKeys: secret(sessionKeys),
    codePepper: secret(codePepper),
    idpSigningSecret: secret(idpSigningSecret),
    claimNamespace: urnNamespace(orDefault(claimNamespace.value(), "identity")),
    gamingEndpoint: openIdEndpoint(gamingOpenIdEndpoint.value()),
    federated: federatedConfig(federatedProviders.value(), secret(federatedClientSecrets), idpApiKey.value()),
    calendarUrl: remoteEndpoint("CALENDAR_ICS_URL", calendarIcsUrl.value()),
    defaultLocation: defaultLocation.value().trim() === "" ? null : defaultLocation.value().trim(),
    handoffApps: parseHandoffApps(handoffAppsParam.value()),
  };
}
