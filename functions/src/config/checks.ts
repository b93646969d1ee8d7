/**
 * How a setting is checked: the first issue of a failed parse named with the setting (never its
 * value, which may be a secret), JSON objects, and the addresses the service calls out to.
 */
import { z } from "zod";

/** Reports the first issue of a failed parse, prefixed with the setting's name. */
export function check<T>(name: string, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? "" : `${issue.path.join(".")}: `;
  throw new Error(`${name}: ${where}${issue?.message ?? "invalid"}`);
}

/** A setting holding JSON: an object, or nothing when empty. Its text is never repeated (it may be a secret). */
export function jsonObject(name: string, text: string): unknown {
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
export const remoteUrl = z
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

/**
 * MCP_RESOURCE_URL, or the start page host's `/mcp` when blank: https (http on loopback), its path
 * `/mcp` (where paths.ts serves it), written as the URL standard writes it, with no query,
 * fragment or credentials, so that the operator can register it as a resource exactly as it is
 * (core/oidc/resources) and the tokens' audience is compared with one spelling.
 */
export function mcpResource(value: string, parentDomain: string): string {
  const given = value.trim() === "" ? `https://startpage.${parentDomain}/mcp` : value.trim();
  const url = check("MCP_RESOURCE_URL", remoteUrl, given);
  const parsed = new URL(url);
  const plain = parsed.search === "" && parsed.hash === "" && parsed.username === "" && parsed.password === "";
  if (url !== given || parsed.pathname !== "/mcp" || !plain)
    throw new Error("MCP_RESOURCE_URL: must be an origin followed by /mcp, with no query or fragment");
  return url;
}
