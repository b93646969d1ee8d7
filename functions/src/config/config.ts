/**
 * Reads every param and secret (params.ts) once per instance into a plain Config (core/settings),
 * checking each against a zod schema: a malformed setting stops the function at its first
 * request with a message naming the setting, never its value (it may be a secret). How a setting
 * is checked (checks.ts), and the two JSON settings (federated.ts, handoff-apps.ts), are beside it.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { canonicalEmail } from "../core/email-address";
import { FEDERATED_IDPS, REGISTRATION_BUDGETS, type Config } from "../core/settings";
import { DEFAULTS, listOf, originsFor, type Setting } from "./defaults";
import * as params from "./params";
import { check, mcpResource, openIdEndpoint, remoteEndpoint, urnNamespace } from "./checks";
import { federatedConfig } from "./federated";
import { parseHandoffApps } from "./handoff-apps";
import { parseAddressRules } from "./address-rules";

export {
  FEDERATED_IDPS,
  federatedConfig,
  openIdEndpoint,
  originsFor,
  parseAddressRules,
  parseHandoffApps,
  remoteEndpoint,
  urnNamespace,
};
export type { Config, FederatedConfig, FederatedIdp, FederatedProvider, HandoffApp } from "../core/settings";

/** A setting's value, trimmed, or its default (defaults.ts) when left blank. */
function read(param: { name: string; value(): string }): string {
  const value = param.value().trim();
  return value === "" ? DEFAULTS[param.name as Setting] : value;
}

const smtpPortSchema = z.coerce.number().int().min(1).max(65535);
const budgetSchema = z.coerce.number().int().min(1).max(1_000_000);
const hopsSchema = z.coerce.number().int().min(0).max(10);
const digestMinutesSchema = z.coerce
  .number()
  .int()
  .min(1)
  .max(24 * 60);
const registrationSchema = z.enum(["closed", "reviewed", "open"]);
const flag = z.enum(["true", "false"]).transform((v) => v === "true");
const addressList = z.array(
  z
    .string()
    .transform(
      (raw, ctx) =>
        canonicalEmail(raw) ?? (ctx.addIssue({ code: "custom", message: "must be email addresses" }), z.NEVER),
    ),
);

/**
 * PASSKEY_ROLES: the roles the passkey rule names, or `none`. Only `admin` carries powers over
 * others today, so it is the one role the rule can name; a role it would not guard is refused
 * rather than read as a rule that holds.
 */
const passkeyRolesSchema = z
  .array(z.string())
  .transform((roles) => (roles.length === 1 && roles[0] === "none" ? [] : roles))
  .pipe(z.array(z.enum(["admin"])).transform((roles) => [...new Set(roles)]));

/** APP_HOSTS as a list: the family's applications, each a host under the parent domain. */
export function appHostList(): string[] {
  return listOf(read(params.appHosts));
}

/** Reads every param once. A secret is only present in a function that declares it in index.ts. */
export function readConfig(): Config {
  const domain = read(params.parentDomain);
  const identity = read(params.idUrl);
  const hosts = appHostList();
  const secret = (s: typeof params.smtpPassword) => process.env[s.name] ?? "";
  const host = params.smtpHost.value();
  // On the emulators (or a demo- project), loopback receivers are what there is to reach.
  const emulated = process.env.FUNCTIONS_EMULATOR === "true" || (process.env.GCLOUD_PROJECT ?? "").startsWith("demo-");
  return {
    parentDomain: domain,
    serviceUrl: new URL(params.serviceUrl.value().trim() || `https://${domain}`).origin,
    idUrl: identity,
    allowedOrigins: originsFor(domain, identity, hosts),
    smtp:
      host === ""
        ? null
        : {
            host,
            port: check("SMTP_PORT", smtpPortSchema, read(params.smtpPort)),
            secure: params.smtpSecure.value() === "true",
            user: params.smtpUser.value(),
            password: secret(params.smtpPassword),
            from: read(params.mailFrom),
          },
    sessionKeys: secret(params.sessionKeys),
    codePepper: secret(params.codePepper),
    loopbackHooks: emulated,
    idpSigningSecret: secret(params.idpSigningSecret),
    claimNamespace: urnNamespace(read(params.claimNamespace)),
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
    mcpResourceUrl: mcpResource(params.mcpResourceUrl.value(), domain),
    handoffApps: parseHandoffApps(params.handoffAppsParam.value()),
    addressRules: parseAddressRules(params.addressRules.value()),
    arrivalProviders: listOf(params.arrivalProviders.value()),
    sendBudgets: {
      perClientPerHour: check("OTP_SENDS_PER_CLIENT_HOUR", budgetSchema, read(params.otpSendsPerClientHour)),
      perServicePerMinute: check("OTP_SENDS_PER_MINUTE", budgetSchema, read(params.otpSendsPerMinute)),
      perDomainPerHour: check("OTP_SENDS_PER_DOMAIN_HOUR", budgetSchema, read(params.otpSendsPerDomainHour)),
      domainBudgetExempt: listOf(params.otpDomainBudgetExempt.value()),
    },
    clientAddressHops: check("CLIENT_ADDRESS_HOPS", hopsSchema, read(params.clientAddressHops)),
    review: {
      digestWindowMs: check("REVIEW_DIGEST_MINUTES", digestMinutesSchema, read(params.reviewDigestMinutes)) * 60_000,
      reviewers: check("REVIEWERS", addressList, listOf(params.reviewers.value())),
      notifyRejected: check("NOTIFY_REJECTED", flag, read(params.notifyRejected)),
    },
    notices: {
      newBrowser: check("NOTIFY_NEW_BROWSER", flag, read(params.notifyNewBrowser)),
      waysIn: check("NOTIFY_WAYS_IN", flag, read(params.notifyWaysIn)),
      access: check("NOTIFY_ACCESS_CHANGED", flag, read(params.notifyAccessChanged)),
    },
    passkeyRoles: check("PASSKEY_ROLES", passkeyRolesSchema, listOf(read(params.passkeyRoles))),
    oidcRegistration: {
      policy: check("OIDC_REGISTRATION", registrationSchema, read(params.oidcRegistration).toLowerCase()),
      budgets: REGISTRATION_BUDGETS,
      documents: emulated ? devDocuments() : { devOrigins: [], ca: null },
    },
  };
}

/**
 * On the emulators alone: the origins agents' metadata documents may be read from on loopback or
 * plain http (OIDC_METADATA_DEV_ORIGINS), and the authority that signs their certificates, a PEM
 * file trusted beside the public roots (OIDC_METADATA_DEV_CA).
 */
function devDocuments(): Config["oidcRegistration"]["documents"] {
  const caFile = process.env.OIDC_METADATA_DEV_CA ?? "";
  let ca: string | null = null;
  if (caFile !== "") {
    try {
      ca = readFileSync(caFile, "utf8");
    } catch {
      throw new Error(`OIDC_METADATA_DEV_CA: cannot read ${caFile}`);
    }
  }
  return { devOrigins: listOf(process.env.OIDC_METADATA_DEV_ORIGINS ?? ""), ca };
}
