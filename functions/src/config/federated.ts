/** FEDERATED_PROVIDERS and FEDERATED_CLIENT_SECRETS: the federated bridge's providers, checked whole. */
import { z } from "zod";
import { FEDERATED_IDPS, type FederatedConfig, type FederatedIdp } from "../core/settings";
import { check, jsonObject, remoteUrl } from "./checks";

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
