import { defineSecret, defineString, type SecretParam } from "firebase-functions/params";
import { DEFAULTS, type Setting } from "./defaults";

/** A setting of the service, with its default from defaults.ts. */
const setting = (name: Setting, description?: string) =>
  defineString(name, { default: DEFAULTS[name], ...(description === undefined ? {} : { description }) });

/**
 * Every setting the service reads, declared once. Code never reads these params directly:
 * `readConfig()` (config.ts) turns them into a plain `Config` once per instance, and tests build
 * their own. This module is all the deploy manifest (index.ts) loads of the settings.
 */
export const parentDomain = setting("PARENT_DOMAIN", "Parent domain of every host; the session cookie's Domain");
export const serviceUrl = setting(
  "SERVICE_URL",
  "Origin of the service itself ({base_url}); the issuer of its OpenID Connect provider",
);
export const idUrl = setting("ID_URL", "Origin of the identity host that issues ID tokens");
// A comma-separated string, not defineList: the CLI writes lists as CSV, the runtime reads JSON.
export const appHosts = setting(
  "APP_HOSTS",
  "Comma-separated application host names under the parent domain, allowed to call with credentials",
);
export const smtpHost = setting("SMTP_HOST", "SMTP server; empty disables mail");
export const smtpPort = setting("SMTP_PORT");
export const smtpSecure = setting("SMTP_SECURE", "true for implicit TLS (465)");
export const smtpUser = setting("SMTP_USER");
export const mailFrom = setting("MAIL_FROM");

export const gamingOpenIdEndpoint = setting(
  "GAMING_OPENID_ENDPOINT",
  "OpenID 2.0 endpoint of the gaming bridge's provider; empty leaves the bridge unavailable",
);

export const federatedProviders = setting(
  "FEDERATED_PROVIDERS",
  'The `federated` bridge\'s providers, as JSON: { "<idp>": { "issuer", "clientId", "providerId", "scope"? } } for idp search, professional, codehost, devicemaker or native; empty leaves the bridge unavailable',
);
export const idpApiKey = setting(
  "IDP_API_KEY",
  "The identity provider's web API key, with which the federated bridge signs people in at the identity provider",
);

export const calendarIcsUrl = setting(
  "CALENDAR_ICS_URL",
  "The shared calendar the calendar and location endpoints read (iCalendar over https); empty: none",
);
export const defaultLocation = setting(
  "DEFAULT_LOCATION",
  "Where GET /location says people are when the calendar says nothing (empty: null)",
);
export const mcpResourceUrl = setting(
  "MCP_RESOURCE_URL",
  "The family's MCP server's resource URL, the audience of its access tokens; its path is /mcp; empty: https://startpage.<PARENT_DOMAIN>/mcp",
);
export const claimNamespace = setting(
  "CLAIM_NAMESPACE",
  "The claims callback names its claims urn:<this>:… (letters, digits, hyphens)",
);
export const handoffAppsParam = setting(
  "HANDOFF_APPS",
  'Apps a signed-in person can be handed to with a single-use exchange code, as JSON: { "<app>": { "name", "redirectUris": [...] } }; empty: none',
);
export const addressRules = setting(
  "ADDRESS_RULES",
  'What a proven address at a mail domain is given when it first comes, as JSON: { "<domain>": { "then": "approve" | "suggest", "projects"?: [...], "groups"?: [...] } }; empty: none (everyone is reviewed)',
);
export const arrivalProviders = setting(
  "ARRIVAL_PROVIDERS",
  "Comma-separated provider ids (google.com, oidc.<name>) whose verified address lets an invitation or an approving ADDRESS_RULES rule in at a first sign-in, beside an email code and the identity provider's own verified addresses; through any other, the newcomer waits, and takes up the invitation with a code",
);
export const oidcRegistration = setting(
  "OIDC_REGISTRATION",
  "Whether OpenID Connect clients may register themselves at /auth/oidc/register: closed (the operator registers every client), reviewed (they wait for the operator's approve), or open",
);
export const smtpPassword = defineSecret("SMTP_PASSWORD");
/** JSON array of private JWKs, each with a `kid`; the first signs, all verify (rotation). */
export const sessionKeys = defineSecret("SESSION_KEYS");
/** `kid:secret` pairs separated by commas; the first keys new hashes, all verify (rotation). */
export const codePepper = defineSecret("CODE_PEPPER");
export const idpSigningSecret = defineSecret("IDP_SIGNING_SECRET");
/** JSON object of the federated bridge's client secrets, one per idp: { "<idp>": "<secret>" }. */
export const federatedClientSecrets = defineSecret("FEDERATED_CLIENT_SECRETS");

export const otpSendsPerClientHour = setting(
  "OTP_SENDS_PER_CLIENT_HOUR",
  "Email-code sends one client network (IPv4 address, IPv6 /64) may make in an hour",
);
export const otpSendsPerMinute = setting(
  "OTP_SENDS_PER_MINUTE",
  "Email-code sends the whole service makes in a minute",
);
export const otpSendsPerDomainHour = setting(
  "OTP_SENDS_PER_DOMAIN_HOUR",
  "Email-code sends to the addresses of one mail domain in an hour (exempt domains aside)",
);
export const otpDomainBudgetExempt = setting(
  "OTP_DOMAIN_BUDGET_EXEMPT",
  "Comma-separated mail domains without a domain budget: public mail providers no one organisation owns",
);
export const clientAddressHops = setting(
  "CLIENT_ADDRESS_HOPS",
  "Proxies in front of the functions that append to X-Forwarded-For (Hosting's CDN and the platform's front end: 2); 0 ignores the header",
);
export const reviewDigestMinutes = setting(
  "REVIEW_DIGEST_MINUTES",
  "At most one mail to each reviewer about people waiting for review in this many minutes",
);
export const reviewers = setting(
  "REVIEWERS",
  "Comma-separated addresses told of people waiting for review; empty: every approved administrator",
);
export const notifyRejected = setting(
  "NOTIFY_REJECTED",
  "true: a person whose request is rejected is told so by mail (approvals always are)",
);
export const notifyNewBrowser = setting(
  "NOTIFY_NEW_BROWSER",
  "true: a person is mailed when they sign in from a browser not seen before (each person may turn it off)",
);
export const notifyWaysIn = setting(
  "NOTIFY_WAYS_IN",
  "true: a person is mailed when a passkey, an address or a number of theirs is added or removed",
);
export const notifyAccessChanged = setting(
  "NOTIFY_ACCESS_CHANGED",
  "true: a person is mailed when someone else changes their role, status, projects or groups, or ends their sessions",
);

export const passkeyRoles = setting(
  "PASSKEY_ROLES",
  "Comma-separated roles whose holders act in that role only from a passkey sign-in (admin), or none; the operator CLI's `passkey-rule set` overrides it",
);

/**
 * The secrets a deployment may not use at all, each with the setting that says it does: SMTP
 * authentication, the federated bridge. A function declares such a secret, and so a deploy
 * requires it to be set, only where that setting has a value when the manifest is read; the
 * Firebase CLI reads it with `.env` and `.env.<project>` loaded, and the function's instances get
 * the same settings. A secret not listed here is declared wherever a function names it.
 */
export const USED_ONLY_WITH: ReadonlyMap<SecretParam, string> = new Map([
  [smtpPassword, "SMTP_USER"],
  [federatedClientSecrets, "FEDERATED_PROVIDERS"],
]);

/** Of the secrets a function reads, those this deployment uses (see USED_ONLY_WITH). */
export function inUse(secrets: SecretParam[], env: NodeJS.ProcessEnv = process.env): SecretParam[] {
  return secrets.filter((secret) => {
    const setting = USED_ONLY_WITH.get(secret);
    return setting === undefined || (env[setting] ?? "").trim() !== "";
  });
}
