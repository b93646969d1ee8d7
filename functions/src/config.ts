/**
 * Reads every param and secret (params.ts) once per instance into a plain Config (core/settings),
 * checking each against a zod schema: a malformed setting stops the function at its first
 * request with a message naming the setting, never its value (it may be a secret).
 */
import { z } from "zod";
import { canonicalEmail } from "./core/email-address";
import { isRedirectUriForm } from "./core/sessions/handoff-redirects";
import { FEDERATED_IDPS, type Config, type FederatedConfig, type FederatedIdp, type HandoffApp } from "./core/settings";
import * as params from "./params";

export { FEDERATED_IDPS };
export type { Config, FederatedConfig, FederatedIdp, FederatedProvider, HandoffApp } from "./core/settings";

/** Reports the first issue of a failed parse, prefixed with the setting's name. */
function check<T>(name: string, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? "" : `${issue.path.join(".")}: `;
  throw new Error(`${name}: ${where}${issue?.message ?? "invalid"}`);
}

/** A setting holding JSON: an object, or nothing when empty. Its text is never repeated (it may be a secret). */
function jsonObject(name: string, text: string): unknown {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value;
  } catch {
    // Reported below, without the text.
  }
  throw new Error(`${name} must be a JSON object`);
}

const loopbackHosts = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** An address the service calls out to: https, or http on loopback for local stand-ins. */
const remoteUrl = z
  .string()
  .trim()
  .transform((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be an https address" });
      return z.NEVER;
    }
    if (url.protocol !== "https:" && !(url.protocol === "http:" && loopbackHosts.has(url.hostname))) {
      ctx.addIssue({ code: "custom", message: "must be https" });
      return z.NEVER;
    }
    return url.toString();
  });

/** An optional address setting: empty is none. */
export function remoteEndpoint(name: string, value: string): string | null {
  return value.trim() === "" ? null : check(name, remoteUrl, value);
}

/** An endpoint the bridge may send people to and call. */
export function openIdEndpoint(value: string): string | null {
  return remoteEndpoint("GAMING_OPENID_ENDPOINT", value);
}

/** A URN namespace identifier (RFC 8141 §2): 2 to 32 letters, digits and inner hyphens. */
const urnNamespaceSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,30}[A-Za-z0-9]$/, "must be 2–32 letters, digits or inner hyphens");

export function urnNamespace(value: string): string {
  return check("CLAIM_NAMESPACE", urnNamespaceSchema, value);
}

const text = z.preprocess(
  (v) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined),
  z.string().optional(),
);

/** One row of FEDERATED_PROVIDERS: an OpenID Connect provider (`issuer`) or a plain OAuth 2.0 one (its endpoints). */
const federatedRow = z
  .object({
    issuer: text,
    authorizationEndpoint: text,
    tokenEndpoint: text,
    clientId: text,
    providerId: text,
    scope: text,
    // What the authorisation request asks for; `form_post` providers POST their answer back.
    responseMode: z.enum(["query", "form_post"]).optional(),
  })
  .superRefine((row, ctx) => {
    if (row.clientId === undefined || row.providerId === undefined)
      ctx.addIssue({ code: "custom", message: "needs clientId and providerId" });
    const oauth = row.authorizationEndpoint !== undefined && row.tokenEndpoint !== undefined;
    const some = row.authorizationEndpoint !== undefined || row.tokenEndpoint !== undefined;
    if (row.issuer !== undefined ? some : !oauth)
      ctx.addIssue({
        code: "custom",
        message: "needs either issuer (OpenID Connect) or authorizationEndpoint and tokenEndpoint (OAuth 2.0)",
      });
    if (row.issuer !== undefined && !(row.scope ?? "openid").split(" ").includes("openid"))
      ctx.addIssue({ code: "custom", path: ["scope"], message: "must include openid" });
  });

const federatedRows = z.record(z.string(), z.unknown()).superRefine((rows, ctx) => {
  for (const idp of Object.keys(rows)) {
    if (!(FEDERATED_IDPS as readonly string[]).includes(idp))
      ctx.addIssue({ code: "custom", message: `unknown idp "${idp}"` });
  }
});

/**
 * FEDERATED_PROVIDERS with its secrets. A mistake here stops the function at its first request
 * with a message naming the setting, rather than failing sign-ins one by one.
 */
export function federatedConfig(providersJson: string, secretsJson: string, apiKey: string): FederatedConfig | null {
  if (providersJson.trim() === "") return null;
  const rows = check("FEDERATED_PROVIDERS", federatedRows, jsonObject("FEDERATED_PROVIDERS", providersJson));
  const secrets = jsonObject("FEDERATED_CLIENT_SECRETS", secretsJson) as Record<string, unknown>;
  if (apiKey.trim() === "") throw new Error("FEDERATED_PROVIDERS: IDP_API_KEY must be set too");
  const providers: FederatedConfig["providers"] = {};
  for (const [idp, raw] of Object.entries(rows)) {
    const row = check(`FEDERATED_PROVIDERS ${idp}`, federatedRow, raw ?? {});
    const secret = secrets[idp];
    if (typeof secret !== "string" || secret === "")
      throw new Error(`FEDERATED_PROVIDERS: ${idp} has no client secret in FEDERATED_CLIENT_SECRETS`);
    const endpoint = (key: string, value: string) => check(`FEDERATED_PROVIDERS ${idp}.${key}`, remoteUrl, value);
    const issuer = row.issuer === undefined ? null : (endpoint("issuer", row.issuer), row.issuer);
    const endpoints =
      row.authorizationEndpoint !== undefined && row.tokenEndpoint !== undefined
        ? {
            authorization: endpoint("authorizationEndpoint", row.authorizationEndpoint),
            token: endpoint("tokenEndpoint", row.tokenEndpoint),
          }
        : null;
    const scope = row.scope ?? (issuer !== null ? "openid email profile" : "");
    providers[idp as FederatedIdp] = {
      issuer,
      endpoints,
      clientId: row.clientId as string,
      clientSecret: secret,
      providerId: row.providerId as string,
      scope,
      responseMode: row.responseMode ?? "query",
    };
  }
  return Object.keys(providers).length === 0 ? null : { apiKey: apiKey.trim(), providers };
}

const handoffAppsSchema = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "app ids are lowercase letters, digits and hyphens"),
  z.strictObject({
    name: z.string().trim().min(1).max(80),
    redirectUris: z
      .array(
        z
          .string()
          .refine(isRedirectUriForm, "a redirect URI is https, loopback http, or a private-use scheme (RFC 8252)"),
      )
      .min(1)
      .max(20),
  }),
);

/** HANDOFF_APPS, checked whole: a mistake stops the function with the setting named. */
export function parseHandoffApps(json: string): Record<string, HandoffApp> {
  const apps = check("HANDOFF_APPS", handoffAppsSchema, jsonObject("HANDOFF_APPS", json));
  return Object.fromEntries(Object.entries(apps).map(([id, app]) => [id, { id, ...app }]));
}

export function originsFor(domain: string, identityUrl: string, hosts: string[]): string[] {
  const own = [`https://${domain}`, `https://www.${domain}`, new URL(identityUrl).origin];
  return [...new Set([...own, ...hosts.map((h) => `https://${h}.${domain}`)])];
}

function orDefault(value: string, fallback: string): string {
  return value.trim() === "" ? fallback : value.trim();
}

const smtpPortSchema = z.coerce.number().int().min(1).max(65535);
const budgetSchema = z.coerce.number().int().min(1).max(1_000_000);
const hopsSchema = z.coerce.number().int().min(0).max(10);
const digestMinutesSchema = z.coerce
  .number()
  .int()
  .min(1)
  .max(24 * 60);
const flag = z.enum(["true", "false"]).transform((v) => v === "true");
const addressList = z.array(
  z
    .string()
    .transform(
      (raw, ctx) =>
        canonicalEmail(raw) ?? (ctx.addIssue({ code: "custom", message: "must be email addresses" }), z.NEVER),
    ),
);

const list = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== "");

/** APP_HOSTS as a list: the family's applications, each a host under the parent domain. */
export function appHostList(): string[] {
  return list(orDefault(params.appHosts.value(), "startpage,status,calendar,location"));
}

/** Reads every param once. A secret is only present in a function that declares it in index.ts. */
export function readConfig(): Config {
  const domain = orDefault(params.parentDomain.value(), "example.test");
  const identity = orDefault(params.idUrl.value(), "https://id.example.test");
  const hosts = appHostList();
  const secret = (s: typeof params.smtpPassword) => process.env[s.name] ?? "";
  const host = params.smtpHost.value();
  return {
    parentDomain: domain,
    serviceUrl: new URL(orDefault(params.serviceUrl.value(), `https://${domain}`)).origin,
    idUrl: identity,
    allowedOrigins: originsFor(domain, identity, hosts),
    smtp:
      host === ""
        ? null
        : {
            host,
            port: check("SMTP_PORT", smtpPortSchema, orDefault(params.smtpPort.value(), "587")),
            secure: params.smtpSecure.value() === "true",
            user: params.smtpUser.value(),
            password: secret(params.smtpPassword),
            from: orDefault(params.mailFrom.value(), "Sign-in <no-reply@example.test>"),
          },
    sessionKeys: secret(params.sessionKeys),
    codePepper: secret(params.codePepper),
    idpSigningSecret: secret(params.idpSigningSecret),
    claimNamespace: urnNamespace(orDefault(params.claimNamespace.value(), "identity")),
    gamingEndpoint: openIdEndpoint(params.gamingOpenIdEndpoint.value()),
    // Only the bridge function is given FEDERATED_CLIENT_SECRETS; every other function reads the same
    // FEDERATED_PROVIDERS without it and has no use for the providers.
    federated:
      process.env[params.federatedClientSecrets.name] === undefined
        ? null
        : federatedConfig(
            params.federatedProviders.value(),
            secret(params.federatedClientSecrets),
            params.idpApiKey.value(),
          ),
    calendarUrl: remoteEndpoint("CALENDAR_ICS_URL", params.calendarIcsUrl.value()),
    defaultLocation: params.defaultLocation.value().trim() === "" ? null : params.defaultLocation.value().trim(),
    handoffApps: parseHandoffApps(params.handoffAppsParam.value()),
    sendBudgets: {
      perClientPerHour: check(
        "OTP_SENDS_PER_CLIENT_HOUR",
        budgetSchema,
        orDefault(params.otpSendsPerClientHour.value(), "20"),
      ),
      perServicePerMinute: check(
        "OTP_SENDS_PER_MINUTE",
        budgetSchema,
        orDefault(params.otpSendsPerMinute.value(), "600"),
      ),
      perDomainPerHour: check(
        "OTP_SENDS_PER_DOMAIN_HOUR",
        budgetSchema,
        orDefault(params.otpSendsPerDomainHour.value(), "200"),
      ),
      domainBudgetExempt: list(params.otpDomainBudgetExempt.value()),
    },
    clientAddressHops: check("CLIENT_ADDRESS_HOPS", hopsSchema, orDefault(params.clientAddressHops.value(), "2")),
    review: {
      digestWindowMs:
        check("REVIEW_DIGEST_MINUTES", digestMinutesSchema, orDefault(params.reviewDigestMinutes.value(), "15")) *
        60_000,
      reviewers: check("REVIEWERS", addressList, list(params.reviewers.value())),
      notifyRejected: check("NOTIFY_REJECTED", flag, orDefault(params.notifyRejected.value(), "false")),
    },
  };
}
