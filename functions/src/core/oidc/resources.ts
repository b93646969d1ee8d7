/**
 * The family's resources (RFC 8707 resource indicators): the sites and APIs the operator
 * registered, each by its URL and the scopes it defines. A client names one as `resource` when it
 * asks for a sign-in; the access token it is then given is a JWT (RFC 9068) whose audience is that
 * resource alone, which the resource verifies offline with the provider's keys, and which no other
 * resource, nor the provider's userinfo, takes (core/oidc/access-tokens).
 *
 * A resource's URL is an absolute https URL without a fragment or a query (RFC 8707 §2) (http is
 * allowed for a loopback host only, for a local stack), written as the URL standard writes it,
 * so that no two registrations name one site; clients must send it exactly as registered. Its
 * scopes are scope tokens other than the provider's own. It names the clients that may ask for a
 * token for it (no other is given one), and may name a project a person must hold for one, as a
 * client's project gates its sign-ins (core/people/access `maySignInTo`).
 */
import type { Deps } from "../deps";
import type { Transaction } from "../../store/db";
import * as resources from "../../store/oidc-resources";
import type { Resource } from "../model/resource";
import { selfRegistered, type OidcClient } from "../model/oidc-client";
import { AppError, ensure } from "../errors";
import { alreadyExists } from "../failures";
import { sha256 } from "../secrets";
import { SCOPES } from "./scopes";
import * as clients from "../../store/oidc-clients";
import * as consents from "../../store/oidc-consents";

/** A scope token (RFC 6749 §3.3): printable ASCII but space, the double quote and the backslash. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Longest URL a resource may have: it travels in every request that names it. */
export const RESOURCE_URL_MAX = 512;
/** How many scopes one resource may define. */
export const RESOURCE_SCOPES_MAX = 32;

/** The document id of the resource at `url`. */
const resourceId = (url: string): string => sha256(url);

/**
 * Whether `url` can name a resource: absolute, https (http on a loopback host), no fragment, query
 * or credentials, and written as the URL standard writes it (lower-case scheme and host, no
 * default port, no dot segments), a bare origin without its "/", no percent-escapes.
 */
export function isResourceUrl(url: string): boolean {
  if (url.length > RESOURCE_URL_MAX) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const secure = parsed.protocol === "https:" || (parsed.protocol === "http:" && LOOPBACK.has(parsed.hostname));
  // One spelling per site: a bare origin without its "/" (as MCP clients send it), no host ending
  // in a dot, and no percent-escapes, which a verifier might decode.
  const canonical =
    (parsed.pathname === "/" ? `${url}/` === parsed.href : url === parsed.href) &&
    !parsed.hostname.endsWith(".") &&
    !url.includes("%");
  return (
    secure &&
    canonical &&
    parsed.username === "" &&
    parsed.password === "" &&
    parsed.search === "" &&
    parsed.hash === "" &&
    !url.includes("#") &&
    !url.includes("?")
  );
}

/** Registers a resource the family serves; refused for a malformed URL or scope, or one registered already. */
export async function registerResource(
  deps: Pick<Deps, "store" | "clock">,
  input: { url: string; name: string; scopes: string[]; clients: string[]; project?: string | null; agents?: boolean },
): Promise<Resource> {
  ensure(isResourceUrl(input.url), "resource_url_invalid");
  const allowed = [...new Set(input.clients)];
  for (const clientId of allowed) await ensureClient(deps, clientId);
  const name = input.name.trim();
  ensure(name.length > 0 && name.length <= 100, "resource_name_invalid");
  const scopes = [...new Set(input.scopes)];
  ensure(scopes.length <= RESOURCE_SCOPES_MAX, "resource_scope_invalid", `At most ${RESOURCE_SCOPES_MAX} scopes`);
  for (const scope of scopes)
    ensure(
      SCOPE_TOKEN.test(scope) && scope.length <= 64 && !(SCOPES as readonly string[]).includes(scope),
      "resource_scope_invalid",
      `"${scope}" is not a scope token of its own (the provider's are ${SCOPES.join(", ")})`,
    );
  ensure(
    !(input.agents ?? false) || scopes.length > 0,
    "resource_scope_invalid",
    "A resource open to agents defines at least one scope: what the person lets an agent do",
  );
  const resource: Resource = {
    url: input.url,
    name,
    scopes,
    clients: allowed,
    agents: input.agents ?? false,
    project: input.project ?? null,
    createdAt: deps.clock.now(),
  };
  try {
    await resources.create(deps.store, resourceId(input.url), resource);
  } catch (err) {
    if (alreadyExists(err)) throw new AppError("resource_exists");
    throw err;
  }
  return resource;
}

export const listResources = (deps: Pick<Deps, "store">): Promise<Resource[]> => resources.list(deps.store);

/** The registered resource at exactly `url`; null for any other string. */
export async function findResource(deps: Pick<Deps, "store">, url: string, tx?: Transaction): Promise<Resource | null> {
  if (!isResourceUrl(url)) return null;
  const found = await resources.find(deps.store, resourceId(url), tx);
  return found !== null && found.url === url ? found : null;
}

async function ensureClient(deps: Pick<Deps, "store">, clientId: string): Promise<void> {
  if ((await clients.findById(deps.store, clientId)) === null)
    throw new AppError("client_not_found", `no OpenID Connect client "${clientId}"`);
}

/**
 * Lets `clientId` ask for tokens for the resource, or stops it: a client stopped gets no new
 * token for it, and its grants for it refresh no more.
 */
export async function allowClient(
  deps: Pick<Deps, "store">,
  url: string,
  clientId: string,
  allowed: boolean,
): Promise<Resource> {
  const found = await findResource(deps, url);
  ensure(found, "resource_not_found");
  if (allowed) await ensureClient(deps, clientId);
  await resources.setClient(deps.store, resourceId(url), clientId, allowed);
  return (await findResource(deps, url)) ?? found;
}

/**
 * Opens the resource to agents (every client that registered itself and may be used, each
 * person's consent deciding), or closes it to them: closed, their grants for it refresh no more,
 * and the consents people gave for it are forgotten, so that opening it again asks each afresh.
 */
export async function openToAgents(deps: Pick<Deps, "store">, url: string, open: boolean): Promise<Resource> {
  const found = await findResource(deps, url);
  ensure(found, "resource_not_found");
  ensure(
    !open || found.scopes.length > 0,
    "resource_scope_invalid",
    "A resource open to agents defines at least one scope: what the person lets an agent do",
  );
  await resources.setAgents(deps.store, resourceId(url), open);
  // Closed to agents, what people let them do there is forgotten: opened again, each asks afresh.
  if (!open) await consents.removeForResource(deps.store, url);
  return (await findResource(deps, url)) ?? found;
}

/** Of `scopes`, those a token for `resource` may carry now: the provider's own, and those it defines. */
export function scopesDefined(resource: Resource | null, scopes: string[]): string[] {
  return scopes.filter(
    (s) => (SCOPES as readonly string[]).includes(s) || resource === null || resource.scopes.includes(s),
  );
}

/**
 * Whether `client` may be given a token for `resource` now: it is registered still, and names the
 * client, or (a client that registered itself) is open to agents.
 */
export function mayAskFor(
  resource: Resource | null,
  client: Pick<OidcClient, "clientId" | "registeredBy">,
): resource is Resource {
  return (
    resource !== null && (resource.clients.includes(client.clientId) || (resource.agents && selfRegistered(client)))
  );
}

/**
 * Whether a grant made for `resource` while it was registered `since` may go on: the resource is
 * open to the client still, and is that same registration, not one removed and made afresh.
 */
export function grantStillOpen(
  resource: Resource | null,
  client: Pick<OidcClient, "clientId" | "registeredBy">,
  since: Date | null,
): resource is Resource {
  return mayAskFor(resource, client) && since !== null && since.getTime() === resource.createdAt.getTime();
}

/**
 * Removes a resource: no new token names it from then on, and a grant that names it refreshes no
 * more; a token already issued for it lives out its short life (ACCESS_TOKEN_FOR_RESOURCE_LIFETIME_MS).
 */
export async function removeResource(deps: Pick<Deps, "store">, url: string): Promise<void> {
  ensure(await findResource(deps, url), "resource_not_found");
  await resources.remove(deps.store, resourceId(url));
}
