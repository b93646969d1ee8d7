/**
 * Every setting's default, declared once: the params default to these (params.ts), the reader
 * falls back to them for a value left blank (config.ts), and the identity host's build
 * (site/build.ts) and the local stack (tools/stack.ts) read the same ones, from this file as it
 * is (site/defaults.ts). Plain data and plain functions with no imports: keep it so.
 */
export const DEFAULTS = {
  PARENT_DOMAIN: "example.test",
  SERVICE_URL: "https://example.test",
  ID_URL: "https://id.example.test",
  APP_HOSTS: "startpage,status,calendar,location",
  SMTP_HOST: "",
  SMTP_PORT: "587",
  SMTP_SECURE: "false",
  SMTP_USER: "",
  MAIL_FROM: "Sign-in <no-reply@example.test>",
  GAMING_OPENID_ENDPOINT: "",
  FEDERATED_PROVIDERS: "",
  IDP_API_KEY: "",
  CALENDAR_ICS_URL: "",
  DEFAULT_LOCATION: "",
  // Empty: the start page's host, https://startpage.<PARENT_DOMAIN>/mcp (config.ts).
  MCP_RESOURCE_URL: "",
  CLAIM_NAMESPACE: "identity",
  HANDOFF_APPS: "",
  OTP_SENDS_PER_CLIENT_HOUR: "20",
  OTP_SENDS_PER_MINUTE: "600",
  OTP_SENDS_PER_DOMAIN_HOUR: "200",
  // The large public mail providers: many organisations' people, no one organisation's domain.
  OTP_DOMAIN_BUDGET_EXEMPT:
    "gmail.com,googlemail.com,outlook.com,hotmail.com,live.com,msn.com,yahoo.com,icloud.com,me.com,mac.com,aol.com,proton.me,protonmail.com,gmx.com,gmx.de,gmx.net,web.de,yandex.com,yandex.ru,mail.ru,qq.com,163.com,126.com,zoho.com,fastmail.com",
  CLIENT_ADDRESS_HOPS: "2",
  REVIEW_DIGEST_MINUTES: "15",
  REVIEWERS: "",
  NOTIFY_REJECTED: "false",
  ADDRESS_RULES: "",
  ARRIVAL_PROVIDERS: "google.com,apple.com",
  NOTIFY_NEW_BROWSER: "true",
  NOTIFY_WAYS_IN: "true",
  NOTIFY_ACCESS_CHANGED: "true",
  // The roles that act only from a passkey sign-in (core/people/acting): on for administrators.
  PASSKEY_ROLES: "admin",
  // The contract's word: OpenID Connect clients are registered by the operator alone, unless opened.
  OIDC_REGISTRATION: "closed",
} as const;

export type Setting = keyof typeof DEFAULTS;

/** A comma-separated setting as a list: trimmed, lowercase, no empty items. */
export function listOf(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== "");
}

/**
 * The origins allowed to call with credentials: the apex, `www`, the identity host and each app
 * host under the parent domain. The functions' CORS rule and the pages' redirect check alike.
 */
export function originsFor(domain: string, identityUrl: string, hosts: string[]): string[] {
  const own = [`https://${domain}`, `https://www.${domain}`, new URL(identityUrl).origin];
  return [...new Set([...own, ...hosts.map((h) => `https://${h}.${domain}`)])];
}
